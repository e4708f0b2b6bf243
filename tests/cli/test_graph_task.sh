#!/usr/bin/env bash
# CLI tests of graph classification (issue 37): gat-train --task graph on a small TU dataset
# written here (40 graphs; the class decides the node labels, so the signal is planted):
# stratified and fixed folds, every readout, --save-folds, determinism over runs and thread
# counts, the model file's task and readout, the MLP classifier, the learning-rate schedule and
# --preset dwivedi, gat-embed on a graph model, and the usage errors.
# Usage: test_graph_task.sh GAT_TRAIN GAT_EMBED DATA_DIR
set -u
train=$1 embed=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# toy: graph g (1..40) has 4 + g % 5 nodes on a path, class g % 2; a node's label is its
# graph's class, or 2 on every third node (lib.sh)
d=$tmp/toy
toy_tu "$d" toy 40
common=(--dataset "$d" --dropout 0 --epochs 8 --patience 8 --lr 0.02 --graph-batch 8 --seed 3)
# the times: of the fold lines (', 1.23 s') and of the epoch lines ('best 3  0.012 s')
strip() { sed -E 's/, [0-9.]+ s$//; s/(best [0-9]+)  [0-9.]+ s$/\1/' "$1"; }

check help 0 '--task NAME' '' -- "$train" --help
grep -q -- '--readout NAME' "$tmp/out" && grep -q -- '--folds K' "$tmp/out" && ok help-graph-options || badf help-graph-options "$tmp/out"

for r in sum mean max attention; do
  check "folds-$r" 0 "^test accuracy: .*\(4 folds, stratified, readout $r\)" '' -- \
    "$train" --task graph --readout "$r" --folds 4 --threads 1 "${common[@]}"
done
grep -Eq '^dataset .*toy: 40 graphs, 240 nodes, 3 features, 2 graph classes; 4 stratified folds' "$tmp/out" && ok summary-line || badf summary-line "$tmp/out"
[ "$(grep -c '^fold ' "$tmp/out")" -eq 4 ] && ok fold-lines || badf fold-lines "$tmp/out"
! grep -q 'can only learn' "$tmp/err" && ok no-one-class-note || badf no-one-class-note "$tmp/err"
# a set whose graphs all have one class: said on stderr
mkdir -p "$tmp/one"
for f in A graph_indicator node_labels; do cp "$d/toy_$f.txt" "$tmp/one/one_$f.txt"; done
awk '{ print 7 }' "$d/toy_graph_labels.txt" >"$tmp/one/one_graph_labels.txt"
check one-class 0 '1 graph class; 4 stratified folds' "^gat-train: every graph of .*one is of class '7': the model can only learn to predict it$" -- \
  "$train" --task graph --folds 4 --threads 1 --epochs 2 --dataset "$tmp/one"

# every epoch of every fold has its line (then the fold's), and --metrics a row with the fold
# in the run column: as many as the fold line's epochs, the last naming its best epoch
check epoch-lines 0 '^epoch +1  train loss [0-9.]+ acc +[0-9.]+%  val loss [0-9.]+ acc +[0-9.]+%  best 1  ' '' -- \
  "$train" --task graph --folds 4 --threads 1 "${common[@]}" --metrics "$tmp/folds.csv"
if awk -F'[ ,]+' '/^epoch /{e++} /^fold /{n += $7} END {exit !(e == n && n >= 4)}' "$tmp/out" &&
   awk 'NR == FNR { if (/^fold /) { sub(/:/, "", $2); sub(/,/, "", $7); want[$2] = $5 "," $7 }; next }
        FNR == 1 { ok = $0 ~ /^run,epoch,/; next }
        { split($0, c, ","); rows[c[1]]++; last[c[1]] = c[7] }
        END { for (f in want) { split(want[f], w, ","); if (rows[f] != w[2] || last[f] != w[1]) ok = 0 }
              exit !(ok && length(rows) == 4) }' "$tmp/out" "$tmp/folds.csv"; then
  ok metrics-folds
else
  badf metrics-folds "$tmp/out" "$tmp/folds.csv"
