#!/usr/bin/env bash
# CLI tests of gat-train: usage, exit codes (0 ok, 1 failure, 2 usage), one-line errors, progress
# and the parseable summary line. Usage: test_gat_train.sh GAT_TRAIN TESTDATA_DIR
set -u
bin=$1 data=$2
pass=0 fail=0
tmp=$(mktemp -d)
# only the main shell cleans up (a subshell killed by a signal may run an inherited EXIT trap)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT

# check NAME WANT_EXIT STDOUT_REGEX STDERR_REGEX -- ARGS...
check() {
  local name=$1 want=$2 out_re=$3 err_re=$4; shift 5
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local ok=1
  [ "$rc" -eq "$want" ] || { echo "  exit $rc, want $want"; ok=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$tmp/out"; then echo "  stdout lacks /$out_re/"; ok=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$tmp/err"; then echo "  stderr lacks /$err_re/"; ok=0; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "  stderr is not one line"; ok=0; fi
  if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/    | /' "$tmp/out" "$tmp/err" | head -20; fi
}

check help 0 '^usage: gat-train' '' -- --help
check version 0 '^gat-train \(libgat\) [0-9]+\.[0-9]+\.[0-9]+$' '' -- --version
check unknown-flag 2 '' "unknown option '--bogus'" -- --bogus
check bad-int 2 '' '--heads: expected an integer' -- --heads x
check zero-heads 2 '' '--heads: expected an integer in \[1' -- --heads 0
check bad-real 2 '' '--lr: expected a number' -- --lr 1e400
check missing-value 2 '' '--epochs needs a value' -- --epochs
check positional 2 '' "unexpected argument 'cora'" -- cora
check no-dataset 1 '' "no dataset '/nonexistent/x'" -- --dataset /nonexistent/x
check bad-dataset 1 '' 'cols_missing\.content:3: expected 7 fields' -- --dataset "$data/bad/cols_missing"
check bad-dropout 2 '' '--att-dropout: expected a number in \[0, 0.99\]' -- --att-dropout 0.995
check split-too-big 1 '' 'cannot load dataset: .*fewer than the 100 training nodes' -- --dataset "$data/tiny" --random-split --train-per-class 100

# a short training on the tiny dataset: progress lines, then the summary as the last line
check train 0 '^epoch +1  train loss [0-9.]+ acc +[0-9.]+%  val loss' '' -- --dataset "$data/tiny" --epochs 5 --threads 1
if tail -n 1 "$tmp/out" | grep -Eq '^test accuracy: [0-9]+\.[0-9]{2}%  \(best epoch [0-9]+, [0-9.]+ s\)$'; then
  pass=$((pass + 1)); echo "ok   summary-line"
else
  fail=$((fail + 1)); echo "FAIL summary-line: $(tail -n 1 "$tmp/out")"
fi
check quiet 0 '^test accuracy' '' -- --dataset "$data/tiny" --epochs 3 --quiet
[ "$(wc -l <"$tmp/out")" -eq 1 ] && { pass=$((pass + 1)); echo "ok   quiet-one-line"; } || { fail=$((fail + 1)); echo "FAIL quiet-one-line"; }
check runs 0 '^test accuracy: [0-9.]+% \+- [0-9.]+%  \(3 runs, seeds 4\.\.6' '' -- --dataset "$data/tiny" --epochs 3 --runs 3 --seed 4 --quiet
# same seed twice: identical output apart from timings
"$bin" --dataset "$data/tiny" --epochs 20 --threads 1 --seed 9 | sed 's/[0-9.]* s\b//g; s/[0-9.]* ms\/epoch//' >"$tmp/a"
"$bin" --dataset "$data/tiny" --epochs 20 --threads 1 --seed 9 | sed 's/[0-9.]* s\b//g; s/[0-9.]* ms\/epoch//' >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && { pass=$((pass + 1)); echo "ok   reproducible"; } || { fail=$((fail + 1)); echo "FAIL reproducible"; diff "$tmp/a" "$tmp/b" | head; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
