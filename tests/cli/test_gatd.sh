#!/usr/bin/env bash
# CLI tests of dataset files (.gatd): gat-convert (usage, exit codes, the summary line, errors
# naming the file), gat-train on a converted Cora giving the text dataset's losses and
# accuracies exactly, gat-synth --out-format binary against its text output, and damaged files.
# Usage: test_gatd.sh GAT_TRAIN GAT_CONVERT GAT_SYNTH TESTDATA_DIR DATASETS_DIR
set -u
train=$1 convert=$2 synth=$3 data=$4 datasets=$5
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bad() { badf "$1"; shift; [ $# -gt 0 ] && sed 's/^/    | /' "$@" | head -20; }

# the epoch and result lines without timings
strip() { grep -E '^(epoch|run|test accuracy)' "$1" | sed -E 's/ +[0-9.]+ s\b//g; s/[0-9.]+ ms\/epoch//; s/\(best epoch ([0-9]+), [0-9.]+ s\)/(best epoch \1)/'; }

check help 0 '^usage: gat-convert' '' -- "$convert" --help
check no-args 2 '' 'expected IN and OUT.gatd' -- "$convert"
check three-args 2 '' "unexpected argument 'c'" -- "$convert" a b c
check unknown-flag 2 '' "unknown option '--bogus'" -- "$convert" --bogus a b
check graph-two-outputs 2 '' 'one output path after --graph' -- "$convert" --graph g.txt a b
check bad-input 1 '' 'cols_missing\.content:3: expected 7 fields' -- "$convert" "$data/bad/cols_missing" "$tmp/x.gatd"
[ ! -e "$tmp/x.gatd" ] && ok no-output-on-failure || badf no-output-on-failure
check bad-output 1 '' 'cannot write /nonexistent-dir/c\.gatd' -- "$convert" "$data/tiny" /nonexistent-dir/c.gatd

check convert-cora 0 '^gat-convert: .*cora -> .*cora\.gatd: 2708 nodes, 13264 edges \(self-loops included\), 49216 feature non-zeros, [0-9]+ bytes, [0-9.]+ s$' '' -- "$convert" "$datasets/cora" "$tmp/cora.gatd"
check convert-quiet 0 '' '' -- "$convert" --quiet "$data/tiny" "$tmp/tiny.gatd"
[ ! -s "$tmp/out" ] && ok quiet-silent || badf quiet-silent "$tmp/out"

# the same training from the text and the binary dataset: identical losses and accuracies
"$train" --dataset "$datasets/cora" --epochs 5 --seed 1 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/cora.gatd" --epochs 5 --seed 1 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
if [ "$(wc -l <"$tmp/a")" -ge 7 ] && cmp -s "$tmp/a" "$tmp/b"; then ok cora-same-training
else badf cora-same-training "$tmp/text.out" "$tmp/bin.out"; fi
grep -q '^dataset .*cora\.gatd: 2708 nodes, 13264 edges (with self-loops), 1433 features, 7 classes, split 140/500/1000' "$tmp/bin.out" &&
  ok cora-gatd-summary || badf cora-gatd-summary "$tmp/bin.out"
# a random split drawn from the stored graph equals the text one's
"$train" --dataset "$data/tiny" --random-split --train-per-class 1 --val-size 2 --test-size 2 --epochs 3 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/tiny.gatd" --random-split --train-per-class 1 --val-size 2 --test-size 2 --epochs 3 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok tiny-random-split || badf tiny-random-split "$tmp/text.out" "$tmp/bin.out"

# gat-synth: the binary file trains as the text files do
"$synth" --out "$tmp/syn" --nodes 800 --seed 3 --quiet --plain
check synth-binary 0 "^gat-synth: 800 nodes, .* \\($tmp/syn\\.gatd\\)$" '' -- "$synth" --out "$tmp/syn" --nodes 800 --seed 3 --out-format binary
check synth-format 2 '' "--out-format: expected text or binary, got 'csv'" -- "$synth" --out "$tmp/x" --out-format csv
"$train" --dataset "$tmp/syn" --epochs 3 --seed 1 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/syn.gatd" --epochs 3 --seed 1 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok synth-same-training || badf synth-same-training "$tmp/text.out" "$tmp/bin.out"

# gat-synth --edge-dim: D extra .cites columns, column 0 tracking same-class edges (10 %
# flipped), the others noise; text and binary load with D columns (one note each) and train alike
"$synth" --out "$tmp/esyn" --nodes 600 --seed 5 --edge-dim 3 --quiet --plain
awk -F'\t' 'NF != 5 { bad = 1 } END { exit bad }' "$tmp/esyn.cites" && ok synth-edge-columns ||
  badf synth-edge-columns "$tmp/esyn.cites"
# P(column 0 = 1 | same class) and P(column 0 = 1 | different classes)
read -r p_same p_diff < <(awk -F'\t' 'NR == FNR { label[$1] = $NF; next }
  { s = label[$1] == label[$2]; n[s]++; one[s] += $3 == 1 }
  END { printf "%.3f %.3f\n", one[1] / n[1], one[0] / n[0] }' "$tmp/esyn.content" "$tmp/esyn.cites")
awk -v a="$p_same" -v b="$p_diff" 'BEGIN { exit !(a > 0.8 && b < 0.2) }' &&
  ok synth-edge-signal || { echo "  P(1 | same) = $p_same, P(1 | different) = $p_diff"; badf synth-edge-signal; }
check synth-edge-binary 0 '' '' -- "$synth" --out "$tmp/esyn" --nodes 600 --seed 5 --edge-dim 3 --out-format binary --quiet
check synth-edge-note 0 '^test accuracy' '^gat-train: .*esyn has 3 edge feature columns: read, not used \(--edge-features' -- "$train" --dataset "$tmp/esyn" --epochs 3 --seed 1 --threads 1
cp "$tmp/out" "$tmp/text.out"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok synth-edge-one-note || badf synth-edge-one-note "$tmp/err"
check synth-edge-note-binary 0 '^test accuracy' '^gat-train: .*esyn\.gatd has 3 edge feature columns' -- "$train" --dataset "$tmp/esyn.gatd" --epochs 3 --seed 1 --threads 1
cp "$tmp/out" "$tmp/bin.out"
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok synth-edge-same-training || badf synth-edge-same-training "$tmp/text.out" "$tmp/bin.out"
check synth-edge-quiet 0 '' '' -- "$train" --dataset "$tmp/esyn.gatd" --epochs 1 --threads 1 --quiet
[ ! -s "$tmp/err" ] && ok synth-edge-quiet-silent || badf synth-edge-quiet-silent "$tmp/err"

# damaged files: a truncated one, and an empty one, named in the one-line error
head -c 3000 "$tmp/cora.gatd" >"$tmp/trunc.gatd"
check truncated 1 '' "cannot load dataset: $tmp/trunc\\.gatd: tensor \"graph\\.indptr\" bytes \\[0, 10836\\) lie past the end of the data" -- "$train" --dataset "$tmp/trunc.gatd" --epochs 1
: >"$tmp/empty.gatd"
check empty 1 '' "$tmp/empty\\.gatd: truncated: 0 bytes" -- "$train" --dataset "$tmp/empty.gatd" --epochs 1
check convert-truncated 1 '' "$tmp/trunc\\.gatd" -- "$convert" "$tmp/trunc.gatd" "$tmp/y.gatd"

summary