fi
check log-every 0 '^test accuracy' '' -- "$train" --task graph --folds 4 --threads 1 "${common[@]}" --log-every 4
[ "$(grep -c '^epoch ' "$tmp/out")" -eq "$(awk '/^fold /{n += int($7 / 4)} END {print n}' "$tmp/out")" ] &&
  ! grep -q '^epoch +[1235] ' "$tmp/out" && ok log-every-lines || badf log-every-lines "$tmp/out"
check quiet-no-epochs 0 '^test accuracy' '' -- "$train" --task graph --folds 4 --threads 1 "${common[@]}" --quiet
! grep -q '^epoch ' "$tmp/out" && ok quiet-no-epoch-lines || badf quiet-no-epoch-lines "$tmp/out"
# on a terminal one line per fold, updated in place, names the fold
if command -v script >/dev/null; then
  script -q -e -c "'$train' --task graph --folds 4 --threads 1 --dataset '$d' --epochs 3 --graph-batch 8" /dev/null </dev/null >"$tmp/tty" 2>&1
  grep -aq $'\rfold 2/4  epoch 3  loss ' "$tmp/tty" && ! grep -aq '^epoch ' "$tmp/tty" &&
    [ "$(tr -d '\r' <"$tmp/tty" | grep -c '^fold  [1-4]: best epoch')" -eq 4 ] && ok tty-fold-line || badf tty-fold-line "$tmp/tty"
else
  echo "skip tty-fold-line: no script(1) (util-linux)"
fi
check gat-bn-epoch-lines 0 '^epoch +2  train loss' '' -- "$train" --task graph --arch gat-bn --folds 4 --threads 1 "${common[@]}" --epochs 2

# the same seed: the same folds and numbers, on 1 and on 2 threads
check attention-heads 0 'readout attention' '' -- "$train" --task graph --readout attention --readout-heads 2 --folds 4 --threads 1 "${common[@]}" --save-folds "$tmp/f1.txt" --save "$tmp/g.gat"
strip "$tmp/out" >"$tmp/a"
check attention-threads 0 'readout attention' '' -- "$train" --task graph --readout attention --readout-heads 2 --folds 4 --threads 2 "${common[@]}" --save-folds "$tmp/f2.txt"
strip "$tmp/out" >"$tmp/b"
grep -v '^saved' "$tmp/a" >"$tmp/a2"
cmp -s "$tmp/a2" "$tmp/b" && ok same-on-2-threads || badf same-on-2-threads "$tmp/a2" "$tmp/b"
cmp -s "$tmp/f1.txt" "$tmp/f2.txt" && ok same-folds || badf same-folds "$tmp/f1.txt" "$tmp/f2.txt"
# a failed write is an error (exit 1) naming the file
[ -w /dev/full ] && check save-folds-full 1 '' '^gat-train: cannot write /dev/full: No space left on device$' -- "$train" --task graph --folds 4 --threads 1 "${common[@]}" --save-folds /dev/full --quiet
# --save-folds: one line per graph, every graph tested once, each fold 10 graphs, 5 per class
[ "$(grep -vc '^#' "$tmp/f1.txt")" -eq 40 ] && ok save-folds-lines || badf save-folds-lines "$tmp/f1.txt"
awk '!/^#/ { n[$2]++; c[$2 "," ($1 + 1) % 2]++ } END { for (f = 1; f <= 4; f++) if (n[f] != 10 || c[f ",0"] != 5) exit 1 }' "$tmp/f1.txt" \
  && ok folds-stratified || badf folds-stratified "$tmp/f1.txt"
# another seed, other folds
"$train" --task graph --folds 4 --threads 1 "${common[@]}" --seed 4 --save-folds "$tmp/f3.txt" >/dev/null 2>&1
! cmp -s "$tmp/f1.txt" "$tmp/f3.txt" && ok other-seed-other-folds || badf other-seed-other-folds "$tmp/f3.txt"

