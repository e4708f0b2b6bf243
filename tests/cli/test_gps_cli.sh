#!/usr/bin/env bash
# CLI tests of graph transformers (issue 39): gat-train --arch gps|transformer|gat-mlp|gat-bn|gat-ffn on a
# node task (exact attention, and --anchors) and on --task graph (with --pe, the attention
# readout; gat-bn with the benchmarking-gnns preset's schedule, MLP classifier and last-epoch
# model), the same output for 1 and 2 threads, and the usage errors.
# The models are saved (--save) and gat-embed's predictions from the files give the test
# accuracy gat-train reported.
# Usage: test_gps_cli.sh GAT_TRAIN GAT_EMBED DATA_DIR
set -u
train=$1 embed=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check help 0 '--arch NAME' '' -- "$train" --help
check bad-arch 2 '' "^gat-train: --arch: unknown layer kind 'gpt' \(expected gps, transformer, gat-mlp, gat-bn or gat-ffn\), or gat$" -- "$train" --arch gpt
check anchors-without-arch 2 '' '--anchors needs --arch gps or transformer' -- "$train" --anchors 10
check embed-dim-gat 2 '' '^gat-train: --embed-dim needs --task graph or a graph transformer \(--arch\): a GAT model.s widths are --hidden and --heads$' -- "$train" --dataset "$data/small" --embed-dim 16
check embed-dim-preset-gat 0 'test accuracy' '' -- "$train" --dataset "$data/small" --preset platonov --arch gat --layers 1 --hidden 4 --heads 2 --epochs 1 --quiet
check arch-score-bias 2 '' '--arch gps does not take --score-bias 1' -- "$train" --arch gps --score-bias 1
check arch-head-dropout 2 '' '--arch transformer does not take --head-dropout 1' -- "$train" --arch transformer --head-dropout 1
check arch-heads 2 '' 'heads = 3, expected a divisor of dim = 16' -- "$train" --dataset "$data/small" --arch gps --embed-dim 16 --heads 3 --quiet
check whole-other-score 2 '' 'whole_scores needs the gat score \(its score halves. vectors\), got the dot score' -- "$train" --dataset "$data/small" --whole-scores 1 --attention dot --epochs 1 --quiet
check init-on-gat 2 '' '^gat-train: --linear-init pytorch needs a graph transformer \(--arch\); GAT models start from the GAT paper.s glorot values$' -- "$train" --linear-init pytorch
check init-unknown 2 '' "^gat-train: --linear-init: unknown 'torch' \(expected glorot or pytorch\)$" -- "$train" --arch gps --linear-init torch
check whole-on-transformer 2 '' '^gat-train: --arch transformer has no GAT term: --whole-scores 1 needs gps, gat-mlp, gat-bn or gat-ffn$' -- "$train" --arch transformer --whole-scores 1

strip() { sed -E 's/[0-9.]+ s\b//g; s/[0-9.]+ s\)/)/' "$1"; }
common=(--dataset "$data/small" --embed-dim 16 --heads 2 --epochs 6 --patience 6 --lr 0.01 --dropout 0.1 --seed 4)
for a in gps transformer gat-mlp gat-bn gat-ffn; do
  check "node-$a" 0 "^test accuracy: [0-9.]+%  \(arch $a, " '' -- "$train" "${common[@]}" --arch "$a" --threads 1
done
grep -Eq '^epoch +6  train loss [0-9.]+ acc' "$tmp/out" && ok node-progress || badf node-progress "$tmp/out"
"$train" "${common[@]}" --arch gps --threads 1 --pe lap:4 >"$tmp/a" 2>&1
"$train" "${common[@]}" --arch gps --threads 2 --pe lap:4 >"$tmp/b" 2>&1
cmp -s <(strip "$tmp/a") <(strip "$tmp/b") && ok node-same-on-2-threads || badf node-same-on-2-threads "$tmp/a" "$tmp/b"
# gat-ffn 128 wide: its GAT layers project by BLAS (a 128 x 128 weight), as the FFN blocks do
"$train" "${common[@]}" --arch gat-ffn --embed-dim 128 --threads 1 >"$tmp/a" 2>&1
"$train" "${common[@]}" --arch gat-ffn --embed-dim 128 --threads 2 >"$tmp/b" 2>&1
grep -q '^test accuracy' "$tmp/a" && cmp -s <(strip "$tmp/a") <(strip "$tmp/b") && ok ffn-same-on-2-threads ||
  badf ffn-same-on-2-threads "$tmp/a" "$tmp/b"
