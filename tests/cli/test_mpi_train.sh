#!/usr/bin/env bash
# Distributed training (gat/dist.h, gat-train --partitions) against one process, under mpirun
# with 1, 2 and 4 ranks on Cora partitions, every mpirun under a timeout:
#  - dropout off, 50 epochs: the training and validation losses of every epoch equal one
#    process's within 1e-5 relative, and the saved models predict the same classes;
#  - dropout on (masks keyed by the whole graph's numbering): the same within 1e-5 over 30 epochs;
#  - every other score (gatv2, dot, scaled-dot, bilinear, cosine, gaussian) with residual
#    connections over three layers, dropout off: the same within 1e-5 over 10 epochs; the gat
#    score with its score biases on 2 ranks likewise;
#  - edge features (gat and gatv2, a gat-synth dataset with 3 edge feature columns; one rank
#    renumbered by RCM, so the edges' features follow it): the same within 1e-5 over 10 epochs,
#    and gat-embed --partitions predicts one process's classes;
#  - two runs with the same rank count give the same losses to the last digit;
#  - --runs 3 (seeds 1..3, dropout on) on 2 ranks: one process's mean test accuracy within 0.5
#    points;
#  - faults end every rank with a message naming the rank and the cause: a rank count that is
#    not the part count, a missing part file, a part of another partition, a partition of another
#    dataset (--dataset), a rank killed mid-run; SIGUSR1 to mpirun or SIGTERM to the ranks stops
#    all ranks after the same epoch and rank 0 saves the best model.
# Skipped (77) when the build has no MPI or mpirun is missing.
# Usage: test_mpi_train.sh GAT_TRAIN GAT_PARTITION GAT_EMBED DATASETS_DIR HAVE_MPI GAT_SYNTH
set -u
train=$1 partition=$2 embed=$3 datasets=$4 have_mpi=$5 synth=$6
if [ "$have_mpi" != 1 ]; then echo "SKIP: built without MPI (meson -Dmpi)"; exit 77; fi
if ! command -v mpirun >/dev/null; then echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
run() { # K ARGS...: mpirun -np K gat-train ARGS under a timeout; output in $tmp/out
  local k=$1; shift
  timeout -k 5 120 mpirun --oversubscribe --allow-run-as-root -np "$k" "$train" "$@" \
    >"$tmp/out" 2>&1
  local rc=$?
  echo $rc >"$tmp/rc"
  return $rc
}
same_losses() { # A.csv B.csv TOL: every epoch's train and val loss within TOL relative
  /usr/bin/python3 - "$@" <<'PY'
import csv, sys
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
tol = float(sys.argv[3])
if len(a) != len(b) or not a:
    sys.exit(f"{len(a)} and {len(b)} epochs")
worst = 0.0
for x, y in zip(a, b):
    for k in ("train_loss", "val_loss"):
        u, v = float(x[k]), float(y[k])
        worst = max(worst, abs(u - v) / max(abs(v), 1e-30))
if worst > tol:
    sys.exit(f"largest relative difference {worst:.3g} > {tol}")
print(f"largest relative difference {worst:.3g}")
PY
}
classes() { cut -f1,2 "$1"; }

# GAT_TEST_QUICK=1 (the sanitizer pass of .ci/run, where every rank runs ~10x slower; the release
# pass runs everything): 2 ranks only where rank counts are swept, one score of the family (on 4
# ranks), one edge-feature case (gatv2, renumbered)
ranks="1 2 4" ranks_dropout="2 4" family="gatv2 dot scaled-dot bilinear cosine gaussian"
ef_scores="gat gatv2" ef_orders="none rcm"
if [ "${GAT_TEST_QUICK:-0}" = 1 ]; then
  ranks=2 ranks_dropout=2 family=scaled-dot ef_scores=gatv2 ef_orders=rcm
fi
cora=$datasets/cora
for k in 1 2 4; do
  "$partition" --dataset "$cora" --parts $k --out "$tmp/p$k" --quiet || { echo "FAIL gat-partition $k"; exit 1; }
done
common=(--epochs 50 --patience 1000 --threads 1 --quiet)

