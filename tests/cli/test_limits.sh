#!/usr/bin/env bash
# Resource limits and numerical faults in gat-train: under an address-space limit (ulimit -v) too
# small for the data or the model it fails with exit 1 and an "out of memory" message, never a
# crash; a training that diverges exits 1 naming the divergence and writes no model file.
# Usage: test_limits.sh GAT_TRAIN SANITIZE (meson's b_sanitize: the ulimit checks need an
# unsanitized build, as ASan reserves terabytes of address space).
set -u
train=$1 sanitize=${2:-none}
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# check_limited NAME WANT_EXIT STDERR_REGEX ULIMIT_KB -- ARGS...
check_limited() {
  local name=$1 want=$2 err_re=$3 limit=$4; shift 5
  (
    [ "$limit" = - ] || ulimit -v "$limit"
    exec timeout -s KILL 300 "$train" "$@"
  ) >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -Eq -- "$err_re" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -le 1 ]; then
    ok "$name"
  else
    bad "$name: exit $rc, want $want and /$err_re/"
    sed 's/^/    | /' "$tmp/out" "$tmp/err" | tail -5
  fi
}

if [ "$sanitize" = none ]; then
  # 100 MB: the program and its libraries load, Cora's features do not
  check_limited ulimit-dataset 1 '^gat-train: cannot load dataset: out of memory' 100000 -- --dataset cora --threads 1
  # 1 GB: the data loads, 8 x 4096 x 64 hidden units of weights (1.5 GB) do not
  check_limited ulimit-model 1 '^gat-train: cannot create the model: out of memory' 1000000 -- \
    --dataset cora --hidden 4096 --heads 64 --threads 1
else
  echo "skip ulimit checks: built with -Db_sanitize=$sanitize"
fi

# features of 3e38 overflow the first forward: the training diverges; no model is written, and an
# existing one is left as it was
printf 'a 3e38 3e38 x\nb 3e38 -3e38 y\nc 1 3e38 x\nd 3e38 1 y\ne 1 1 x\nf 3e38 3e38 y\n' >"$tmp/d.content"
printf 'a b\nb c\nc d\nd e\ne f\nf a\n' >"$tmp/d.cites"
echo old >"$tmp/old.gat"
check_limited diverges 1 '^gat-train: training failed: training diverged at epoch [0-9]+' - -- \
  --dataset "$tmp/d" --no-normalize --random-split --train-per-class 2 --val-size 1 \
  --test-size 1 --lr 10 --epochs 50 --threads 1 --save "$tmp/new.gat"
if [ ! -e "$tmp/new.gat" ] && ! ls "$tmp" | grep -q 'tmp-'; then
  ok "diverges-writes-nothing"
else
  bad "diverges-writes-nothing"; ls -la "$tmp"
fi
check_limited diverges-keeps-old 1 'training diverged' - -- \
  --dataset "$tmp/d" --no-normalize --random-split --train-per-class 2 --val-size 1 \
  --test-size 1 --lr 10 --epochs 50 --threads 1 --save "$tmp/old.gat"
if [ "$(cat "$tmp/old.gat")" = old ]; then
  ok "diverges-old-intact"
else
  bad "diverges-old-intact"
fi

summary