# every head's scores from the whole row (--whole-scores 1): another model, the same on 2 threads
"$train" "${common[@]}" --arch gat-ffn --embed-dim 128 --whole-scores 1 --threads 1 >"$tmp/c" 2>&1
"$train" "${common[@]}" --arch gat-ffn --embed-dim 128 --whole-scores 1 --threads 2 >"$tmp/d" 2>&1
grep -q '^test accuracy' "$tmp/c" && cmp -s <(strip "$tmp/c") <(strip "$tmp/d") && ok ffn-whole-same-on-2-threads ||
  badf ffn-whole-same-on-2-threads "$tmp/c" "$tmp/d"
! cmp -s <(grep '^epoch' "$tmp/a") <(grep '^epoch' "$tmp/c") && ok ffn-whole-differs || badf ffn-whole-differs "$tmp/a" "$tmp/c"
# 205 nodes attend to 50 anchors: another function than exact attention, so other figures
check node-anchors 0 '^test accuracy' '' -- "$train" "${common[@]}" --arch transformer --anchors 50 --threads 1
"$train" "${common[@]}" --arch transformer --threads 1 >"$tmp/c" 2>&1
! cmp -s <(grep '^epoch' "$tmp/out") <(grep '^epoch' "$tmp/c") && ok anchors-differ || bad anchors-differ

# graph classification: 24 small graphs (lib.sh, toy_tu)
d=$tmp/toy
toy_tu "$d" toy 24
g=(--task graph --dataset "$d" --arch gps --embed-dim 8 --heads 2 --epochs 4 --patience 4 --graph-batch 8 --folds 3 --seed 3 --pe lap:2)
check graph-gps 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(3 folds, stratified, readout sum, arch gps\)$' '' -- "$train" "${g[@]}" --threads 1
[ "$(grep -c '^fold ' "$tmp/out")" -eq 3 ] && ok graph-fold-lines || badf graph-fold-lines "$tmp/out"
strip "$tmp/out" >"$tmp/g1"
"$train" "${g[@]}" --threads 2 >"$tmp/g2" 2>&1
cmp -s "$tmp/g1" <(strip "$tmp/g2") && ok graph-same-on-2-threads || badf graph-same-on-2-threads "$tmp/g1" "$tmp/g2"
# the attention readout (2 heads): the same on 2 threads; --readout-heads without it refused
check graph-attention 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(3 folds, stratified, readout attention, arch gps\)$' '' -- "$train" "${g[@]}" --readout attention --readout-heads 2 --threads 1
strip "$tmp/out" >"$tmp/a1"
"$train" "${g[@]}" --readout attention --readout-heads 2 --threads 2 >"$tmp/a2" 2>&1
cmp -s "$tmp/a1" <(strip "$tmp/a2") && ok graph-attention-same-on-2-threads || badf graph-attention-same-on-2-threads "$tmp/a1" "$tmp/a2"
check graph-readout-heads 2 '' '^gat-train: --readout-heads needs --readout attention$' -- "$train" "${g[@]}" --readout-heads 2
check bn-anchors 2 '' '^gat-train: --anchors needs --arch gps or transformer$' -- "$train" "${common[@]}" --arch gat-bn --anchors 4
check gps-residual 2 '' '--arch gps does not take --residual' -- "$train" "${common[@]}" --arch gps --residual
check ffn-anchors 2 '' '^gat-train: --anchors needs --arch gps or transformer$' -- "$train" "${common[@]}" --arch gat-ffn --anchors 4
# gat-ffn is residual by construction: --residual (which --preset platonov sets) is accepted
check ffn-residual 0 '^test accuracy' '' -- "$train" "${common[@]}" --arch gat-ffn --residual --threads 1

# gat-bn under the dwivedi preset (batch norm, --residual, one head last, the MLP classifier,
# ReduceLROnPlateau to --min-lr, --keep-last): the schedule ends each fold, the last epoch reported
b=(--preset dwivedi --arch gat-bn --dataset "$d" --embed-dim 8 --heads 2 --graph-batch 8 --folds 3 --seed 3 --lr 0.01 --lr-patience 0 --min-lr 0.002)
check graph-bn 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(3 folds, stratified, readout mean, arch gat-bn\)$' '' -- "$train" "${b[@]}" --epochs 5 --threads 1 --quiet
"$train" "${b[@]}" --epochs 5 --threads 2 --quiet >"$tmp/b2" 2>&1
cmp -s <(strip "$tmp/out") <(strip "$tmp/b2") && ok graph-bn-same-on-2-threads || badf graph-bn-same-on-2-threads "$tmp/out" "$tmp/b2"
# an lr too small to move the weights halves at every validation without a lower loss (the
# running statistics still move it at first): each fold ends below --min-lr long before the
# preset's 1000 epochs, and reports its last epoch (keep_last), not its best
"$train" "${b[@]}" --lr 1e-9 --min-lr 3e-10 --threads 1 >"$tmp/b3" 2>&1
grep -E '^fold +[0-9]+: best epoch' "$tmp/b3" |
  awk '{ if ($5 + 0 != $7 + 0 || $7 + 0 >= 100) bad = 1; n++ } END { exit !(n == 3 && !bad) }' &&
  ok graph-bn-schedule-ends || badf graph-bn-schedule-ends "$tmp/b3"