# the model file: task and readout recorded; gat-embed writes per-graph outputs
grep -q '"task":"graph"' "$tmp/g.gat" && grep -q '"readout":"attention"' "$tmp/g.gat" && grep -q 'readout.gate_weight' "$tmp/g.gat" \
  && ok model-task || badf model-task
check embed-graphs 0 '' '' -- "$embed" --model "$tmp/g.gat" --dataset "$d" --out "$tmp/emb.tsv" --attention-out "$tmp/att.tsv" --predict "$tmp/pred.tsv" --threads 1
# a .npy of the graphs' readouts gets its row ids (the 0-based graph index) beside it
check embed-graphs-npy 0 "; row ids in $tmp/emb.ids.txt$" '' -- "$embed" --model "$tmp/g.gat" --dataset "$d" --out "$tmp/emb.npy" --threads 1
[ "$(wc -l <"$tmp/emb.ids.txt")" -eq 40 ] && [ "$(tail -n 1 "$tmp/emb.ids.txt")" = 39 ] && ok embed-graphs-npy-ids || badf embed-graphs-npy-ids "$tmp/emb.ids.txt"
[ "$(wc -l <"$tmp/emb.tsv")" -eq 41 ] && [ "$(head -1 "$tmp/emb.tsv" | wc -w)" -eq 129 ] && ok embed-rows || badf embed-rows "$tmp/emb.tsv"
[ "$(wc -l <"$tmp/att.tsv")" -eq 241 ] && ok attention-rows || badf attention-rows "$tmp/att.tsv"
[ "$(wc -l <"$tmp/pred.tsv")" -eq 41 ] && awk 'NR > 1 && $2 == $4 { n++ } END { exit !(n >= 30) }' "$tmp/pred.tsv" \
  && ok prediction-rows || badf prediction-rows "$tmp/pred.tsv"
check embed-no-plot 2 '' 'does not apply to a graph model' -- "$embed" --model "$tmp/g.gat" --dataset "$d" --out "$tmp/x.tsv" --layer 0

# fixed folds beside the dataset: 2 folds of 0-based graph indices
{ echo "$(seq -s, 0 19)"; echo "$(seq -s, 20 39)"; } >"$d/toy_test.index"
{ echo "$(seq -s, 20 29)"; echo "$(seq -s, 0 9)"; } >"$d/toy_val.index"
{ echo "$(seq -s, 30 39)"; echo "$(seq -s, 10 19)"; } >"$d/toy_train.index"
check fixed-folds 0 '\(2 folds, fixed, readout sum\)' '' -- "$train" --task graph --threads 1 "${common[@]}"
grep -q "2 fixed folds from $d/toy" "$tmp/out" && ok fixed-folds-named || badf fixed-folds-named "$tmp/out"
echo "0,1" >>"$d/toy_test.index"
check fixed-folds-bad 1 '' 'toy_test.index: 3 folds \(lines\), but .*toy_train.index has 2' -- "$train" --task graph --threads 1 "${common[@]}"
rm "$d"/toy_*.index

# the MLP classifier and the plateau schedule: recorded in the model; the dwivedi preset runs
# (its 1000-epoch backstop and batches overridden), a lr that cannot move the loss ends early
check mlp-classifier 0 'readout mean' '' -- "$train" --task graph --readout mean --classifier-layers 2 --folds 4 --threads 1 "${common[@]}" --save "$tmp/mlp.gat"
grep -q '"classifier_layers":"2"' "$tmp/mlp.gat" && grep -q 'classifier.hidden1.weight' "$tmp/mlp.gat" \
  && ok mlp-in-model || badf mlp-in-model
