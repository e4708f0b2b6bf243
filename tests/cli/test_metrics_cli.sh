#!/usr/bin/env bash
# CLI tests of gat-train's training outputs that need no gnuplot: --metrics (CSV and JSON lines,
# against the progress lines printed from the same callback), the --runs table, the progress line
# under a pseudo-terminal, bad --plot/--metrics arguments, and --plot with gnuplot hidden from
# PATH (training succeeds, exit 0, the message says what to install) or failing (exit 1, no
# partial picture; the previous file intact).
# Usage: test_metrics_cli.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR
set -u
bin=$1 embed=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tiny="$data/tiny"

# --- metrics: CSV, one row per epoch; the printed progress lines (same callback) agree with it
header='epoch,train_loss,train_acc,val_loss,val_acc,best_epoch,seconds,epoch_ms'
check metrics-csv 0 '^wrote .*m\.csv: 6 epochs$' '' -- "$bin" --dataset "$tiny" --epochs 6 --threads 1 --metrics "$tmp/m.csv"
cp "$tmp/out" "$tmp/train.out"
if [ "$(head -n 1 "$tmp/m.csv")" = "$header" ] && [ "$(wc -l <"$tmp/m.csv")" -eq 7 ]; then ok metrics-header; else bad metrics-header "$(head -n 2 "$tmp/m.csv")"; fi
# each row: 8 numeric columns, epochs 1..6 in order, accuracies in [0, 1], best <= epoch
if awk -F, 'NR > 1 { if (NF != 8 || $1 != NR - 1 || $3 < 0 || $3 > 1 || $5 < 0 || $5 > 1 ||
                         $6 > $1 || $7 <= 0 || $8 <= 0) exit 1 } END { exit NR != 7 }' "$tmp/m.csv"; then
  ok metrics-rows
else
  bad metrics-rows "$(cat "$tmp/m.csv")"
fi
# the stdout line "epoch N  train loss L acc A%  val loss L acc A%  best B  S s" of each epoch
# rounds the file's values (printed with %.4f and %6.2f from the same gat_epoch_info)
awk -F, 'NR > 1 { printf "epoch %5d  train loss %.4f acc %6.2f%%  val loss %.4f acc %6.2f%%  best %d\n",
                  $1, $2, 100 * $3, $4, 100 * $5, $6 }' "$tmp/m.csv" >"$tmp/want"
grep '^epoch' "$tmp/train.out" | sed -E 's/  [0-9.]+ s$//' >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok metrics-match-progress; else bad metrics-match-progress "$(diff "$tmp/want" "$tmp/got" | head -5)"; fi

# JSON lines with a run column for --runs; each line one object with every key
check metrics-jsonl 0 '^test accuracy: [0-9.]+% \+- ' '' -- "$bin" --dataset "$tiny" --epochs 3 --runs 2 --threads 1 --quiet --metrics "$tmp/m.jsonl"
keys='^\{"run":[12],"epoch":[123],"train_loss":[-0-9.e]+,"train_acc":[0-9.e-]+,"val_loss":[-0-9.e]+,"val_acc":[0-9.e-]+,"best_epoch":[0-3],"seconds":[0-9.e-]+,"epoch_ms":[0-9.e-]+\}$'
if [ "$(wc -l <"$tmp/m.jsonl")" -eq 6 ] && [ "$(grep -Ec "$keys" "$tmp/m.jsonl")" -eq 6 ] &&
   [ "$(grep -c '"run":2' "$tmp/m.jsonl")" -eq 3 ]; then
  ok metrics-jsonl-rows
else
  bad metrics-jsonl-rows "$(head -n 3 "$tmp/m.jsonl")"
fi
check metrics-runs-csv 0 '' '' -- "$bin" --dataset "$tiny" --epochs 2 --runs 2 --threads 1 --quiet --metrics "$tmp/r.csv"
[ "$(head -n 1 "$tmp/r.csv")" = "run,$header" ] && [ "$(cut -d, -f1 "$tmp/r.csv" | tail -n +2 | tr '\n' ' ')" = "1 1 2 2 " ] &&
  ok metrics-run-column || bad metrics-run-column "$(cat "$tmp/r.csv")"