# --save: gat-embed predicts with the file what gat-train tested (the test nodes' accuracy from
# the predictions and the saved split is the reported one), per node and per graph
check node-save 0 '^saved the model to ' '' -- "$train" "${common[@]}" --arch gat-bn --threads 1 --save "$tmp/n.gat" --save-split "$tmp/n.split"
want=$(sed -nE 's/^test accuracy: ([0-9.]+)%.*/\1/p' "$tmp/out")
check node-embed 0 '^wrote .*: predictions of 205 nodes' '' -- "$embed" --model "$tmp/n.gat" --predict "$tmp/n.tsv" --out "$tmp/n.npy" --layer probs
# a .npy output gets its row ids beside it, as with a GAT model (the node ids, in row order)
grep -q "^wrote $tmp/n.npy: 205 x [0-9]* (probs of the nodes); row ids in $tmp/n.ids.txt$" "$tmp/out" &&
  [ "$(wc -l <"$tmp/n.ids.txt")" -eq 205 ] && [ "$(sed -n 1p "$tmp/n.ids.txt")" = "$(sed -n 2p "$tmp/n.tsv" | cut -f1)" ] &&
  ok node-embed-npy-ids || badf node-embed-npy-ids "$tmp/out"
got=$(awk -F'\t' 'FILENAME ~ /split$/ {s[$1] = $2; next} FILENAME ~ /content$/ {lab[$1] = $NF; next}
  FNR > 1 && s[$1] == "test" {n++; if ($2 == lab[$1]) c++} END {if (n) printf "%.2f", 100 * c / n}' \
  "$tmp/n.split" "$data/small/small.content" "$tmp/n.tsv")
[ -n "$want" ] && [ "$got" = "$want" ] && ok "node-embed-accuracy ($got %)" || bad node-embed-accuracy "gat-train $want, from the predictions $got"
# another dataset with the same features but other class names: said, as for GAT models
mkdir -p "$tmp/other"
sed 's/student$/pupil/' "$data/small/small.content" >"$tmp/other/small.content"
cp "$data/small/small.cites" "$tmp/other/small.cites"
check node-embed-other 0 '^wrote ' 'may not be the one model .* was trained on' -- "$embed" --model "$tmp/n.gat" --dataset "$tmp/other/small" --predict "$tmp/o.tsv"
check node-embed-refuses 2 '' 'is a graph transformer \(gat-train --arch gat-bn\): --attention-out does not apply' -- "$embed" --model "$tmp/n.gat" --attention-out "$tmp/a.tsv"
check node-embed-layer 2 '' '--layer \(logits or probs only\) does not apply' -- "$embed" --model "$tmp/n.gat" --out "$tmp/x.tsv" --layer 0
# whole-row scores in the file: the key, the bias tensor, and the same test accuracy from it
check node-save-whole 0 '^saved the model to ' '' -- "$train" "${common[@]}" --arch gat-ffn --whole-scores 1 --threads 1 --save "$tmp/w.gat" --save-split "$tmp/w.split"
want=$(sed -nE 's/^test accuracy: ([0-9.]+)%.*/\1/p' "$tmp/out")
grep -aq '"whole_scores":"1"' "$tmp/w.gat" && grep -aq '"layer1.gat.att_bias":{"dtype":"F32","shape":\[2\]' "$tmp/w.gat" &&
  grep -aq '"layer1.gat.att_src":{"dtype":"F32","shape":\[2,16\]' "$tmp/w.gat" && ok whole-in-model ||
  bad whole-in-model "$(head -c 900 "$tmp/w.gat")"
check node-embed-whole 0 '^wrote .*: predictions of 205 nodes' '' -- "$embed" --model "$tmp/w.gat" --predict "$tmp/w.tsv"
got=$(awk -F'\t' 'FILENAME ~ /split$/ {s[$1] = $2; next} FILENAME ~ /content$/ {lab[$1] = $NF; next}
  FNR > 1 && s[$1] == "test" {n++; if ($2 == lab[$1]) c++} END {if (n) printf "%.2f", 100 * c / n}' \
  "$tmp/w.split" "$data/small/small.content" "$tmp/w.tsv")
[ -n "$want" ] && [ "$got" = "$want" ] && ok "node-embed-whole-accuracy ($got %)" || bad node-embed-whole-accuracy "gat-train $want, from the predictions $got"
check graph-save 0 '^saved the model of fold 1 to ' '' -- "$train" "${g[@]}" --readout attention --readout-heads 2 --threads 1 --save "$tmp/g.gat" --save-folds "$tmp/g.folds"
want=$(sed -nE 's/^fold  1: .*test acc +([0-9.]+)%.*/\1/p' "$tmp/out")
check graph-embed 0 '^wrote .*: predictions of 24 graphs' '' -- "$embed" --model "$tmp/g.gat" --predict "$tmp/g.tsv"
got=$(awk 'FILENAME ~ /folds$/ {if (!/^#/) f[$1] = $2; next} FNR > 1 && f[$1] == 1 {n++; if ($2 == $4) c++}
  END {if (n) printf "%.2f", 100 * c / n}' "$tmp/g.folds" "$tmp/g.tsv")
[ -w /dev/full ] && check graph-embed-full 1 '' '^gat-embed: cannot write /dev/full: No space left on device$' -- "$embed" --model "$tmp/g.gat" --predict /dev/full
[ -n "$want" ] && [ "$got" = "$want" ] && ok "graph-embed-accuracy ($got %)" || bad graph-embed-accuracy "gat-train $want, from the predictions $got"

# --metrics, --plot and --eval-every on a node task (they were ignored): the rows of both runs,
# validation at epochs 2, 4 and 6 only
check gps-outputs 0 "^wrote $tmp/gps.csv: 12 epochs$" '' -- "$train" "${common[@]}" --arch gat-mlp --threads 1 --runs 2 --eval-every 2 --metrics "$tmp/gps.csv"
awk -F, 'NR > 1 {n++; if ($5 == "nan") nan++} END {exit !(n == 12 && nan == 6)}' "$tmp/gps.csv" && head -1 "$tmp/gps.csv" | grep -q '^run,epoch,' &&
  ok gps-metrics-rows || badf gps-metrics-rows "$tmp/gps.csv"
if command -v gnuplot >/dev/null; then
  check gps-plot 0 "^wrote $tmp/gps.svg: 640x400$" '' -- "$train" "${common[@]}" --arch gat-mlp --threads 1 --plot "$tmp/gps.svg"
else
  echo "skip gps-plot: no gnuplot on PATH"
fi
# --order: the dataset renumbered before training (said after its summary); the model saved
# predicts the nodes in the file's order with the test accuracy gat-train reported
check gps-order 0 '^node order rcm: [0-9.]+ s \(before training\)$' '' -- "$train" "${common[@]}" --arch gat-ffn --threads 1 --order rcm --save "$tmp/r.gat" --save-split "$tmp/r.split"
want=$(sed -nE 's/^test accuracy: ([0-9.]+)%.*/\1/p' "$tmp/out")
check gps-order-embed 0 '^wrote .*: predictions of 205 nodes' '' -- "$embed" --model "$tmp/r.gat" --predict "$tmp/r.tsv"
got=$(awk -F'\t' 'FILENAME ~ /split$/ {s[$1] = $2; next} FILENAME ~ /content$/ {lab[$1] = $NF; next}
  FNR > 1 && s[$1] == "test" {n++; if ($2 == lab[$1]) c++} END {if (n) printf "%.2f", 100 * c / n}' \
  "$tmp/r.split" "$data/small/small.content" "$tmp/r.tsv")
[ -n "$want" ] && [ "$got" = "$want" ] && ok "gps-order-accuracy ($got %)" || bad gps-order-accuracy "gat-train $want, from the predictions $got"
# auto (the default) keeps the order of a graph this small, and says nothing
check gps-order-auto 0 '^test accuracy' '' -- "$train" "${common[@]}" --arch gps --threads 1
! grep -q '^node order' "$tmp/out" && ok gps-order-auto-kept || badf gps-order-auto-kept "$tmp/out"
check gps-auc-classes 2 '' '^gat-train: --metric auc: ROC-AUC needs two classes, and .*small has [0-9]+ \(use acc or loss\)$' -- "$train" "${common[@]}" --arch gps --metric auc --quiet
summary