# one process, dropout off and on
"$train" --dataset "$cora" --dropout 0 "${common[@]}" --metrics "$tmp/one.csv" --save "$tmp/one.gat" \
  >/dev/null || { echo "FAIL one process"; exit 1; }
"$embed" --model "$tmp/one.gat" --dataset "$cora" --predict "$tmp/one.tsv" >/dev/null || exit 1
"$train" --dataset "$cora" --epochs 30 --patience 1000 --threads 1 --quiet --metrics "$tmp/oned.csv" \
  >/dev/null || { echo "FAIL one process with dropout"; exit 1; }

for k in $ranks; do
  if run $k --partitions "$tmp/p$k" --dropout 0 "${common[@]}" --metrics "$tmp/m$k.csv" \
      --save "$tmp/m$k.gat"; then
    if d=$(same_losses "$tmp/m$k.csv" "$tmp/one.csv" 1e-5); then ok "$k ranks, dropout off: $d"
    else bad "$k ranks, dropout off: $d"; fi
    if "$embed" --model "$tmp/m$k.gat" --dataset "$cora" --predict "$tmp/m$k.tsv" >/dev/null &&
        cmp -s <(classes "$tmp/m$k.tsv") <(classes "$tmp/one.tsv"); then
      ok "$k ranks: the saved model predicts one process's classes"
    else bad "$k ranks: predictions differ from one process's"; fi
  else
    cat "$tmp/out"; bad "mpirun -np $k gat-train --partitions"
  fi
done
for k in $ranks_dropout; do
  if run $k --partitions "$tmp/p$k" --epochs 30 --patience 1000 --threads 1 --quiet \
      --metrics "$tmp/md$k.csv" && d=$(same_losses "$tmp/md$k.csv" "$tmp/oned.csv" 1e-5); then
    ok "$k ranks, dropout on: $d"
  else cat "$tmp/out"; bad "$k ranks, dropout on: ${d:-mpirun failed}"; fi
done
# issue 35.13: a --partitions run says when AUTO leaves signed features unnormalised, as a
# one-process run does; the one-part partition of a dataset with named nodes loads (its empty
# "part.halo_owner" tensor sits where "node_ids" starts: no overlap)
mkdir -p "$tmp/signed"
for i in $(seq 0 39); do
  echo "n$i $((i % 2 * 2 - 1)).5 -0.$((i % 7)) 1 c$((i % 2))"
done >"$tmp/signed/s.content"
for i in $(seq 0 39); do echo "n$i n$(((i + 2) % 40))"; done >"$tmp/signed/s.cites"
"$partition" --dataset "$tmp/signed/s" --parts 1 --out "$tmp/ps1" --quiet || { echo "FAIL gat-partition signed"; exit 1; }
if run 1 --partitions "$tmp/ps1" --epochs 2 --threads 1 &&
    grep -q '^gat-train: features have negative values (on some rank): not row-normalised (use --no-normalize to silence this)$' "$tmp/out"; then
  ok "--partitions with signed features: the not-normalised note"
else cat "$tmp/out"; bad "--partitions with signed features: no note, or the run failed"; fi
if run 1 --partitions "$tmp/ps1" --epochs 2 --threads 1 --no-normalize && ! grep -q 'negative values' "$tmp/out"; then
  ok "--partitions --no-normalize: no note"
else cat "$tmp/out"; bad "--partitions --no-normalize"; fi
# every score of the family, with residual connections over three layers: a rank projects only
# its own rows and exchanges the projections each score reads of a source (z, the separate keys,
# s_src, cosine's norms), and the gradients of them come back to their owners
for a in $family; do
  k=2; [ "$a" = scaled-dot ] && k=4
  fam=(--attention "$a" --residual --layers 3 --dropout 0 --epochs 10 --patience 1000 --threads 1 --quiet)
  if "$train" --dataset "$cora" "${fam[@]}" --metrics "$tmp/f1.csv" >/dev/null 2>&1 &&
      run $k --partitions "$tmp/p$k" "${fam[@]}" --metrics "$tmp/f$k.csv" &&
      d=$(same_losses "$tmp/f$k.csv" "$tmp/f1.csv" 1e-5); then
    ok "$a, residual, 3 layers, $k ranks, dropout off: $d"
  else cat "$tmp/out"; bad "$a, residual, 3 layers, $k ranks: ${d:-a run failed}"; fi
