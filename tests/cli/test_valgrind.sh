#!/usr/bin/env bash
# A short train + save + embed run under valgrind memcheck with the options a user would give
# (--leak-check=full, leak errors of the default kinds: definite and possible) and the shipped
# suppression file tools/libgat.supp: no invalid reads or writes, no use of uninitialised values,
# no leaks; the thread pools of libgomp and OpenBLAS ("possibly lost" TLS blocks) are what the
# file suppresses, so the runs use 2 threads to create them. Exits 77 (skipped) without valgrind
# or in a sanitized build (valgrind cannot run ASan binaries).
# Usage: test_valgrind.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR SANITIZE SUPPRESSIONS
set -u
train=$1 embed=$2 data=$3 sanitize=${4:-none} supp=$5
command -v valgrind >/dev/null || { echo "skip: valgrind not installed"; exit 77; }
[ "$sanitize" = none ] || { echo "skip: built with -Db_sanitize=$sanitize"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1
# vg NAME WANT_EXIT ARGS...: memcheck errors exit 99; error paths (WANT_EXIT 1) are checked too
vg() {
  local name=$1 want=$2; shift 2
  valgrind -q --error-exitcode=99 --leak-check=full --suppressions="$supp" "$@" \
    >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then
    ok "$name"
  else
    bad "$name: exit $rc, want $want"
    sed 's/^/    | /' "$tmp/out" "$tmp/err" | tail -40
  fi
}
vg train 0 "$train" --dataset "$data/tiny" --epochs 3 --threads 2 --save "$tmp/m.gat"
vg embed 0 "$embed" --model "$tmp/m.gat" --dataset "$data/tiny" --threads 2 --out "$tmp/e.npy" \
   --attention "$tmp/a.tsv" --predict "$tmp/p.tsv"
vg embed-mismatch 1 "$embed" --model "$tmp/m.gat" --graph "$data/graphs/sbm.edges" --threads 1 \
   --out "$tmp/e.tsv"
vg train-graph 0 "$train" --graph "$data/graphs/sbm.edges" --features "$data/graphs/sbm.features" \
   --labels "$data/graphs/sbm.labels" --train-per-class 5 --val-size 15 --test-size 20 \
   --epochs 3 --threads 1
vg bad-model 1 "$embed" --model "$data/tiny/tiny.cites" --out "$tmp/x.npy"
vg bad-dataset 1 "$train" --dataset "$data/bad/cols_missing" --threads 1
summary