check preset-dwivedi 0 '\(4 folds, stratified, readout mean\)' '' -- "$train" --preset dwivedi --dataset "$d" --folds 4 --epochs 3 --threads 1
check preset-dwivedi-readout 0 'readout attention' '' -- "$train" --preset dwivedi --readout attention --dataset "$d" --folds 4 --epochs 2 --threads 1
# a graph preset is the same run as its options spelled out
same_run() {
  local name=$1 a=() b=()
  shift
  while [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  "$train" --dataset "$d" --folds 4 --threads 1 "${a[@]}" 2>&1 | strip /dev/stdin >"$tmp/a"
  "$train" --dataset "$d" --folds 4 --threads 1 "$@" 2>&1 | strip /dev/stdin >"$tmp/b"
  grep -q '^test accuracy' "$tmp/a" && cmp -s "$tmp/a" "$tmp/b" && ok "$name" || badf "$name" "$tmp/a" "$tmp/b"
}
same_run dwivedi-spelled-out --preset dwivedi --epochs 2 -- --task graph --readout mean --layers 4 \
  --hidden 18 --heads 8 --out-heads 1 --embed-dim 144 --residual --classifier-layers 2 --dropout 0 \
  --lr 1e-3 --weight-decay 0 --graph-batch 20 --lr-factor 0.5 --lr-patience 25 --min-lr 1e-6 \
  --patience 1000 --keep-last --tu-features attributes --epochs 2
same_run xu-spelled-out --preset xu --epochs 3 -- --task graph --readout sum --layers 4 --hidden 8 \
  --heads 4 --out-heads 1 --embed-dim 32 --dropout 0 --lr 0.01 --weight-decay 0 --graph-batch 32 \
  --lr-factor 0.5 --lr-step 50 --patience 350 --keep-last --epochs 3
check lr-schedule-ends 0 'best epoch +[0-9]+ of +3,' '' -- "$train" --task graph --folds 4 --threads 1 --dataset "$d" --epochs 50 --graph-batch 8 --lr 1e-9 --lr-factor 0.5 --lr-patience 0 --min-lr 3e-10
check keep-last 0 'best epoch +8 of +8,' '' -- "$train" --task graph --folds 4 --threads 1 "${common[@]}" --keep-last
check lr-patience-needs-factor 2 '' '^gat-train: --lr-patience needs --lr-factor' -- "$train" --task graph --dataset "$d" --lr-patience 3
check classifier-needs-task 2 '' '^gat-train: --classifier-layers needs --task graph' -- "$train" --dataset "$d" --classifier-layers 2
check lr-factor-range 2 '' 'lr-factor' -- "$train" --task graph --dataset "$d" --lr-factor 1
# two folds would leave no training graphs (fold f tests, fold f+1 validates)
check folds-two 2 '' "^gat-train: --folds: expected an integer in \\[3, 1000\\], got '2'" -- "$train" --task graph --dataset "$d" --folds 2

# --tu-features: a copy of toy with two node attributes per node; the choice is recorded in the
# model, gat-embed repeats it, and the flag is refused where there is no TU set
cp -r "$d" "$tmp/at"
for f in "$tmp"/at/toy_*; do mv "$f" "${f/toy_/at_}"; done
awk '{ print NR % 7 ", " $1 + 0.5 }' "$tmp/at/at_node_labels.txt" >"$tmp/at/at_node_attributes.txt"
at=(--task graph --folds 4 --threads 1 --dataset "$tmp/at" --dropout 0 --epochs 2 --graph-batch 8)
check tu-features-all 0 'at: 40 graphs, 240 nodes, 5 features' '' -- "$train" "${at[@]}"
check tu-features-labels 0 'at: 40 graphs, 240 nodes, 3 features' '' -- "$train" "${at[@]}" --tu-features labels
check tu-features-attributes 0 'at: 40 graphs, 240 nodes, 2 features' '' -- "$train" "${at[@]}" --tu-features attributes --save "$tmp/at.gat"
grep -q '"tu_features":"attributes"' "$tmp/at.gat" && ok tu-features-in-model || badf tu-features-in-model
check tu-features-embed 0 '' '' -- "$embed" --model "$tmp/at.gat" --dataset "$tmp/at" --out "$tmp/at.tsv" --threads 1
[ "$(wc -l <"$tmp/at.tsv")" -eq 41 ] && ok tu-features-embed-rows || badf tu-features-embed-rows "$tmp/at.tsv"
check tu-features-embed-other 1 '' '2 input features.*5|5.*2' -- "$embed" --model "$tmp/at.gat" --dataset "$tmp/at" --out "$tmp/at.tsv" --threads 1 --tu-features all
check tu-features-not-tu 2 '' '^gat-train: --tu-features applies to a TU set of graphs; .*tiny.* is not one' -- "$train" --dataset "$data/tiny" --tu-features labels --epochs 1
check tu-features-unknown 2 '' "^gat-train: --tu-features: unknown TU feature choice 'edges'" -- "$train" "${at[@]}" --tu-features edges
check tu-features-graph 2 '' '^gat-train: --tu-features applies to a TU set given as --dataset DIR' -- "$train" --graph "$tmp/at/at_A.txt" --labels "$tmp/at/at_graph_labels.txt" --tu-features labels

# --standardize: each feature column z-scored by the moments of the fold's training graphs. The
# same set with its attributes scaled by 1000 and shifted trains to the same folds; the saved
# model records the moments and gat-embed repeats them (its graph embeddings of the scaled set are
# the unscaled model's)
cp -r "$tmp/at" "$tmp/bt"
for f in "$tmp"/bt/at_*; do mv "$f" "${f/at_/bt_}"; done
awk -F', ' '{ print 1000 * $1 + 50 ", " 1000 * $2 - 7 }' "$tmp/at/at_node_attributes.txt" >"$tmp/bt/bt_node_attributes.txt"
st=(--task graph --folds 4 --threads 1 --dropout 0 --epochs 6 --graph-batch 8 --lr 0.02 --standardize)
check standardize-a 0 'test accuracy' '' -- "$train" "${st[@]}" --dataset "$tmp/at" --save "$tmp/sa.gat"
grep '^fold' "$tmp/out" | strip /dev/stdin >"$tmp/sa"
check standardize-b 0 'test accuracy' '' -- "$train" "${st[@]}" --dataset "$tmp/bt" --save "$tmp/sb.gat"
grep '^fold' "$tmp/out" | strip /dev/stdin >"$tmp/sb"
[ -s "$tmp/sa" ] && cmp -s "$tmp/sa" "$tmp/sb" && ok standardize-scale-free || badf standardize-scale-free "$tmp/sa" "$tmp/sb"
"$train" "${st[@]/--standardize/}" --dataset "$tmp/bt" 2>&1 | grep '^fold' | strip /dev/stdin >"$tmp/sc"
! cmp -s "$tmp/sa" "$tmp/sc" && ok standardize-matters || badf standardize-matters "$tmp/sa" "$tmp/sc"
grep -q '"feature_shift":"\[' "$tmp/sb.gat" && grep -q '"feature_scale":"\[' "$tmp/sb.gat" \
  && ok standardize-in-model || badf standardize-in-model
check standardize-embed-a 0 '' '' -- "$embed" --model "$tmp/sa.gat" --dataset "$tmp/at" --out "$tmp/ea.tsv" --threads 1
check standardize-embed-b 0 '' '' -- "$embed" --model "$tmp/sb.gat" --dataset "$tmp/bt" --out "$tmp/eb.tsv" --threads 1
# the per-graph embeddings agree to rounding (unscaled inputs 1000 times larger would not)
paste "$tmp/ea.tsv" "$tmp/eb.tsv" | awk -F'\t' 'NR > 1 { n++; h = NF / 2
  for (c = 2; c <= h; c++) { d = $c - $(c + h); if (d < 0) d = -d; a = $c < 0 ? -$c : $c
    if (d > 1e-3 * (1 + a)) exit 1 } } END { exit !(n == 40) }' \
  && ok standardize-embed-same || badf standardize-embed-same "$tmp/ea.tsv" "$tmp/eb.tsv"