done
# the score biases (--score-bias 1): each rank sums d loss / d s_dst over its own rows
sb=(--score-bias 1 --dropout 0 --epochs 10 --patience 1000 --threads 1 --quiet)
if "$train" --dataset "$cora" "${sb[@]}" --metrics "$tmp/s1.csv" >/dev/null 2>&1 &&
    run 2 --partitions "$tmp/p2" "${sb[@]}" --metrics "$tmp/s2.csv" &&
    d=$(same_losses "$tmp/s2.csv" "$tmp/s1.csv" 1e-5); then
  ok "score biases, 2 ranks, dropout off: $d"
else cat "$tmp/out"; bad "score biases, 2 ranks: ${d:-a run failed}"; fi
# edge features: each part carries its in-edges' features, which follow a rank's renumbering
"$synth" --out "$tmp/e3" --nodes 600 --seed 5 --edge-dim 3 --out-format binary --quiet || exit 1
"$partition" --dataset "$tmp/e3.gatd" --parts 2 --out "$tmp/pe2" --quiet || { echo "FAIL gat-partition e3"; exit 1; }
grep -q '"edge_features":[[:space:]]*3' "$tmp/pe2/manifest.json" && ok "the manifest records 3 edge features" ||
  bad "the manifest lacks \"edge_features\": 3"
for a in $ef_scores; do
  ef=(--edge-features --attention "$a" --dropout 0 --epochs 10 --patience 1000 --threads 1 --quiet)
  for order in $ef_orders; do
    if "$train" --dataset "$tmp/e3.gatd" "${ef[@]}" --metrics "$tmp/e1.csv" --save "$tmp/e1.gat" >/dev/null 2>&1 &&
        run 2 --partitions "$tmp/pe2" "${ef[@]}" --order $order --metrics "$tmp/e2.csv" --save "$tmp/e2.gat" &&
        d=$(same_losses "$tmp/e2.csv" "$tmp/e1.csv" 1e-5); then
      ok "$a with edge features, 2 ranks, --order $order, dropout off: $d"
    else cat "$tmp/out"; bad "$a with edge features, 2 ranks, --order $order: ${d:-a run failed}"; fi
  done
done
"$embed" --model "$tmp/e1.gat" --dataset "$tmp/e3.gatd" --predict "$tmp/e1.tsv" >/dev/null || exit 1
if timeout -k 5 120 mpirun --oversubscribe --allow-run-as-root -np 2 "$embed" --model "$tmp/e1.gat" \
    --partitions "$tmp/pe2" --predict "$tmp/e2.tsv" >"$tmp/out" 2>&1 &&
    cmp -s <(classes "$tmp/e2.tsv") <(classes "$tmp/e1.tsv"); then
  ok "gat-embed --partitions with edge features: one process's predictions"
else cat "$tmp/out"; bad "gat-embed --partitions with edge features"; fi

# the local node order (RCM forced) changes no mask: still one process's losses
if run 2 --partitions "$tmp/p2" --order rcm --epochs 30 --patience 1000 --threads 1 --quiet \
    --metrics "$tmp/mr2.csv" && d=$(same_losses "$tmp/mr2.csv" "$tmp/oned.csv" 1e-5); then
  ok "2 ranks renumbered by RCM, dropout on: $d"
else cat "$tmp/out"; bad "2 ranks, --order rcm: ${d:-mpirun failed}"; fi
# run to run: the same losses to the last digit
if run 2 --partitions "$tmp/p2" --epochs 30 --patience 1000 --threads 1 --quiet \
    --metrics "$tmp/md2b.csv" &&
    cmp -s <(cut -d, -f2,3,5 "$tmp/md2.csv") <(cut -d, -f2,3,5 "$tmp/md2b.csv"); then
  ok "2 ranks twice: identical losses"
