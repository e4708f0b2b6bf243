#!/usr/bin/env bash
# SIGINT / SIGTERM during gat-train: the epoch under way finishes, the best model so far is saved
# (atomically) when --save is given, the message says where training stopped, and the exit code
# is 130 / 143; the saved model loads (gat-embed runs on it). A second signal ends the process at
# once and leaves no partial file. Usage: test_interrupt.sh GAT_TRAIN GAT_EMBED
set -u
train=$1 embed=$2
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# a failed case shows the end of the training's output
badt() { badf "$1" "$tmp/out" "$tmp/err"; }

# Starts a training that would run for hours; waits for its first progress lines (stdout is a
# file, so they come in blocks of a few kB), however long they take: the handlers are in place
# by then. 1 if the training ended first. A script's background job starts with SIGINT ignored,
# which gat-train keeps (as nohup'ed and background processes expect): env gives it the default
# action, as a foreground command under a terminal has. The output files are emptied first: the
# background job truncates them only once it runs, and until then the wait below would read the
# previous case's epochs and signal a shell that still ignores SIGINT (seen on a loaded machine:
# both signals lost, the training ran its 100000 epochs).
start() {
  : >"$tmp/out"
  : >"$tmp/err"
  env --default-signal=INT "$train" --dataset cora --epochs 100000 --patience 100000 --threads 1 "$@" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  until grep -q '^epoch' "$tmp/out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
}

# Waits for $pid (at most 300 s: only a hang takes that long); sets rc.
finish() {
  for _ in $(seq 3000); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  wait "$pid"
  rc=$?
}

for sig in INT TERM; do
  want=$([ $sig = INT ] && echo 130 || echo 143)
  rm -f "$tmp/m.gat"
  if ! start --save "$tmp/m.gat"; then badt "sig$sig-start"; continue; fi
  sleep 1
  kill -$sig "$pid"
  finish
  name=sig$sig-save
  if [ "$rc" -eq "$want" ] &&
     grep -Eq "^gat-train: interrupted at epoch [0-9]+; best model \(epoch [0-9]+\) saved to $tmp/m.gat$" "$tmp/err" &&
     "$embed" --model "$tmp/m.gat" --out "$tmp/e.npy" >/dev/null 2>>"$tmp/err" && [ -s "$tmp/e.npy" ]; then
    ok "$name (exit $rc)"
  else
    echo "  exit $rc, want $want"; badt "$name"
  fi
  ls "$tmp" | grep -q 'tmp-' && { echo "  temporary file left"; badt "$name-no-temporary"; }
done

# mini-batch training stops after the step under way: the message, the exit code, the model
rm -f "$tmp/m.gat"
if start --save "$tmp/m.gat" --batch-size 4 --fanout 5,5; then
  sleep 1
  kill -INT "$pid"
  finish
  if [ "$rc" -eq 130 ] &&
     grep -Eq "^gat-train: interrupted after epoch [0-9]+; best model \(epoch [0-9]+\) saved to $tmp/m.gat$" "$tmp/err" &&
     "$embed" --model "$tmp/m.gat" --out "$tmp/e.npy" >/dev/null 2>>"$tmp/err" && [ -s "$tmp/e.npy" ]; then
    ok "sigINT-minibatch (exit $rc)"
  else
    echo "  exit $rc"; badt "sigINT-minibatch"
  fi
else
  badt "sigINT-minibatch-start"
fi

# without --save: the message, the exit code, nothing written
if start; then
  sleep 1
  kill -INT "$pid"
  finish
  if [ "$rc" -eq 130 ] && grep -Eq '^gat-train: interrupted at epoch [0-9]+; best epoch [0-9]+ \(no --save' "$tmp/err"; then
    ok "sigINT-no-save"
  else
    echo "  exit $rc"; badt "sigINT-no-save"
  fi
else
  badt "sigINT-no-save-start"
fi

# a second signal kills at once (during the first epoch, before any save): the existing model
# file still loads
cp "$tmp/m.gat" "$tmp/old.gat" 2>/dev/null || true
if [ -f "$tmp/old.gat" ] && start --save "$tmp/m.gat"; then
  kill -INT "$pid"; kill -INT "$pid"
  finish
  if [ "$rc" -eq 130 ] && "$embed" --model "$tmp/m.gat" --out "$tmp/e2.npy" >/dev/null 2>&1; then
    ok "second-signal (exit $rc)"
  else
    echo "  exit $rc"; badt "second-signal"
  fi
  ls "$tmp" | grep -q 'tmp-' && { echo "  temporary file left"; badt "second-signal-no-temporary"; }
else
  badt "second-signal-start"
fi