check standardize-normalize 2 '' '^gat-train: --standardize and --normalize conflict' -- "$train" "${st[@]}" --dataset "$tmp/at" --normalize

# tools/bench-accuracy.sh on TU sets: a row per set, the fixed folds where --tu-folds has them
bench=$(dirname "${BASH_SOURCE[0]}")/../../tools/bench-accuracy.sh
mkdir -p "$tmp/folds"
{ echo "$(seq -s, 0 19)"; echo "$(seq -s, 20 39)"; } >"$tmp/folds/at_test.index"
{ echo "$(seq -s, 20 29)"; echo "$(seq -s, 0 9)"; } >"$tmp/folds/at_val.index"
{ echo "$(seq -s, 30 39)"; echo "$(seq -s, 10 19)"; } >"$tmp/folds/at_train.index"
check bench-accuracy-tu 0 '^\| toy \| 10 stratified folds \(seed 1\) \| accuracy \| [0-9.]+ ± [0-9.]+ \| — \| — \|' '' -- \
  bash "$bench" --gat-train "$train" --threads 1 --tu-folds "$tmp/folds" "$d" "$tmp/at" -- --epochs 2 --graph-batch 8
grep -Eq '^\| at \| 2 fixed folds \| accuracy \| [0-9.]+ ± [0-9.]+ \|' "$tmp/out" && ok bench-accuracy-fixed-folds || badf bench-accuracy-fixed-folds "$tmp/out"
# with --checkpoint-dir: the folds keep DIR/toy-folds.ckpt.foldF; 2 epochs, then 4 from the
# checkpoints, give every epoch row (--metrics) and the table row of 4 straight epochs
row() { grep '^| toy ' "$tmp/out" | cut -d'|' -f2-7; }
bo=(--gat-train "$train" --threads 1 --tu-folds "$tmp/folds")
bash "$bench" "${bo[@]}" "$d" -- --epochs 4 --graph-batch 8 --metrics "$tmp/b4.csv" >"$tmp/out" 2>"$tmp/err"
four=$(row)
mkdir -p "$tmp/bck"
bash "$bench" "${bo[@]}" --checkpoint-dir "$tmp/bck" "$d" -- --epochs 2 --graph-batch 8 >"$tmp/out" 2>"$tmp/err"
[ -s "$tmp/bck/toy-folds.ckpt.fold10" ] && ok bench-accuracy-tu-ckpt-files || badf bench-accuracy-tu-ckpt-files "$tmp/out" "$tmp/err"
bash "$bench" "${bo[@]}" --checkpoint-dir "$tmp/bck" "$d" -- --epochs 4 --graph-batch 8 --metrics "$tmp/b4r.csv" >"$tmp/out" 2>"$tmp/err"
[ -n "$four" ] && [ "$(row)" = "$four" ] && [ "$(wc -l <"$tmp/b4.csv")" -eq 41 ] &&
  [ "$(cut -d, -f1-7 "$tmp/b4.csv")" = "$(cut -d, -f1-7 "$tmp/b4r.csv")" ] && ok bench-accuracy-tu-ckpt-resumed ||
  badf bench-accuracy-tu-ckpt-resumed "$tmp/out" "$tmp/err" "$tmp/b4.csv" "$tmp/b4r.csv"
