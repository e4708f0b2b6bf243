#!/usr/bin/env bash
# CLI sanity run on an .npz dataset written by test_npz --write (48 nodes, 2 classes, 3 fixed
# splits): gat-train on it, on each split (--split-index) and on all (--all-splits), an
# out-of-range split index, and gat-convert to .gatd giving the same training run. Thresholds are far below what the data
# allows: this checks the path from file to training, not accuracy.
# The other layouts of real sets the same way, written by the test programs: a Geom-GCN
# directory (test_npz --write-geomgcn) and Planetoid pickles (test_pickle --write-planetoid):
# --dataset recognises each by its files, gat-convert writes each as .gatd, and training on the
# .gatd gives the run of the original; and WikiCS's data.json and an OGB directory written here.
# gat-partition --split-index K writes parts holding split K.
# Usage: test_npz_cli.sh TEST_NPZ GAT_TRAIN GAT_CONVERT TEST_PICKLE GAT_PARTITION
set -u
writer=$1 train=$2 convert=$3 pickle_writer=$4 partition=$5
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; shift; [ $# -gt 0 ] && sed 's/^/    | /' "$@" | head -20; }

# run NAME WANT_EXIT STDOUT_REGEX STDERR_REGEX -- PROGRAM ARGS...
run() {
  local name=$1 want=$2 out_re=$3 err_re=$4; shift 5
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? good=1
  [ "$rc" -eq "$want" ] || { echo "  exit $rc, want $want"; good=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$tmp/out"; then echo "  stdout lacks /$out_re/"; good=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$tmp/err"; then echo "  stderr lacks /$err_re/"; good=0; fi
  if [ $good -eq 1 ]; then ok "$name"; else bad "$name" "$tmp/out" "$tmp/err"; fi
}

# test accuracy of the last run's stdout, as an integer percent
acc() { sed -nE 's/^test accuracy: ([0-9]+)\..*/\1/p' "$tmp/out"; }

"$writer" --write "$tmp/tiny.npz" && ok write || bad write
# --metric acc: the two-class set would report its ROC-AUC by default; these cases read accuracy
args=(--epochs 60 --patience 60 --threads 1 --quiet --metric acc)
run train 0 '^test accuracy: ' '' -- "$train" --dataset "$tmp/tiny.npz" "${args[@]}"
[ "$(acc)" -ge 60 ] && ok accuracy || bad accuracy "$tmp/out"
for k in 0 1 2; do
  run "split-$k" 0 '^test accuracy: ' '' -- "$train" --dataset "$tmp/tiny.npz" --split-index $k "${args[@]}"
done
run split-out-of-range 1 '' 'split index 3 is out of range: .*tiny\.npz holds 3 splits \(0\.\.2\)' \
  -- "$train" --dataset "$tmp/tiny.npz" --split-index 3 "${args[@]}"
run split-negative 2 '' 'split-index' -- "$train" --dataset "$tmp/tiny.npz" --split-index -1
run all-splits 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(3 runs, seeds 1\.\.3, ' '' \
  -- "$train" --dataset "$tmp/tiny.npz" --all-splits "${args[@]}"
run all-splits-runs 2 '' '--all-splits sets the runs and splits' \
  -- "$train" --dataset "$tmp/tiny.npz" --all-splits --runs 2
# --resplit and the ROC-AUC: 2 validation nodes, of one class in run 5's split (seed 5; runs 1-4
# have both classes). Every run's split is drawn before the first run trains: the default is
# then accuracy for all five, and --metric auc a usage error naming the run
run resplit-auc-one-class 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(5 runs' '' \
  -- "$train" --dataset "$tmp/tiny.npz" --train-per-class 2 --val-size 2 --runs 5 --resplit --epochs 1 --threads 1 --quiet
run resplit-metric-auc-one-class 2 '' "^gat-train: --metric auc: the validation nodes of .*tiny\\.npz in run 5's split \\(seed 5\\) are all of one class, and ROC-AUC needs both" \
  -- "$train" --dataset "$tmp/tiny.npz" --train-per-class 2 --val-size 2 --runs 5 --resplit --epochs 1 --threads 1 --quiet --metric auc
run resplit-auc-four 0 '^test ROC-AUC: [0-9.]+% \+- [0-9.]+%  \(4 runs' '' \
  -- "$train" --dataset "$tmp/tiny.npz" --train-per-class 2 --val-size 2 --runs 4 --resplit --epochs 1 --threads 1 --quiet
# with --runs-per-split 2 that split (seed 5) is run 9's; 8 runs stop before it
run resplit-per-split-auc 2 '' "^gat-train: --metric auc: the validation nodes of .*tiny\\.npz in run 9's split \\(seed 5\\) are all of one class" \
  -- "$train" --dataset "$tmp/tiny.npz" --train-per-class 2 --val-size 2 --runs 10 --resplit --runs-per-split 2 --epochs 1 --threads 1 --quiet --metric auc
run resplit-per-split-auc-eight 0 '^test ROC-AUC: [0-9.]+% \+- [0-9.]+%  \(8 runs' '' \
  -- "$train" --dataset "$tmp/tiny.npz" --train-per-class 2 --val-size 2 --runs 8 --resplit --runs-per-split 2 --epochs 1 --threads 1 --quiet
# drawing every run's split first leaves run 1's in place: each run is the run of --seed r alone
# (the CSV metrics, timings aside), on the ROC-AUC
rs=(--train-per-class 4 --val-size 6 --epochs 4 --threads 1 --quiet)
"$train" --dataset "$tmp/tiny.npz" --runs 3 --resplit "${rs[@]}" --metrics "$tmp/all.csv" >"$tmp/out" 2>&1
same=1
grep -q '^test ROC-AUC' "$tmp/out" || same=0
for r in 1 2 3; do
  "$train" --dataset "$tmp/tiny.npz" --seed $r --random-split "${rs[@]}" --metrics "$tmp/one.csv" >/dev/null 2>&1
  [ "$(awk -F, -v r=$r 'NR > 1 && $1 == r { print $2, $3, $4, $5, $6, $7 }' "$tmp/all.csv")" = \
    "$(awk -F, 'NR > 1 { print $1, $2, $3, $4, $5, $6 }' "$tmp/one.csv")" ] && [ -s "$tmp/one.csv" ] || same=0
done
[ $same -eq 1 ] && ok resplit-auc-runs || bad resplit-auc-runs "$tmp/out" "$tmp/all.csv" "$tmp/one.csv"
run convert 0 '48 nodes, 144 edges' '' -- "$convert" "$tmp/tiny.npz" "$tmp/tiny.gatd"
"$train" --dataset "$tmp/tiny.npz" "${args[@]}" >"$tmp/a" 2>&1
"$train" --dataset "$tmp/tiny.gatd" "${args[@]}" >"$tmp/b" 2>&1
strip() { sed -E 's/\(best epoch ([0-9]+), [0-9.]+ s\)/(best epoch \1)/' "$1"; }
[ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && ok gatd-same-run || bad gatd-same-run "$tmp/a" "$tmp/b"
# --largest-component: of the two components of 24 nodes the one holding node 0, with its fixed
# splits; gat-convert writes it, and the .gatd trains on split 2 as the source cut at load does
run lcc-convert 0 '24 nodes, 72 edges' '^gat-convert: kept the largest connected component: 24 nodes of 48 \(24 removed\)$' \
  -- "$convert" --largest-component "$tmp/tiny.npz" "$tmp/lcc.gatd"
epochs() { grep '^epoch' "$1" | sed -E 's/ +[0-9.]+ s$//'; }
"$train" --dataset "$tmp/tiny.npz" --largest-component --split-index 2 --epochs 5 --threads 1 --metric acc >"$tmp/a" 2>&1
"$train" --dataset "$tmp/lcc.gatd" --split-index 2 --epochs 5 --threads 1 --metric acc >"$tmp/b" 2>&1
[ "$(epochs "$tmp/a" | wc -l)" -eq 5 ] && [ "$(epochs "$tmp/a")" = "$(epochs "$tmp/b")" ] &&
  grep -q '24 nodes, .* split 8/8/8' "$tmp/b" && ok lcc-gatd-same-run || bad lcc-gatd-same-run "$tmp/a" "$tmp/b"

# gat-convert stores every fixed split: the .gatd trains as the source does on each of them,
# and --all-splits runs over them all
run convert-split-note 0 "holds the 3 fixed splits of .*tiny\\.npz" '' -- "$convert" "$tmp/tiny.npz" "$tmp/t0.gatd"
for k in 1 2; do
  "$train" --dataset "$tmp/tiny.npz" --split-index $k "${args[@]}" >"$tmp/a" 2>&1
  "$train" --dataset "$tmp/tiny.gatd" --split-index $k "${args[@]}" >"$tmp/b" 2>&1
  [ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && ok gatd-split-$k-same-run || bad gatd-split-$k-same-run "$tmp/a" "$tmp/b"
done
"$train" --dataset "$tmp/tiny.npz" --all-splits "${args[@]}" >"$tmp/a" 2>&1
"$train" --dataset "$tmp/tiny.gatd" --all-splits "${args[@]}" >"$tmp/b" 2>&1
last() { tail -1 "$1" | sed -E 's/, [0-9.]+ s\)$/)/'; }
grep -q '(3 runs' "$tmp/b" && [ "$(last "$tmp/a")" = "$(last "$tmp/b")" ] &&
  ok gatd-all-splits || bad gatd-all-splits "$tmp/a" "$tmp/b"
# run r of --all-splits is the run of --split-index r-1 --seed r (the split chosen in memory,
# --standardize refitted to its training nodes): the same epochs, timings aside; for a graph
# transformer too (--arch gat-ffn, what --preset platonov trains)
ffn=(--arch gat-ffn --layers 1 --hidden 8 --heads 2)
for v in "" --standardize -ffn; do
  x=()
  [ "$v" = --standardize ] && x=(--standardize)
  [ "$v" = -ffn ] && x=("${ffn[@]}")
  "$train" --dataset "$tmp/tiny.gatd" --all-splits --epochs 4 --threads 1 --quiet "${x[@]}" --metrics "$tmp/all$v.csv" >/dev/null 2>&1
  same=1
  for k in 0 1 2; do
    "$train" --dataset "$tmp/tiny.npz" --split-index $k --seed $((k + 1)) --epochs 4 --threads 1 --quiet "${x[@]}" --metrics "$tmp/one.csv" >/dev/null 2>&1
    [ "$(awk -F, -v r=$((k + 1)) 'NR > 1 && $1 == r { print $2, $3, $4, $5, $6, $7 }' "$tmp/all$v.csv")" = \
      "$(awk -F, 'NR > 1 { print $1, $2, $3, $4, $5, $6 }' "$tmp/one.csv")" ] && [ -s "$tmp/one.csv" ] || same=0
  done
  [ $same -eq 1 ] && ok "all-splits-runs-are-splits$v" || bad "all-splits-runs-are-splits$v" "$tmp/all$v.csv" "$tmp/one.csv"
done
# checkpoints of --all-splits (run R's in FILE.runR, holding split R-1): 2 epochs each, then
# resumed to 4, give the epochs of the runs above
for v in "" -ffn; do
  x=()
  [ "$v" = -ffn ] && x=("${ffn[@]}")
  rm -f "$tmp"/as.ckpt*
  "$train" --dataset "$tmp/tiny.gatd" --all-splits --epochs 2 --threads 1 --quiet "${x[@]}" --checkpoint "$tmp/as.ckpt" >/dev/null 2>&1
  "$train" --dataset "$tmp/tiny.gatd" --all-splits --epochs 4 --threads 1 --quiet "${x[@]}" --resume "$tmp/as.ckpt" --metrics "$tmp/res.csv" >"$tmp/out" 2>&1
  [ -s "$tmp/as.ckpt.run3" ] && [ "$(cut -d, -f1-7 "$tmp/all$v.csv")" = "$(cut -d, -f1-7 "$tmp/res.csv")" ] &&
    ok "all-splits-checkpoints$v" || bad "all-splits-checkpoints$v" "$tmp/out" "$tmp/all$v.csv" "$tmp/res.csv"
done
# tools/bench-accuracy.sh on fixed splits, with --checkpoint-dir: 2 epochs a split, then the
# same directory with 3 goes on from the checkpoints to the row of 3 straight epochs; a setting
# that differs is refused by the checkpoints (so they were read)
bench=$(dirname "${BASH_SOURCE[0]}")/../../tools/bench-accuracy.sh
bo=(--embed-dim 16 --layers 1 --heads 2 --metric acc --threads 1 --lr 0.05)
row() { grep '^| tiny |' "$tmp/out" | cut -d'|' -f2-5; }
mkdir "$tmp/ck"
bash "$bench" --gat-train "$train" --splits 3 "$tmp/tiny.npz" -- --epochs 3 "${bo[@]}" >"$tmp/out" 2>"$tmp/err"
straight=$(row)
run bench-accuracy-ckpt 0 '^\| tiny \| 3 fixed splits \| accuracy \| [0-9.]+ ± [0-9.]+ \|' '' -- \
  bash "$bench" --gat-train "$train" --splits 3 --checkpoint-dir "$tmp/ck" "$tmp/tiny.npz" -- --epochs 2 "${bo[@]}"
[ -s "$tmp/ck/tiny.npz-split2.ckpt" ] && [ "$(row)" != "$straight" ] && ok bench-accuracy-ckpt-files ||
  bad bench-accuracy-ckpt-files "$tmp/out"
bash "$bench" --gat-train "$train" --splits 3 --checkpoint-dir "$tmp/ck" "$tmp/tiny.npz" -- --epochs 3 "${bo[@]}" >"$tmp/out" 2>"$tmp/err"
[ -n "$straight" ] && [ "$(row)" = "$straight" ] && ok bench-accuracy-ckpt-resumed ||
  bad bench-accuracy-ckpt-resumed "$tmp/out" "$tmp/err"
run bench-accuracy-ckpt-refused 1 '' 'written with lr = 0.05, this training has lr = 0.01' -- \
  bash "$bench" --gat-train "$train" --splits 3 --checkpoint-dir "$tmp/ck" "$tmp/tiny.npz" -- --epochs 3 "${bo[@]}" --lr 0.01
run gatd-split-out-of-range 1 '' 'split index 3 is out of range: .*tiny\.gatd holds 3 fixed splits' \
  -- "$train" --dataset "$tmp/tiny.gatd" --split-index 3 "${args[@]}"
# a .gatd converts again with its splits: the same bytes under the same name
run convert-gatd 0 'holds the 3 fixed splits' '' -- "$convert" "$tmp/tiny.gatd" "$tmp/t1.gatd" --name tiny.npz
cmp -s "$tmp/t0.gatd" "$tmp/t1.gatd" && ok convert-gatd-same || bad convert-gatd-same
# a random split replaces the fixed ones: one split stored
run convert-random-split 0 '48 nodes' '' -- "$convert" "$tmp/tiny.npz" "$tmp/t3.gatd" --split 60/20/20
grep -q 'holds the' "$tmp/out" && bad convert-random-split-one || ok convert-random-split-one
run convert-split-index 2 '' 'split-index' -- "$convert" "$tmp/tiny.npz" "$tmp/t4.gatd" --split-index 2
[ ! -e "$tmp/t4.gatd" ] && ok convert-split-index-no-file || bad convert-split-index-no-file

# a partition of split K: its parts' training nodes are split K's (gat-train's count), and the
# part files differ from split 0's
for k in 0 2; do
  run "partition-split-$k" 0 'into 2 parts' '' -- "$partition" --dataset "$tmp/tiny.npz" --parts 2 --split-index $k --out "$tmp/p$k"
  ptrain=$(awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ { n += $5 } END { print n + 0 }' "$tmp/out")
  "$train" --dataset "$tmp/tiny.npz" --split-index $k --epochs 1 --threads 1 >"$tmp/t" 2>&1
  ttrain=$(sed -nE 's/.*, split ([0-9]+)\/[0-9]+\/[0-9]+$/\1/p' "$tmp/t")
  [ -n "$ttrain" ] && [ "$ptrain" = "$ttrain" ] && ok "partition-split-$k-train" ||
    bad "partition-split-$k-train" "$tmp/out" "$tmp/t"
done
cmp -s "$tmp/p0/part-0.gatd" "$tmp/p2/part-0.gatd" && bad partition-split-differs || ok partition-split-differs
run partition-split-out-of-range 1 '' 'split index 3 is out of range' -- "$partition" --dataset "$tmp/tiny.npz" --parts 2 --split-index 3 --out "$tmp/p3"

# each layout: recognised by --dataset, converted, and the .gatd trains as the original does
mkdir -p "$tmp/w"
"$writer" --write-geomgcn "$tmp/w" >/dev/null && "$pickle_writer" --write-planetoid "$tmp/w" >/dev/null &&
  ok write-layouts || bad write-layouts
small=(--epochs 20 --patience 20 --threads 1 --quiet --metric acc --train-per-class 1 --val-size 1 --test-size 1)
for case in "geomgcn $tmp/w/film0 6 nodes --split-index 1" "planetoid-dir $tmp/w 13 nodes" \
            "planetoid-prefix $tmp/w/ind.tiny 13 nodes"; do
  set -- $case
  name=$1 src=$2 nodes=$3; shift 4
  extra=("$@")
  [ $name = planetoid-dir ] && { mkdir -p "$tmp/tiny" && cp "$tmp"/w/ind.tiny.* "$tmp/tiny/"; src=$tmp/tiny; }
  opts=("${small[@]}"); [ ${#extra[@]} -gt 0 ] && opts=(--epochs 20 --patience 20 --threads 1 --quiet --metric acc "${extra[@]}")
  run "$name-train" 0 '^test accuracy: ' '' -- "$train" --dataset "$src" "${opts[@]}"
  run "$name-convert" 0 "$nodes nodes" '' -- "$convert" "$src" "$tmp/$name.gatd"
  if [ ${#extra[@]} -eq 0 ]; then
    "$train" --dataset "$src" "${opts[@]}" >"$tmp/a" 2>&1
    "$train" --dataset "$tmp/$name.gatd" "${opts[@]}" >"$tmp/b" 2>&1
    [ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && ok "$name-gatd-same-run" || bad "$name-gatd-same-run" "$tmp/a" "$tmp/b"
  fi
done
run geomgcn-all-splits 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(2 runs, seeds 1\.\.2, ' '' \
  -- "$train" --dataset "$tmp/w/film0" --all-splits --epochs 5 --threads 1 --metric acc

# WikiCS's data.json, in a directory (written here): 24 nodes of 2 classes, node i linked to i + 2,
# features that say the class; split s trains on the nodes i % 8 = s, stops early on i % 8 = s + 2
# (its stopping mask), tests on i % 8 >= 6
# (wikics_json 1: split 0 stops early on i % 8 = 3 as well)
wikics_json() {
  awk -v also3="$1" 'function mask(k, s,   i, out) { out = "["; for (i = 0; i < 24; i++) out = out (i ? ", " : "") (k == 0 ? i % 8 == s : k == 1 ? i % 8 == s + 2 || (also3 && s == 0 && i % 8 == 3) : i % 8 >= 6 ? "true" : "false"); return out "]" }
BEGIN {
  printf "{\"features\": ["; for (i = 0; i < 24; i++) printf "%s[%d, %d, 0.25]", i ? ", " : "", i % 2, 1 - i % 2
  printf "], \"labels\": ["; for (i = 0; i < 24; i++) printf "%s%d", i ? ", " : "", i % 2
  printf "], \"links\": ["; for (i = 0; i < 24; i++) printf "%s[%d]", i ? ", " : "", (i + 2) % 24
  printf "], \"train_masks\": [%s, %s], \"stopping_masks\": [%s, %s], \"test_mask\": %s}\n", mask(0, 0), mask(0, 1), mask(1, 0), mask(1, 1), mask(2, 0)
}'
}
mkdir -p "$tmp/wikics" "$tmp/wikics2"
wikics_json 0 >"$tmp/wikics/data.json"
run wikics-train 0 '^test accuracy: ' '' -- "$train" --dataset "$tmp/wikics" --split-index 1 --epochs 20 --patience 20 --threads 1 --quiet --metric acc
run wikics-split 0 'split 3/3/6$' '' -- "$train" --dataset "$tmp/wikics/data.json" --epochs 1 --threads 1
run wikics-all-splits 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(2 runs, seeds 1\.\.2, ' '' \
  -- "$train" --dataset "$tmp/wikics" --all-splits --epochs 5 --threads 1 --metric acc
run wikics-convert 0 '24 nodes, 72 edges' '' -- "$convert" "$tmp/wikics" "$tmp/wikics.gatd"
# the same nodes, but split 0 stops early on i % 8 = 2 or 3 (both classes) and split 1 on i % 8 = 3
# (class 1 only): --all-splits follows the ROC-AUC only when every split's validation nodes have
# it, so by default the accuracy, and --metric auc is refused before any split is trained
wikics_json 1 >"$tmp/wikics2/data.json"
run wikics-split0-auc 0 '^test ROC-AUC: ' '' -- "$train" --dataset "$tmp/wikics2" --epochs 5 --threads 1 --quiet
run wikics-all-splits-acc 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(2 runs, ' '' \
  -- "$train" --dataset "$tmp/wikics2" --all-splits --epochs 5 --threads 1 --quiet
run wikics-all-splits-auc 2 '' '^gat-train: --metric auc: the validation nodes of .*wikics2 in fixed split 1 are all of one class, and ROC-AUC needs both \(use acc or loss\)$' \
  -- "$train" --dataset "$tmp/wikics2" --all-splits --epochs 5 --threads 1 --quiet --metric auc
[ -s "$tmp/out" ] && bad wikics-all-splits-auc-no-run "$tmp/out" || ok wikics-all-splits-auc-no-run
run wikics-split1-auc 2 '' '^gat-train: --metric auc: the validation nodes of .*wikics2 are all of one class' \
  -- "$train" --dataset "$tmp/wikics2" --split-index 1 --epochs 5 --threads 1 --quiet --metric auc
opts=(--epochs 20 --patience 20 --threads 1 --quiet --metric acc)
"$train" --dataset "$tmp/wikics" "${opts[@]}" >"$tmp/a" 2>&1
"$train" --dataset "$tmp/wikics.gatd" "${opts[@]}" >"$tmp/b" 2>&1
[ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && ok wikics-gatd-same-run || bad wikics-gatd-same-run "$tmp/a" "$tmp/b"

# An OGB node directory (written here; gzipped as ogb ships it): 24 nodes of 2 classes, node i
# linked to i + 1 and i + 2, node 5 unlabelled (nan) and in no split, the split by i % 4; its
# multi-label form (3 labels a node, edge features) with --task multilabel; gat-convert gives
# the same run
ogb_dir() { # DIR MULTI
  mkdir -p "$1/raw" "$1/split/time"
  for i in $(seq 0 23); do echo "$i,$(((i + 1) % 24))"; echo "$i,$(((i + 2) % 24))"; done | gzip >"$1/raw/edge.csv.gz"
  for i in $(seq 0 23); do echo "$((i % 2)),$((i % 3)).5"; done | gzip >"$1/raw/node-feat.csv.gz"
  if [ "$2" = 1 ]; then
    for i in $(seq 0 23); do echo "$((i % 2)),$(((i / 2) % 2)),1"; done | gzip >"$1/raw/node-label.csv.gz"
    for i in $(seq 0 47); do echo "0.$((i % 7))"; done | gzip >"$1/raw/edge-feat.csv.gz"
  else
    for i in $(seq 0 23); do [ "$i" = 5 ] && echo nan || echo $((i % 2)); done | gzip >"$1/raw/node-label.csv.gz"
  fi
  echo 24 | gzip >"$1/raw/num-node-list.csv.gz"
  for i in $(seq 0 23); do [ "$i" != 5 ] && [ $((i % 4)) -lt 2 ] && echo "$i"; done | gzip >"$1/split/time/train.csv.gz"
  for i in $(seq 0 23); do [ "$i" != 5 ] && [ $((i % 4)) = 2 ] && echo "$i"; done | gzip >"$1/split/time/valid.csv.gz"
  for i in $(seq 0 23); do [ "$i" != 5 ] && [ $((i % 4)) = 3 ] && echo "$i"; done | gzip >"$1/split/time/test.csv.gz"
}
ogb_dir "$tmp/arxiv" 0
ogb_dir "$tmp/proteins" 1
run ogb-train 0 'dataset .*arxiv: 24 nodes, 120 edges \(with self-loops\), 2 features, 2 classes, split 11/6/6$' '' -- "$train" --dataset "$tmp/arxiv" --epochs 3 --threads 1 --metric acc
run ogb-multilabel 0 'dataset .*proteins: 24 nodes, 120 edges \(with self-loops\), 2 features, 3 labels per node, split 11/6/6$' '' -- "$train" --dataset "$tmp/proteins" --task multilabel --edge-features --epochs 3 --threads 1
run ogb-convert 0 '24 nodes, 120 edges' '' -- "$convert" "$tmp/arxiv" "$tmp/arxiv.gatd"
"$train" --dataset "$tmp/arxiv" "${opts[@]}" >"$tmp/a" 2>&1
"$train" --dataset "$tmp/arxiv.gatd" "${opts[@]}" >"$tmp/b" 2>&1
[ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && grep -q '^test accuracy' "$tmp/a" && ok ogb-gatd-same-run || bad ogb-gatd-same-run "$tmp/a" "$tmp/b"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
