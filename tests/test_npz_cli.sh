#!/usr/bin/env bash
# CLI sanity run on an .npz dataset written by test_npz --write (48 nodes, 2 classes, 3 fixed
# splits): gat-train on it, on each split (--split-index) and on all (--all-splits), an
# out-of-range split index, and gat-convert to .gatd giving the same training run. Thresholds are far below what the data
# allows: this checks the path from file to training, not accuracy.
# Usage: test_npz_cli.sh TEST_NPZ GAT_TRAIN GAT_CONVERT
set -u
writer=$1 train=$2 convert=$3
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
run convert 0 '48 nodes, 144 edges' '' -- "$convert" "$tmp/tiny.npz" "$tmp/tiny.gatd"
"$train" --dataset "$tmp/tiny.npz" "${args[@]}" >"$tmp/a" 2>&1
"$train" --dataset "$tmp/tiny.gatd" "${args[@]}" >"$tmp/b" 2>&1
strip() { sed -E 's/\(best epoch ([0-9]+), [0-9.]+ s\)/(best epoch \1)/' "$1"; }
[ "$(strip "$tmp/a")" = "$(strip "$tmp/b")" ] && ok gatd-same-run || bad gatd-same-run "$tmp/a" "$tmp/b"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