else bad "2 ranks twice: the losses differ"; fi

# --runs: every rank trains run after run with the next seed
rs=(--runs 3 --epochs 30 --patience 1000 --threads 1)
mean() { sed -nE 's/^test accuracy: ([0-9.]+)% .*\(3 runs.*/\1/p' "$1"; }
ma= mb=
if "$train" --dataset "$cora" "${rs[@]}" >"$tmp/runs1.out" 2>&1 && run 2 --partitions "$tmp/p2" "${rs[@]}" &&
    ma=$(mean "$tmp/runs1.out") && mb=$(mean "$tmp/out") && [ -n "$ma" ] && [ -n "$mb" ] &&
    awk -v a="$ma" -v b="$mb" 'BEGIN { d = a - b; exit !(d <= 0.5 && d >= -0.5) }'; then
  ok "--runs 3 on 2 ranks: mean test accuracy $mb% (one process $ma%)"
else cat "$tmp/out"; bad "--runs 3 on 2 ranks: ${mb:-?}% against ${ma:-?}%"; fi

# gat-embed --partitions: every node's embeddings and predictions, in the dataset's order, as
# one process computes them on the whole graph
"$embed" --model "$tmp/one.gat" --dataset "$cora" --out "$tmp/one-emb.tsv" >/dev/null || exit 1
if timeout -k 5 120 mpirun --oversubscribe --allow-run-as-root -np 4 "$embed" --model "$tmp/one.gat" \
    --partitions "$tmp/p4" --order rcm --out "$tmp/p4-emb.tsv" --predict "$tmp/p4.tsv" >"$tmp/out" 2>&1 &&
    cmp -s <(classes "$tmp/p4.tsv") <(classes "$tmp/one.tsv") &&
    d=$(/usr/bin/python3 - "$tmp/one-emb.tsv" "$tmp/p4-emb.tsv" <<'PY'
import sys
a = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
b = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
if len(a) != len(b) or a[0] != b[0] or [r[0] for r in a] != [r[0] for r in b]:
    sys.exit("rows or ids differ")
worst = max(abs(float(u) - float(v)) for x, y in zip(a[1:], b[1:]) for u, v in zip(x[1:], y[1:]))
if worst > 1e-5:
    sys.exit(f"largest difference {worst:.3g}")
print(f"largest difference {worst:.3g}")
PY
    ); then
  ok "gat-embed --partitions on 4 ranks: one process's predictions, embeddings to $d"
else cat "$tmp/out"; bad "gat-embed --partitions: ${d:-}"; fi

expect_fault() { # NAME K PATTERN ARGS...: mpirun fails, output matches PATTERN
  local name=$1 k=$2 pat=$3; shift 3
  if run "$k" "$@"; then bad "$name: exit 0"; cat "$tmp/out"; return; fi
  if [ "$(cat "$tmp/rc" 2>/dev/null)" = 124 ]; then bad "$name: timed out"; return; fi
  if grep -Eq "$pat" "$tmp/out"; then ok "$name: $(grep -Em1 "$pat" "$tmp/out")"
  else bad "$name: no message matching '$pat'"; cat "$tmp/out"; fi
}
expect_fault "--edge-features on a partition without them" 2 \
  "partition .* carries no edge features" --partitions "$tmp/p2" --edge-features --epochs 5
# the same graph and features without edge features
"$synth" --out "$tmp/e0" --nodes 600 --seed 5 --out-format binary --quiet || exit 1
"$partition" --dataset "$tmp/e0.gatd" --parts 2 --out "$tmp/pe0" --quiet || exit 1
if timeout -k 5 120 mpirun --oversubscribe --allow-run-as-root -np 2 "$embed" --model "$tmp/e1.gat" \
    --partitions "$tmp/pe0" --predict "$tmp/x.tsv" >"$tmp/out" 2>&1; then
  bad "gat-embed: an edge model on a partition without edge features: exit 0"
elif grep -Eq "reads 3 edge features but the partition's edges carry 0" "$tmp/out"; then
  ok "gat-embed: an edge model on a partition without edge features: $(grep -Em1 'edge features' "$tmp/out")"