# --checkpoint: a signal ends the epoch under way (mini-batches too: no stop between steps) and
# writes the training state; the same command with --resume goes on from it to the epochs a run
# never stopped has: the metrics' figures equal, the times aside, whatever epoch the signal hit
for mode in full mini; do
  extra=()
  [ $mode = mini ] && extra=(--batch-size 16 --fanout 5,5)
  rm -f "$tmp/c.ckpt"
  if ! start --checkpoint "$tmp/c.ckpt" --checkpoint-every 100000 "${extra[@]}"; then
    badt "checkpoint-$mode-start"
    continue
  fi
  sleep 1
  kill -INT "$pid"
  finish
  e=$(sed -nE 's/^gat-train: interrupted (at|after) epoch ([0-9]+);.*/\2/p' "$tmp/err")
  name=checkpoint-resume-$mode
  if [ "$rc" -ne 130 ] || [ -z "$e" ] ||
     ! grep -q "^gat-train: the training state after epoch $e is in $tmp/c.ckpt: the same command with --resume $tmp/c.ckpt goes on from there$" "$tmp/err"; then
    echo "  exit $rc, epoch '$e'"; badt "$name-stop"
    continue
  fi
  n=$((e + 3))
  common=(--dataset cora --epochs $n --patience 100000 --threads 1 --quiet "${extra[@]}")
  if "$train" "${common[@]}" --metrics "$tmp/straight.csv" >"$tmp/out" 2>"$tmp/err" &&
     "$train" "${common[@]}" --resume "$tmp/c.ckpt" --checkpoint "$tmp/c.ckpt" \
       --metrics "$tmp/resumed.csv" >"$tmp/out2" 2>>"$tmp/err" &&
     [ "$(wc -l <"$tmp/resumed.csv")" -eq $((n + 1)) ] &&
     [ "$(cut -d, -f1-6 "$tmp/straight.csv")" = "$(cut -d, -f1-6 "$tmp/resumed.csv")" ] &&
     [ "$(sed -E 's/, [0-9.]+ s\)/)/' "$tmp/out")" = "$(sed -E 's/, [0-9.]+ s\)/)/' "$tmp/out2")" ]; then
    ok "$name (stopped after epoch $e)"
  else
    badf "$name" "$tmp/err" "$tmp/out" "$tmp/out2"
  fi
done

# --checkpoint with --runs: the signal lands in run 1 (its epochs never end); its state is in
# FILE.run1, and the same command with --resume FILE goes on with run 1, then starts run 2: the
# two runs' epochs equal two runs never stopped
rm -f "$tmp"/r.ckpt*
if start --runs 2 --checkpoint "$tmp/r.ckpt" --checkpoint-every 100000; then
  sleep 1
  kill -INT "$pid"
  finish
  e=$(sed -nE 's/^gat-train: interrupted at epoch ([0-9]+);.*/\1/p' "$tmp/err")
  name=checkpoint-resume-runs
  if [ "$rc" -ne 130 ] || [ -z "$e" ] || [ -e "$tmp/r.ckpt.run2" ] ||
     ! grep -q "^gat-train: run 1's training state after epoch $e is in $tmp/r.ckpt.run1 (the runs before it beside it): the same command with --resume $tmp/r.ckpt goes on from there$" "$tmp/err"; then
    echo "  exit $rc, epoch '$e'"; badt "$name-stop"
  else
    n=$((e + 3))
    common=(--dataset cora --runs 2 --epochs $n --patience 100000 --threads 1 --quiet)
    if "$train" "${common[@]}" --metrics "$tmp/straight.csv" >"$tmp/out" 2>"$tmp/err" &&
       "$train" "${common[@]}" --resume "$tmp/r.ckpt" --checkpoint "$tmp/r.ckpt" \
         --metrics "$tmp/resumed.csv" >"$tmp/out2" 2>>"$tmp/err" &&
       [ "$(wc -l <"$tmp/resumed.csv")" -eq $((2 * n + 1)) ] &&
       [ "$(cut -d, -f1-7 "$tmp/straight.csv")" = "$(cut -d, -f1-7 "$tmp/resumed.csv")" ]; then
      ok "$name (stopped after epoch $e)"
    else
      badf "$name" "$tmp/err" "$tmp/out" "$tmp/out2"
    fi
  fi
else
  badt checkpoint-resume-runs-start
fi

# --task graph with --checkpoint: the signal lands in fold 1 of 3 (its epochs never end); its
# state is in FILE.fold1, the exit code 130, and the same command with --resume FILE goes on
# with fold 1, then folds 2 and 3: every row equals three folds never stopped. The data: 40
# small path graphs whose class decides their node labels (lib.sh's toy_tu).
d=$tmp/toy
toy_tu "$d" toy 40
graph=(--task graph --dataset "$d" --folds 3 --threads 1 --lr 0.001 --graph-batch 8 --seed 3 --patience 1000000)
: >"$tmp/out"
: >"$tmp/err"
env --default-signal=INT "$train" "${graph[@]}" --epochs 1000000 --checkpoint "$tmp/g.ckpt" --checkpoint-every 100000 >"$tmp/out" 2>"$tmp/err" &
pid=$!
until grep -q '^epoch' "$tmp/out" 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
sleep 1
kill -INT "$pid"
finish
e=$(sed -nE "s/^gat-train: fold 1's training state after epoch ([0-9]+) is in .*/\1/p" "$tmp/err")
name=checkpoint-resume-folds
if [ "$rc" -ne 130 ] || [ -z "$e" ] || [ -e "$tmp/g.ckpt.fold2" ] ||
   ! grep -q "^gat-train: fold 1's training state after epoch $e is in $tmp/g.ckpt.fold1 (the folds before it beside it): the same command with --resume $tmp/g.ckpt goes on from there$" "$tmp/err"; then
  echo "  exit $rc, epoch '$e'"; badt "$name-stop"
else
  n=$((e + 3))
  if "$train" "${graph[@]}" --epochs $n --quiet --metrics "$tmp/straight.csv" >"$tmp/out" 2>"$tmp/err" &&
     "$train" "${graph[@]}" --epochs $n --quiet --resume "$tmp/g.ckpt" --checkpoint "$tmp/g.ckpt" \
       --metrics "$tmp/resumed.csv" >"$tmp/out2" 2>>"$tmp/err" &&
     [ "$(wc -l <"$tmp/resumed.csv")" -eq $((3 * n + 1)) ] &&
     [ "$(cut -d, -f1-7 "$tmp/straight.csv")" = "$(cut -d, -f1-7 "$tmp/resumed.csv")" ] &&
     cmp -s "$tmp/out" "$tmp/out2"; then
    ok "$name (stopped after epoch $e)"
  else
    badf "$name" "$tmp/err" "$tmp/out" "$tmp/out2"
  fi
fi

summary