# --eval-every 2: epochs 1 and 3 of 5 are not validated (null in JSON lines), 2, 4 and 5 are
check eval-every 0 '' '' -- "$bin" --dataset "$tiny" --epochs 5 --eval-every 2 --threads 1 --quiet --metrics "$tmp/ev.jsonl"
[ "$(grep -c '"val_loss":null,"val_acc":null' "$tmp/ev.jsonl")" -eq 2 ] &&
  [ "$(grep '"val_loss":null' "$tmp/ev.jsonl" | grep -Eo '"epoch":[0-9]+' | tr '\n' ' ')" = '"epoch":1 "epoch":3 ' ] &&
  ok eval-every-rows || bad eval-every-rows "$(cat "$tmp/ev.jsonl")"
check eval-every-bad 2 '' '^gat-train: --eval-every' -- "$bin" --eval-every 0

check runs-table 0 '^ *run +seed +best epoch +epochs +val acc +test acc +seconds$' '' -- "$bin" --dataset "$tiny" --epochs 3 --runs 3 --seed 4 --threads 1
rows=$(grep -Ec '^ +[123] +[456] +[0-3] +3 +[0-9.]+% +[0-9.]+% +[0-9.]+$' "$tmp/out")
last=$(tail -n 1 "$tmp/out")
if [ "$rows" -eq 3 ] && [[ "$last" =~ ^test\ accuracy:\ [0-9.]+%\ \+-\ [0-9.]+%\ \ \(3\ runs,\ seeds\ 4\.\.6 ]]; then
  ok runs-table-rows
else
  bad runs-table-rows "$rows rows; last line: $last"
fi

# --- bad arguments: usage (2) or an unwritable place (1), before any training
check plot-bmp 2 '' "^gat-train: --plot: expected a file name ending in .png or .svg, got '.*out\.bmp' \(try --help\)$" -- "$bin" --dataset "$tiny" --plot "$tmp/out.bmp"
check plot-size-bad 2 '' "^gat-train: --plot-size: expected WIDTHxHEIGHT in pixels, each in \[16, 10000\], got '10x10'$" -- "$bin" --plot "$tmp/p.png" --plot-size 10x10
check plot-size-alone 2 '' '^gat-train: --plot-size needs --plot' -- "$bin" --plot-size 640x400
check metrics-nodir 1 '' '^gat-train: --metrics: cannot write /nonexistent/dir/m\.csv: directory /nonexistent/dir: No such file or directory$' -- "$bin" --dataset "$tiny" --metrics /nonexistent/dir/m.csv
check plot-nodir 1 '' '^gat-train: --plot: cannot write /nonexistent/p\.png: directory /nonexistent: No such file or directory$' -- "$bin" --dataset "$tiny" --plot /nonexistent/p.png
check embed-plot-bmp 2 '' "^gat-embed: --plot: expected a file name ending in .png or .svg, got 'e\.bmp'" -- "$embed" --model "$tmp/none.gat" --plot e.bmp
check embed-plot-attention-gif 2 '' "^gat-embed: --plot-attention: expected a file name ending in .png or .svg" -- "$embed" --model "$tmp/none.gat" --plot-attention a.gif
check embed-format-alone 2 '' '^gat-embed: --format needs --out' -- "$embed" --model "$tmp/none.gat" --plot e.png --format npy

# --- gnuplot hidden from PATH: training succeeds and saves, exit 0, one line says what to install
hint="^gat-train: --plot: gnuplot not found on PATH, so .*c\.png will not be drawn \(install it: apt-get install gnuplot-nox\); training goes on$"
check no-gnuplot 0 '^saved the model to' "$hint" -- env PATH=/nonexistent "$bin" --dataset "$tiny" --epochs 3 --threads 1 --plot "$tmp/c.png" --save "$tmp/m.gat"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/c.png" ] && [ -s "$tmp/m.gat" ] && ok no-gnuplot-saved || bad no-gnuplot-saved "$(cat "$tmp/err")"
# gat-embed: the pictures are its output, so exit 1, but --out is still written
check embed-no-gnuplot 1 '^wrote .*e\.tsv' '^gat-embed: gnuplot not found on PATH: cannot draw .*e\.png and .*a\.png \(install it: apt-get install gnuplot-nox\)$' -- env PATH=/nonexistent "$embed" --model "$tmp/m.gat" --dataset "$tiny" --out "$tmp/e.tsv" --plot "$tmp/e.png" --plot-attention "$tmp/a.png" --threads 1
[ -s "$tmp/e.tsv" ] && [ ! -e "$tmp/e.png" ] && [ ! -e "$tmp/a.png" ] && ok embed-no-gnuplot-outputs || bad embed-no-gnuplot-outputs

# --- a gnuplot that fails: exit 1 with a message, the previous picture intact, no temporary left
mkdir -p "$tmp/fakebin" "$tmp/pics"
printf '#!/bin/sh\ncat >/dev/null\necho "gnuplot: simulated failure" >&2\nexit 3\n' >"$tmp/fakebin/gnuplot"
chmod +x "$tmp/fakebin/gnuplot"
echo old >"$tmp/pics/c.png"
PATH="$tmp/fakebin:$PATH" "$bin" --dataset "$tiny" --epochs 2 --threads 1 --quiet --plot "$tmp/pics/c.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'gat-train: gnuplot failed (exit 3) drawing .*c\.png' "$tmp/err" &&
   [ "$(cat "$tmp/pics/c.png")" = old ] && [ "$(ls -A "$tmp/pics")" = c.png ]; then
  ok gnuplot-fails
else
  bad gnuplot-fails "exit $rc" "$(cat "$tmp/err")" "$(ls -A "$tmp/pics")"
fi

# --- gnuplot runs on a script file, never on a pipe we write to: a gnuplot that dies (a signal)
# or draws nothing cannot hang us or publish a picture, and neither temporary file is left
printf '#!/bin/sh\nkill -9 $$\n' >"$tmp/fakebin/gnuplot"
PATH="$tmp/fakebin:$PATH" "$bin" --dataset "$tiny" --epochs 2 --threads 1 --quiet --plot "$tmp/pics/c.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "gat-train: gnuplot died (signal 9) drawing $tmp/pics/c.png" ] &&
   [ "$(cat "$tmp/pics/c.png")" = old ] && [ "$(ls -A "$tmp/pics")" = c.png ]; then
  ok gnuplot-dies
else
  bad gnuplot-dies "exit $rc" "$(cat "$tmp/err")" "$(ls -A "$tmp/pics")"
fi
printf '#!/bin/sh\nexit 0\n' >"$tmp/fakebin/gnuplot"
PATH="$tmp/fakebin:$PATH" "$embed" --model "$tmp/m.gat" --dataset "$tiny" --plot "$tmp/pics/c.png" --threads 1 --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "gat-embed: gnuplot exited with status 0 but drew nothing for $tmp/pics/c.png" ] &&
   [ "$(cat "$tmp/pics/c.png")" = old ] && [ "$(ls -A "$tmp/pics")" = c.png ]; then
  ok gnuplot-draws-nothing