# the files are read: another lr is refused
check bench-accuracy-tu-ckpt-refused 1 '' 'written with lr = .*, this training has lr = 0.05' -- \
  bash "$bench" "${bo[@]}" --checkpoint-dir "$tmp/bck" "$d" -- --epochs 4 --graph-batch 8 --lr 0.05

check readout-needs-task 2 '' '^gat-train: --readout needs --task graph' -- "$train" --dataset "$d" --readout sum
check folds-needs-task 2 '' '^gat-train: --folds needs --task graph' -- "$train" --dataset "$d" --folds 5
check unknown-readout 2 '' "--readout: unknown readout 'median'" -- "$train" --task graph --dataset "$d" --readout median
check unknown-task 2 '' "--task: unknown task 'edge'" -- "$train" --task edge --dataset "$d"
check heads-need-attention 2 '' '^gat-train: --readout-heads needs --readout attention' -- "$train" --task graph --dataset "$d" --readout-heads 2
check graph-excludes 2 '' 'excludes --partitions, --batch-size' -- "$train" --task graph --dataset "$d" --batch-size 4 --fanout 2,2
check graph-needs-graphs 1 '' 'is not a set of labelled graphs' -- "$train" --task graph --dataset "$data/tiny" --epochs 1
check graphs-need-task 1 '' "^gat-train: dataset .*toy has no node labels: it holds 40 graphs labelled with 2 classes; classify them with --task graph$" -- "$train" --dataset "$d" --epochs 1
# a graph indicator that skips graph 2: a graph with no nodes, named by file and line
cp -r "$d" "$tmp/gap"
for f in "$tmp"/gap/toy_*; do mv "$f" "${f/toy_/gap_}"; done
sed -i 's/^2$/3/' "$tmp/gap/gap_graph_indicator.txt"
check empty-graph 1 '' 'gap_graph_indicator.txt:[0-9]+:' -- "$train" --task graph --dataset "$tmp/gap" --epochs 1
# the node split's and node order's options do not reach the folds of graphs: refused, not ignored
check graph-no-node-split 2 '' '^gat-train: --train-per-class does not apply to --task graph \(it splits the graphs into folds' -- "$train" --task graph --dataset "$d" --epochs 1 --train-per-class 5
check graph-no-val-per-class 2 '' '^gat-train: --val-per-class does not apply to --task graph' -- "$train" --task graph --dataset "$d" --epochs 1 --val-per-class 5
check graph-no-test-rest 2 '' '^gat-train: --test-size does not apply to --task graph' -- "$train" --task graph --dataset "$d" --epochs 1 --test-size rest
check graph-no-resplit 2 '' '^gat-train: --resplit does not apply to --task graph' -- "$train" --task graph --dataset "$d" --epochs 1 --resplit
check graph-no-split-seed 2 '' '^gat-train: --split-seed does not apply to --task graph' -- "$train" --task graph --dataset "$d" --epochs 1 --split-seed 2
check graph-no-order 2 '' '^gat-train: --order does not apply to --task graph' -- "$train" --task graph --dataset "$d" --epochs 1 --order rcm
check graph-no-auc 2 '' "^gat-train: --metric auc: --task graph follows the validation graphs' accuracy \(acc\) or loss$" -- "$train" --task graph --dataset "$d" --epochs 1 --metric auc
# --eval-every reaches the folds (it was ignored): validation at epochs 3 and 6 only (and the
# last, 8), NaN in between; --metric loss is taken
check graph-eval-every 0 '^test accuracy' '' -- "$train" --task graph --folds 3 --threads 1 "${common[@]}" --eval-every 3 --metric loss
n_val=$(grep -Ec '^epoch +[0-9]+ .*val loss [0-9]' "$tmp/out")
n_nan=$(grep -Ec '^epoch +[0-9]+ .*val loss nan' "$tmp/out")
[ "$n_val" -eq 9 ] && [ "$n_nan" -eq 15 ] && ok graph-eval-every-rows || badf graph-eval-every-rows "$tmp/out"
# checkpoints of the folds (FILE.foldF): 3 folds of 5 epochs, resumed to 10 with the plateau
# schedule and dropout, give every row of 3 straight folds of 10 (GAT and gat-ffn); a resume of
# the ended folds gives the summary again; without the first fold's file it says what to give
ck=(--task graph --dataset "$d" --folds 3 --threads 1 --quiet --dropout 0.3 --lr 0.01 --graph-batch 8 --seed 3 --lr-factor 0.5 --lr-patience 1)
for arch in gat gat-ffn; do
  "$train" "${ck[@]}" --arch $arch --epochs 10 --metrics "$tmp/gc-$arch.csv" >"$tmp/gc-$arch.out" 2>&1
  "$train" "${ck[@]}" --arch $arch --epochs 5 --checkpoint "$tmp/gc-$arch.ckpt" >/dev/null 2>&1
  [ -s "$tmp/gc-$arch.ckpt.fold1" ] && [ -s "$tmp/gc-$arch.ckpt.fold3" ] && [ ! -e "$tmp/gc-$arch.ckpt" ] &&
    ok "ckpt-fold-files-$arch" || bad "ckpt-fold-files-$arch" "$(ls "$tmp")"
  check "ckpt-folds-resume-$arch" 0 '^test accuracy' '' -- "$train" "${ck[@]}" --arch $arch --epochs 10 --resume "$tmp/gc-$arch.ckpt" --checkpoint "$tmp/gc-$arch.ckpt" --metrics "$tmp/gcr-$arch.csv"
  [ "$(wc -l <"$tmp/gc-$arch.csv")" -eq 31 ] && [ "$(cut -d, -f1-7 "$tmp/gc-$arch.csv")" = "$(cut -d, -f1-7 "$tmp/gcr-$arch.csv")" ] &&
    ok "ckpt-folds-rows-$arch" || badf "ckpt-folds-rows-$arch" "$tmp/gc-$arch.csv" "$tmp/gcr-$arch.csv"
  "$train" "${ck[@]}" --arch $arch --epochs 10 --resume "$tmp/gc-$arch.ckpt" >"$tmp/gce-$arch.out" 2>&1
  cmp -s "$tmp/gc-$arch.out" "$tmp/gce-$arch.out" && ok "ckpt-folds-ended-$arch" || badf "ckpt-folds-ended-$arch" "$tmp/gc-$arch.out" "$tmp/gce-$arch.out"
