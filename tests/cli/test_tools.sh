#!/usr/bin/env bash
# What every tool shares, and faults of their outputs (issue 35, items 5, 7, 9, 10, 12):
#  - every tool in the build's tools directory: --help (exit 0, "usage:"), --version (exit 0,
#    the version), an unknown option (exit 2, one line); gat-convert's help names only options
#    it takes;
#  - option parsing: a misspelled option names the nearest one, an option given as another's
#    value ("--dataset --quiet") is a usage error, --OPT=--VALUE is a value;
#  - outputs that are not regular files: gat-embed --predict into a FIFO (still a FIFO), through
#    a symbolic link (still a link; its target replaced), to /dev/fd/1;
#  - gat-synth's text files: a write that fails (/dev/full behind a link, or past ulimit -f)
#    names the file and the reason, and leaves the previous dataset whole, no temporary file;
#  - signals, each sent at a point the test controls (a process blocked writing into a full FIFO
#    the test holds, or SIGXFSZ raised by the kernel inside a write past ulimit -f), never after
#    a guessed delay: gat-train restores the default actions once its work is saved (one SIGTERM
#    ends it) and keeps an inherited SIG_IGN for SIGINT; gat-embed exits 128 + N leaving no
#    temporary file, and keeps an inherited SIG_IGN too.
# Usage: test_tools.sh TOOLS_DIR TESTDATA_DIR
set -u
tools=$1 data=$2
train=$tools/gat-train embed=$tools/gat-embed synth=$tools/gat-synth
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
tiny=$data/tiny

# --- every tool: --help, --version, an unknown option
n=0
for t in "$tools"/gat-*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  name=$(basename "$t")
  n=$((n + 1))
  check "$name-help" 0 '^usage: ' '' -- "$t" --help
  check "$name-version" 0 "^$name \(libgat\) [0-9]+\.[0-9]+\.[0-9]+$" '' -- "$t" --version
  check "$name-unknown-option" 2 '' "^$name: unknown option '--no-such-option' \(try --help\)$" -- "$t" --no-such-option
done
[ $n -ge 7 ] && ok "tools-found ($n)" || bad tools-found "$n tools in $tools, expected at least 7"
"$tools/gat-convert" --help | grep -q -- '--dataset' && bad convert-help-options "gat-convert --help mentions --dataset" || ok convert-help-options

# --- option parsing
check misspelled 2 '' "^gat-train: unknown option '--epoch' \(did you mean --epochs\? try --help\)$" -- "$train" --epoch 3
check misspelled-swap 2 '' "did you mean --hidden\?" -- "$train" --hidedn 8
check misspelled-far 2 '' "^gat-train: unknown option '--zzzzzz' \(try --help\)$" -- "$train" --zzzzzz
check option-as-value 2 '' "^gat-train: --dataset needs a value, got the option '--quiet' \(write --dataset=VALUE for a value that starts with --\)$" -- "$train" --dataset --quiet
check option-as-value-embed 2 '' "^gat-embed: --out needs a value, got the option '--model'" -- "$embed" --out --model m.gat
check value-with-equals 1 '' "no dataset '--quiet'" -- "$train" --dataset=--quiet

# --- outputs that are not regular files (a FIFO or a link in $tmp, never /dev/null itself)
check save-tiny 0 'saved the model' '' -- "$train" --dataset "$tiny" --epochs 3 --threads 1 --save "$tmp/m.gat"
check predict-file 0 '' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --predict "$tmp/want.tsv" --threads 1 --quiet
mkfifo "$tmp/pred.fifo"
cat "$tmp/pred.fifo" >"$tmp/pred.got" &
reader=$!
check predict-fifo 0 '' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --predict "$tmp/pred.fifo" --threads 1 --quiet
# the reader ends: at gat-embed's end of file, or here if gat-embed never opened the FIFO (an
# empty non-blocking open releases it) or replaced it (its inode is gone: killed)
if [ -p "$tmp/pred.fifo" ]; then dd of="$tmp/pred.fifo" oflag=nonblock conv=notrunc count=0 status=none 2>/dev/null
else kill $reader 2>/dev/null; fi
wait $reader
[ -p "$tmp/pred.fifo" ] && cmp -s "$tmp/pred.got" "$tmp/want.tsv" && ok predict-fifo-kept ||
  bad predict-fifo-kept "$(ls -l "$tmp/pred.fifo")" "$(diff "$tmp/pred.got" "$tmp/want.tsv" | head -3)"
echo old >"$tmp/real.tsv"
ln -s real.tsv "$tmp/link.tsv"
check predict-link 0 '' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --predict "$tmp/link.tsv" --threads 1 --quiet
[ -L "$tmp/link.tsv" ] && [ "$(readlink "$tmp/link.tsv")" = real.tsv ] && cmp -s "$tmp/real.tsv" "$tmp/want.tsv" &&
  ok predict-link-kept || bad predict-link-kept "$(ls -l "$tmp/link.tsv" "$tmp/real.tsv")"
# /dev/fd/1 rather than /dev/stdout: a broken writer would try to replace a file in /proc (and
# fail), not one in /dev
check predict-stdout 0 '^id' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --predict /dev/fd/1 --threads 1 --quiet
cmp -s "$tmp/out" "$tmp/want.tsv" && ok predict-stdout-rows || bad predict-stdout-rows "$(head -3 "$tmp/out")"
ls -A "$tmp" | grep -q '\.tmp-' && bad predict-no-temporary "$(ls -A "$tmp")" || ok predict-no-temporary

# --- gat-synth: failed writes name the file and why; the previous dataset stays whole
mkdir "$tmp/s"
check synth 0 '' '' -- "$synth" --out "$tmp/s/d" --nodes 200 --seed 1 --quiet
cp -r "$tmp/s" "$tmp/s.before"
ln -sf /dev/full "$tmp/s/d.split"
check synth-full 1 '' "^gat-synth: cannot write $tmp/s/d\.split: No space left on device$" -- "$synth" --out "$tmp/s/d" --nodes 200 --seed 2 --quiet
cmp -s "$tmp/s/d.content.gz" "$tmp/s.before/d.content.gz" && cmp -s "$tmp/s/d.cites" "$tmp/s.before/d.cites" &&
  [ -L "$tmp/s/d.split" ] && ! ls -A "$tmp/s" | grep -q '\.tmp-' && ok synth-full-previous-kept ||
  bad synth-full-previous-kept "$(ls -lA "$tmp/s")"
rm "$tmp/s/d.split" && cp "$tmp/s.before/d.split" "$tmp/s/"
# past ulimit -f (64 KiB; SIGXFSZ ignored, so the write fails with EFBIG): a full disk
check synth-fsize 1 '' "^gat-synth: cannot write $tmp/s/d\.content: File too large$" -- \
  bash -c 'ulimit -f 64; trap "" XFSZ; exec "$@"' - "$synth" --out "$tmp/s/d" --nodes 2000 --seed 3 --plain --quiet
[ ! -e "$tmp/s/d.content" ] && cmp -s "$tmp/s/d.cites" "$tmp/s.before/d.cites" &&
  ! ls -A "$tmp/s" | grep -q '\.tmp-' && ok synth-fsize-previous-kept || bad synth-fsize-previous-kept "$(ls -lA "$tmp/s")"

summary