else
  bad gnuplot-draws-nothing "exit $rc" "$(cat "$tmp/err")" "$(ls -A "$tmp/pics")"
fi
# what gnuplot is given: one argument, the complete script (beside the picture, hidden), and an
# empty standard input; the script is removed afterwards
cat >"$tmp/fakebin/gnuplot" <<EOF
#!/bin/sh
[ \$# -eq 1 ] && [ ! -s /dev/stdin ] || exit 5
cp "\$1" "$tmp/seen.gp" && echo "\$1" >"$tmp/seen.name"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo drawn >"\$out"
EOF
PATH="$tmp/fakebin:$PATH" "$embed" --model "$tmp/m.gat" --dataset "$tiny" --plot-attention "$tmp/pics/a.png" --threads 1 --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(cat "$tmp/pics/a.png")" = drawn ] &&
   [ "$(tail -n 2 "$tmp/seen.gp" | tr '\n' ' ')" = "unset output exit " ] &&
   [[ "$(cat "$tmp/seen.name")" =~ ^$tmp/pics/\.a\.png\.gp-......$ ]] &&
   [ "$(ls -A "$tmp/pics" | tr '\n' ' ')" = "a.png c.png " ]; then
  ok gnuplot-script-file
else
  bad gnuplot-script-file "exit $rc" "$(cat "$tmp/err")" "$(ls -A "$tmp/pics")" "$(cat "$tmp/seen.name")"
fi

# --- the progress line under a pseudo-terminal: updated in place (carriage returns, no per-epoch
# lines), then the summary line intact as the last line
if command -v script >/dev/null; then
  script -q -e -c "'$bin' --dataset '$tiny' --epochs 40 --threads 1" /dev/null </dev/null >"$tmp/tty" 2>&1
  rc=$?
  crs=$(tr -cd '\r' <"$tmp/tty" | wc -c)
  updates=$(grep -o $'\repoch [0-9]*  loss [0-9.]*/[0-9.]*  acc [0-9.]*%/[0-9.]*% (train/val)  best [0-9]*  [0-9.]* epochs/s  [0-9.]* s' "$tmp/tty" | wc -l)
  last=$(tr -d '\r' <"$tmp/tty" | tail -n 1)
  if [ $rc -eq 0 ] && [ "$updates" -ge 2 ] && ! grep -aq '^epoch  *1  train loss' "$tmp/tty" &&
     grep -aq $'\repoch 40  loss' "$tmp/tty" &&
     [[ "$last" =~ ^test\ accuracy:\ [0-9]+\.[0-9]{2}%\ \ \(best\ epoch\ [0-9]+,\ [0-9.]+\ s\)$ ]]; then
    ok "tty-progress ($updates updates, $crs carriage returns)"
  else
    bad tty-progress "exit $rc, $updates updates, last line '$last'" "$(head -c 600 "$tmp/tty" | cat -A | head -5)"
  fi
  # within an epoch the line says the epoch is under way, for how long and which part of it
  # (the library's stage callback) ended last. The ticker draws that once an epoch has taken a
  # second; the test hook GAT_TRAIN_TEST_TICKER makes it draw at every part instead, so the
  # verdict does not depend on how long an epoch takes on this machine now
  GAT_TRAIN_TEST_TICKER=1 script -q -e -c "'$bin' --dataset '$tiny' --threads 1 --epochs 2" /dev/null </dev/null >"$tmp/tty" 2>&1
  rc=$?
  if [ $rc -eq 0 ] &&
     grep -aq $'\repoch 1 under way: [0-9]* s, forward of layer 1 done (1/7)' "$tmp/tty" &&
     grep -aq $'\repoch 1 under way: [0-9]* s, update done (5/7)' "$tmp/tty" &&
     grep -aq $'\repoch 1 under way: [0-9]* s, validation of layer 2 done (7/7)' "$tmp/tty" &&
     grep -aq $'\repoch 1  loss .*  |  epoch 2 under way: [0-9]* s, backward of layer 1 done (4/7)' "$tmp/tty"; then
    ok tty-epoch-under-way
  else
    bad tty-epoch-under-way "exit $rc" "$(tr '\r' '\n' <"$tmp/tty" | cat -A | head -12)"
  fi
  # --quiet: no progress line at all on a terminal either
  script -q -e -c "'$bin' --dataset '$tiny' --epochs 5 --threads 1 --quiet" /dev/null </dev/null >"$tmp/tty" 2>&1
  [ "$(tr -d '\r' <"$tmp/tty")" = "$(tr -d '\r' <"$tmp/tty" | grep '^test accuracy')" ] && ok tty-quiet || bad tty-quiet "$(cat -A "$tmp/tty" | head -3)"
else
  echo "skip tty-progress: no script(1) (util-linux)"
fi

summary