done
check ckpt-folds-missing 1 '' "^gat-train: --resume: no $tmp/none.ckpt.fold1: with 3 folds fold F goes on from $tmp/none.ckpt.foldF$" -- "$train" "${ck[@]}" --epochs 3 --resume "$tmp/none.ckpt"
# the model records the graph as the loader built it: --directed keeps the TU edges as read, and
# gat-embed must rebuild them so (it was recorded symmetrised whatever was given)
check graph-save-directed 0 'saved the model of fold 1' '' -- "$train" --task graph --dataset "$d" --epochs 1 --folds 3 --threads 1 --directed --save "$tmp/gd.gat"
grep -aq '"symmetrize":"0"' "$tmp/gd.gat" && ok graph-directed-recorded || bad graph-directed-recorded "$(head -c 600 "$tmp/gd.gat" | tr -c '[:print:]' .)"
check graph-save-undirected 0 'saved the model of fold 1' '' -- "$train" --task graph --dataset "$d" --epochs 1 --folds 3 --threads 1 --save "$tmp/gu.gat"
grep -aq '"symmetrize":"1"' "$tmp/gu.gat" && ok graph-undirected-recorded || bad graph-undirected-recorded "$(head -c 600 "$tmp/gu.gat" | tr -c '[:print:]' .)"
# a TU set without node labels or attributes: every node has the constant 1, so every layer gives
# every node the same embedding: said once on stderr (not under --pe, nor on the labelled toy)
mkdir -p "$tmp/bare" && for f in A graph_indicator graph_labels; do cp "$d/toy_$f.txt" "$tmp/bare/bare_$f.txt"; done
check bare-note 0 '^dataset .*bare: 40 graphs, 240 nodes, 1 features' '^gat-train: every node of .*bare has the same features \(a TU set without node labels or attributes has the constant 1\): .*--pe rw:K' -- "$train" --task graph --dataset "$tmp/bare" --epochs 1 --folds 3 --threads 1
[ "$(grep -c 'same features' "$tmp/err")" -eq 1 ] && ok bare-note-once || badf bare-note-once "$tmp/err"
check bare-pe-no-note 0 '^test accuracy' '' -- "$train" --task graph --dataset "$tmp/bare" --epochs 1 --folds 3 --threads 1 --pe rw:4
! grep -q 'same features' "$tmp/err" && ok bare-pe-silent || badf bare-pe-silent "$tmp/err"
check labelled-no-note 0 '^test accuracy' '' -- "$train" --task graph --dataset "$d" --epochs 1 --folds 3 --threads 1
! grep -q 'same features' "$tmp/err" && ok labelled-silent || badf labelled-silent "$tmp/err"
check bare-quiet 0 '^test accuracy' '' -- "$train" --task graph --dataset "$tmp/bare" --epochs 1 --folds 3 --threads 1 --quiet
! grep -q 'same features' "$tmp/err" && ok bare-quiet-silent || badf bare-quiet-silent "$tmp/err"
summary