else bad "gat-embed: an edge model on a partition without edge features: no message"; cat "$tmp/out"; fi
expect_fault "3 ranks on 2 parts" 3 "rank [0-9]: .*holds 2 parts but mpirun started 3 ranks" \
  --partitions "$tmp/p2" --epochs 5
cp -r "$tmp/p2" "$tmp/missing" && rm "$tmp/missing/part-1.gatd"
expect_fault "a missing part file" 2 "rank 1: cannot load its part: .*part-1.gatd" \
  --partitions "$tmp/missing" --epochs 5
cp -r "$tmp/p2" "$tmp/mixed" && cp "$tmp/p4/part-1.gatd" "$tmp/mixed/part-1.gatd"
expect_fault "a part of another partition" 2 "rank 1: cannot load its part: .*part-1.gatd.*(another partition|part 1 of 4)" \
  --partitions "$tmp/mixed" --epochs 5
expect_fault "a partition of another dataset" 2 "rank 0: .* is a partition of another dataset" \
  --partitions "$tmp/p2" --dataset "$datasets/citeseer" --epochs 5

# a rank killed mid-run: mpirun ends the others (the timeout only catches a hang: no verdict
# depends on how long anything takes)
: >"$tmp/kill.out"
timeout -k 5 300 mpirun --oversubscribe --allow-run-as-root -np 2 "$train" --partitions "$tmp/p2" \
  --epochs 100000000 --patience 100000000 --threads 1 --log-every 50 >"$tmp/kill.out" 2>&1 &
job=$!
# the first epoch line: both ranks train (waited for as long as the run lasts)
until grep -q '^epoch' "$tmp/kill.out" 2>/dev/null || ! kill -0 $job 2>/dev/null; do sleep 0.1; done
victim=$(pgrep -n -x gat-train -P "$(pgrep -P $job -x mpirun)")
t0=$SECONDS
[ -n "$victim" ] && kill -9 "$victim"
wait $job
krc=$?
if [ -z "$victim" ]; then bad "kill: no rank found"; cat "$tmp/kill.out"
elif [ $krc -eq 0 ] || [ $krc -eq 124 ]; then
  bad "a killed rank: mpirun exited $krc after $((SECONDS - t0)) s"; cat "$tmp/kill.out"
else ok "a killed rank ends the run (mpirun exit $krc)"; fi

# stopping: every rank stops after the same epoch and rank 0 saves the best model, for SIGUSR1
# sent to mpirun (which forwards it as it is) and for SIGTERM sent to the ranks themselves
for how in mpirun-usr1 ranks-term; do
  rm -f "$tmp/stop.gat"
  : >"$tmp/stop.out" # emptied here: the job truncates it only once it runs, and the wait below
                     # must not read the previous round's epochs
  timeout -k 5 300 mpirun --oversubscribe --allow-run-as-root -np 2 "$train" --partitions "$tmp/p2" \
    --epochs 100000000 --patience 100000000 --threads 1 --log-every 50 --save "$tmp/stop.gat" \
    >"$tmp/stop.out" 2>&1 &
  job=$!
  # signalled once both ranks train (their handlers are in place), however long that takes
  until grep -q '^epoch' "$tmp/stop.out" 2>/dev/null || ! kill -0 $job 2>/dev/null; do sleep 0.1; done
  if [ $how = mpirun-usr1 ]; then kill -USR1 "$(pgrep -P $job -x mpirun)"
  else pkill -TERM -x gat-train -P "$(pgrep -P $job -x mpirun)"; fi
  wait $job
  if grep -Eq "best model \(epoch [0-9]+\) saved to $tmp/stop.gat" "$tmp/stop.out" &&
      [ "$(grep -c 'interrupted' "$tmp/stop.out")" = 1 ] &&
      "$embed" --model "$tmp/stop.gat" --dataset "$cora" --predict "$tmp/stop.tsv" >/dev/null; then
    ok "$how: all ranks stopped, rank 0 saved the best model (one report)"
  else bad "$how"; cat "$tmp/stop.out"; fi
done

summary
