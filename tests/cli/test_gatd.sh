#!/usr/bin/env bash
# CLI tests of dataset files (.gatd): gat-convert (usage, exit codes, the summary line, errors
# naming the file), gat-train on a converted Cora giving the text dataset's losses and
# accuracies exactly, gat-synth --format binary against its text output, and damaged files.
# Usage: test_gatd.sh GAT_TRAIN GAT_CONVERT GAT_SYNTH TESTDATA_DIR DATASETS_DIR
set -u
train=$1 convert=$2 synth=$3 data=$4 datasets=$5
pass=0 fail=0
tmp=$(mktemp -d)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT

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
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "  stderr is not one line"; good=0; fi
  if [ $good -eq 1 ]; then ok "$name"; else bad "$name" "$tmp/out" "$tmp/err"; fi
}

# the epoch and result lines without timings
strip() { grep -E '^(epoch|run|test accuracy)' "$1" | sed -E 's/ +[0-9.]+ s\b//g; s/[0-9.]+ ms\/epoch//; s/\(best epoch ([0-9]+), [0-9.]+ s\)/(best epoch \1)/'; }

run help 0 '^usage: gat-convert' '' -- "$convert" --help
run no-args 2 '' 'expected IN and OUT.gatd' -- "$convert"
run three-args 2 '' "unexpected argument 'c'" -- "$convert" a b c
run unknown-flag 2 '' "unknown option '--bogus'" -- "$convert" --bogus a b
run graph-two-outputs 2 '' 'one output path after --graph' -- "$convert" --graph g.txt a b
run bad-input 1 '' 'cols_missing\.content:3: expected 7 fields' -- "$convert" "$data/bad/cols_missing" "$tmp/x.gatd"
[ ! -e "$tmp/x.gatd" ] && ok no-output-on-failure || bad no-output-on-failure
run bad-output 1 '' 'cannot write /nonexistent-dir/c\.gatd' -- "$convert" "$data/tiny" /nonexistent-dir/c.gatd

run convert-cora 0 '^gat-convert: .*cora -> .*cora\.gatd: 2708 nodes, 13264 edges \(self-loops included\), 49216 feature non-zeros, [0-9]+ bytes, [0-9.]+ s$' '' -- "$convert" "$datasets/cora" "$tmp/cora.gatd"
run convert-quiet 0 '' '' -- "$convert" --quiet "$data/tiny" "$tmp/tiny.gatd"
[ ! -s "$tmp/out" ] && ok quiet-silent || bad quiet-silent "$tmp/out"

# the same training from the text and the binary dataset: identical losses and accuracies
"$train" --dataset "$datasets/cora" --epochs 5 --seed 1 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/cora.gatd" --epochs 5 --seed 1 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
if [ "$(wc -l <"$tmp/a")" -ge 7 ] && cmp -s "$tmp/a" "$tmp/b"; then ok cora-same-training
else bad cora-same-training "$tmp/text.out" "$tmp/bin.out"; fi
grep -q '^dataset .*cora\.gatd: 2708 nodes, 13264 edges (with self-loops), 1433 features, 7 classes, split 140/500/1000' "$tmp/bin.out" &&
  ok cora-gatd-summary || bad cora-gatd-summary "$tmp/bin.out"
# a random split drawn from the stored graph equals the text one's
"$train" --dataset "$data/tiny" --random-split --train-per-class 1 --val-size 2 --test-size 2 --epochs 3 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/tiny.gatd" --random-split --train-per-class 1 --val-size 2 --test-size 2 --epochs 3 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok tiny-random-split || bad tiny-random-split "$tmp/text.out" "$tmp/bin.out"

# gat-synth: the binary file trains as the text files do
"$synth" --out "$tmp/syn" --nodes 800 --seed 3 --quiet --plain
run synth-binary 0 "^gat-synth: 800 nodes, .* \\($tmp/syn\\.gatd\\)$" '' -- "$synth" --out "$tmp/syn" --nodes 800 --seed 3 --format binary
run synth-format 2 '' "--format: expected text or binary, got 'csv'" -- "$synth" --out "$tmp/x" --format csv
"$train" --dataset "$tmp/syn" --epochs 3 --seed 1 --threads 1 >"$tmp/text.out" 2>&1
"$train" --dataset "$tmp/syn.gatd" --epochs 3 --seed 1 --threads 1 >"$tmp/bin.out" 2>&1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok synth-same-training || bad synth-same-training "$tmp/text.out" "$tmp/bin.out"

# gat-synth --edge-features: D extra .cites columns, column 0 tracking same-class edges (10 %
# flipped), the others noise; text and binary load with D columns (one note each) and train alike
"$synth" --out "$tmp/esyn" --nodes 600 --seed 5 --edge-features 3 --quiet --plain
awk -F'\t' 'NF != 5 { bad = 1 } END { exit bad }' "$tmp/esyn.cites" && ok synth-edge-columns ||
  bad synth-edge-columns "$tmp/esyn.cites"
# P(column 0 = 1 | same class) and P(column 0 = 1 | different classes)
read -r p_same p_diff < <(awk -F'\t' 'NR == FNR { label[$1] = $NF; next }
  { s = label[$1] == label[$2]; n[s]++; one[s] += $3 == 1 }
  END { printf "%.3f %.3f\n", one[1] / n[1], one[0] / n[0] }' "$tmp/esyn.content" "$tmp/esyn.cites")
awk -v a="$p_same" -v b="$p_diff" 'BEGIN { exit !(a > 0.8 && b < 0.2) }' &&
  ok synth-edge-signal || { echo "  P(1 | same) = $p_same, P(1 | different) = $p_diff"; bad synth-edge-signal; }
run synth-edge-binary 0 '' '' -- "$synth" --out "$tmp/esyn" --nodes 600 --seed 5 --edge-features 3 --format binary --quiet
run synth-edge-note 0 '^test accuracy' '^gat-train: .*esyn has 3 edge feature columns: read, not used \(--edge-features' -- "$train" --dataset "$tmp/esyn" --epochs 3 --seed 1 --threads 1
cp "$tmp/out" "$tmp/text.out"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok synth-edge-one-note || bad synth-edge-one-note "$tmp/err"
run synth-edge-note-binary 0 '^test accuracy' '^gat-train: .*esyn\.gatd has 3 edge feature columns' -- "$train" --dataset "$tmp/esyn.gatd" --epochs 3 --seed 1 --threads 1
cp "$tmp/out" "$tmp/bin.out"
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/bin.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok synth-edge-same-training || bad synth-edge-same-training "$tmp/text.out" "$tmp/bin.out"
run synth-edge-quiet 0 '' '' -- "$train" --dataset "$tmp/esyn.gatd" --epochs 1 --threads 1 --quiet
[ ! -s "$tmp/err" ] && ok synth-edge-quiet-silent || bad synth-edge-quiet-silent "$tmp/err"

# damaged files: a truncated one, and an empty one, named in the one-line error
head -c 3000 "$tmp/cora.gatd" >"$tmp/trunc.gatd"
run truncated 1 '' "cannot load dataset: $tmp/trunc\\.gatd: tensor \"graph\\.indptr\" bytes \\[0, 10836\\) lie past the end of the data" -- "$train" --dataset "$tmp/trunc.gatd" --epochs 1
: >"$tmp/empty.gatd"
run empty 1 '' "$tmp/empty\\.gatd: truncated: 0 bytes" -- "$train" --dataset "$tmp/empty.gatd" --epochs 1
run convert-truncated 1 '' "$tmp/trunc\\.gatd" -- "$convert" "$tmp/trunc.gatd" "$tmp/y.gatd"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
