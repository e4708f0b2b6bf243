#!/usr/bin/env bash
# What every tool shares, and faults of their outputs (issue 35, items 5, 7, 9, 10, 12):
#  - every tool in the build's tools directory: --help (exit 0, "usage:"), --version (exit 0,
#    the version), an unknown option (exit 2, one line); gat-convert's help names only options
#    it takes;
#  - option parsing: a misspelled option names the nearest one, an option given as another's
#    value ("--dataset --quiet") is a usage error, --OPT=--VALUE is a value;
#  - one flag, one meaning (item 4): a flag in two tools' --help takes the same kind of value in
#    both; the renamed flags' old spellings still work, with a note on stderr;
#  - gat-embed's default dataset (item 6): found from another directory (recorded absolute; an
#    older relative one against the model's directory), none for a --graph model (usage error),
#    one-hot features named in the mismatch message, another dataset's classes noted;
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
# the environment's model options: a value the tools do not read is refused, naming it
check env-isa 2 '' "^gat-train: environment variable GAT_ISA='avx2x': expected base, avx2 or avx512 \(or unset\)$" -- env GAT_ISA=avx2x "$train" --epochs 1
check env-alpha-embed 2 '' "^gat-embed: environment variable GAT_ALPHA='maybe': expected store or recompute" -- env GAT_ALPHA=maybe "$embed" --model m.gat
check env-isa-bench 2 '' "^gat-bench: environment variable GAT_ISA='AVX2'" -- env GAT_ISA=AVX2 "$tools/gat-bench" --workloads synth-200
check env-empty 0 'test accuracy' '' -- env GAT_ISA= GAT_ALPHA=recompute "$train" --dataset "$data/tiny" --epochs 1 --threads 1 --quiet

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

# --- one flag, one meaning: a flag in two tools' --help takes the same kind of value there (a
# switch, a path, or another value) and, where both list their choices ("a, b or c"), shares one
# (issue 35 item 4: gat-embed --attention FILE beside the score name, gat-synth --edge-features D
# beside gat-train's switch, --format text|binary beside npy|tsv, gat-synth --features F beside
# FILE). A help line is "  --NAME[ ARG]" padded to 26 columns, then the text (or one space):
# text at column 29 means no ARG.
for t in "$tools"/gat-*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  "$t" --help | awk -v tool="$(basename "$t")" '
    /^  --/ && !/^  --(help|version) / {
      flag = $1; rest = substr($0, 3 + length(flag))
      match(rest, /[^ ]/); col = 2 + length(flag) + RSTART
      if (col >= 29 || $2 == "") { kind = "switch"; arg = "-"; text = substr(rest, RSTART) }
      else {
        arg = $2; text = substr(rest, RSTART + length(arg)); sub(/^ +/, "", text)
        kind = arg ~ /(^|[|])(FILE|PATH|PREFIX|DIR|MODEL)$/ ? "path" : "value"
      }
      gsub(/ *\([^()]*\)/, "", text)
      choices = "-"
      if (match(text, /^[a-z0-9-]+(, [a-z0-9-]+)* or [a-z0-9-]+/)) {
        choices = substr(text, 1, RLENGTH); gsub(/(, | or )/, ",", choices)
      }
      print flag, tool, kind, arg, choices
    }'
done >"$tmp/flags"
awk '
  function overlap(a, b,   x, y, i, j, na, nb) {
    if (a == "-" || b == "-") return 1
    na = split(a, x, ","); nb = split(b, y, ",")
    for (i = 1; i <= na; i++) for (j = 1; j <= nb; j++) if (x[i] == y[j]) return 1
    return 0
  }
  { if ($1 in seen) {
      split(seen[$1], s, " ")
      if (s[2] != $3 || !overlap(s[4], $5))
        printf "%s: %s %s (%s, choices %s) against %s %s (%s, choices %s)\n", $1, s[1], s[3], s[2], s[4], $2, $4, $3, $5
    } else seen[$1] = $2 " " $3 " " $4 " " $5 }' "$tmp/flags" >"$tmp/conflicts"
[ "$(wc -l <"$tmp/flags")" -ge 100 ] && grep -q '^--residual gat-train switch' "$tmp/flags" &&
  grep -q '^--graph-format gat-train value F edgelist,ncol,' "$tmp/flags" &&
  grep -q '^--edge-attributes gat-train value NAME\[,NAME...\] -' "$tmp/flags" &&
  ok "help-parsed ($(wc -l <"$tmp/flags") option lines)" || badf help-parsed "$tmp/flags"
[ ! -s "$tmp/conflicts" ] && ok one-flag-one-meaning || badf one-flag-one-meaning "$tmp/conflicts"
# the renamed flags' old spellings still work for one release, with a note on stderr
check deprecated-synth 0 '' '^gat-synth: --edge-features is deprecated, use --edge-dim$' -- \
  "$synth" --out "$tmp/old" --nodes 60 --seed 2 --edge-features 2 --features 5 --format binary --quiet
"$synth" --out "$tmp/new" --nodes 60 --seed 2 --edge-dim 2 --feature-dim 5 --out-format binary --quiet 2>"$tmp/err2"
grep -q '^gat-synth: --features is deprecated, use --feature-dim$' "$tmp/err" &&
  grep -q '^gat-synth: --format is deprecated, use --out-format$' "$tmp/err" &&
  cmp -s "$tmp/old.gatd" "$tmp/new.gatd" && [ ! -s "$tmp/err2" ] && ok deprecated-synth-same || badf deprecated-synth-same "$tmp/err"
check deprecated-embed-attention 0 '' '^gat-embed: --attention is deprecated, use --attention-out$' -- \
  "$embed" --model "$tmp/m.gat" --dataset "$tiny" --attention "$tmp/att-old.tsv" --threads 1 --quiet
[ -s "$tmp/att-old.tsv" ] && ok deprecated-embed-attention-written || bad deprecated-embed-attention-written "no $tmp/att-old.tsv"
# (cora has no edge features: a usage error, before timing anything)
"$tools/gat-bench" --edge-features 2 --workloads cora --threads 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q '^gat-bench: --edge-features is deprecated, use --edge-dim$' "$tmp/err" &&
  grep -q "^gat-bench: --edge-dim: workload 'cora' has no edge features" "$tmp/err" &&
  ok deprecated-bench || badf deprecated-bench "$tmp/err"
"$synth" --help | grep -q -- '--edge-features\|--format' && bad deprecated-hidden "gat-synth --help lists a deprecated spelling" || ok deprecated-hidden

# --- gat-embed's default dataset (item 6): the one the model was trained on with --dataset,
# recorded as an absolute path and found from any directory; a relative one (older files)
# against the model file's directory; a --graph model records none (a usage error naming it)
mkdir -p "$tmp/w" "$tmp/elsewhere"
cp -r "$tiny" "$tmp/w/tiny"
(cd "$tmp/w" && "$train" --dataset tiny --epochs 2 --threads 1 --quiet --save m.gat) >/dev/null 2>&1
grep -aq "\"dataset\":\"$tmp/w/tiny\"" "$tmp/w/m.gat" && ok model-dataset-absolute ||
  bad model-dataset-absolute "$(grep -ao '"dataset":"[^"]*"' "$tmp/w/m.gat")"
(cd "$tmp/elsewhere" && "$embed" --model ../w/m.gat --predict p.tsv --threads 1 --quiet) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(wc -l <"$tmp/elsewhere/p.tsv")" -eq "$(wc -l <"$tiny/tiny.content")" ] &&
  [ ! -s "$tmp/err" ] && ok embed-model-dataset-elsewhere || badf embed-model-dataset-elsewhere "$tmp/err"
# an older file's relative path ("./tiny", written from $tmp/w), padded to the header's length
perl -0777 -pe 's{"dataset":"[^"]*"}{my $n = length($&) - length(q{"dataset":"./tiny"}); q{"dataset":"./tiny"} . (" " x $n)}e' \
  "$tmp/w/m.gat" >"$tmp/w/rel.gat"
grep -aq '"dataset":"./tiny" ' "$tmp/w/rel.gat" && ok model-relative-crafted || bad model-relative-crafted
(cd "$tmp/elsewhere" && "$embed" --model ../w/rel.gat --predict p2.tsv --threads 1 --quiet) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && cmp -s "$tmp/elsewhere/p.tsv" "$tmp/elsewhere/p2.tsv" && ok embed-relative-model-dir ||
  badf embed-relative-model-dir "$tmp/err"
g=$data/graphs
gfiles=(--graph "$g/sbm.edges" --features "$g/sbm.features")
check train-graph-save 0 '' '' -- "$train" "${gfiles[@]}" --labels "$g/sbm.labels" --epochs 2 --threads 1 --quiet --save "$tmp/g.gat"
check embed-graph-model-alone 2 '' "^gat-embed: model $tmp/g.gat records no dataset \(trained on --graph or --partitions\): give --dataset or --graph \(try --help\)$" -- \
  "$embed" --model "$tmp/g.gat" --predict "$tmp/g.tsv"
check embed-graph-model 0 '' '' -- "$embed" --model "$tmp/g.gat" "${gfiles[@]}" --predict "$tmp/g.tsv" --threads 1 --quiet
# --graph without --features: one-hot features, said in the mismatch message
check embed-graph-one-hot 1 '' "^gat-embed: dataset .*sbm.edges has [0-9]+ features per node but model .* expects [0-9]+ \(one-hot: --graph without --features; give the training --features FILE\)$" -- \
  "$embed" --model "$tmp/g.gat" --graph "$g/sbm.edges" --predict "$tmp/g.tsv"
# another dataset with the same features: its class names tell (the file records no fingerprint)
mkdir "$tmp/w/other"
sed 's/theory$/Theory_renamed/' "$tiny/tiny.content" >"$tmp/w/other/other.content"
cp "$tiny/tiny.cites" "$tmp/w/other/other.cites"
check embed-other-dataset 0 '' "^gat-embed: dataset $tmp/w/other may not be the one model $tmp/w/m.gat was trained on \($tmp/w/tiny\): its class [0-9]+ is 'Theory_renamed', the model's '" -- \
  "$embed" --model "$tmp/w/m.gat" --dataset "$tmp/w/other" --predict "$tmp/o.tsv" --threads 1 --quiet
check embed-same-dataset 0 '' '' -- "$embed" --model "$tmp/w/m.gat" --dataset "$tiny" --predict "$tmp/o.tsv" --threads 1 --quiet
[ ! -s "$tmp/err" ] && ok embed-same-dataset-no-note || badf embed-same-dataset-no-note "$tmp/err"

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

# --- signals at points the test controls
# full_fifo PATH: a FIFO held open on fd 3 by this shell, its buffer filled, so that a writer's
# open returns at once and its first write blocks
full_fifo() {
  mkfifo "$1" && exec 3<>"$1"
  dd if=/dev/zero of="$1" bs=1 count=4194304 oflag=nonblock status=none 2>/dev/null
  return 0
}
# mask_has PID FIELD SIG: signal number SIG is in PID's /proc status mask FIELD (SigCgt: caught,
# SigIgn: ignored)
mask_has() { local m; m=$(awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"); [ $(((0x$m >> ($3 - 1)) & 1)) -eq 1 ]; }

# gat-train, its model saved, blocked writing its summary line into a full pipe at exit: the
# default actions are back, so one SIGTERM ends it (the old handler let it finish: exit 0)
full_fifo "$tmp/train.fifo"
env --default-signal "$train" --dataset "$tiny" --epochs 2 --threads 1 --quiet --save "$tmp/t.gat" >"$tmp/train.fifo" 2>"$tmp/err" &
pid=$!
if wait_blocked $pid write; then
  mask_has $pid SigCgt 15 && caught=yes || caught=no
  kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc -eq 143 ] && [ $caught = no ] && [ -s "$tmp/t.gat" ] && ok train-default-after-save ||
    bad train-default-after-save "exit $rc (want 143), SIGTERM caught at exit: $caught" "$(cat "$tmp/err")"
else
  wait $pid; bad train-default-after-save "exit $? before blocking in write" "$(cat "$tmp/err")"
fi
exec 3<&-
# started with SIGINT ignored: it stays ignored (then SIGINT does nothing and SIGTERM ends it)
full_fifo "$tmp/train2.fifo"
env --default-signal bash -c 'trap "" INT; exec "$@"' - "$train" --dataset "$tiny" --epochs 2 --threads 1 --quiet >"$tmp/train2.fifo" 2>"$tmp/err" &
pid=$!
if wait_blocked $pid write; then
  mask_has $pid SigIgn 2 && ignored=yes || ignored=no
  kill -INT $pid; kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc -eq 143 ] && [ $ignored = yes ] && ok train-keeps-sigint-ignored ||
    bad train-keeps-sigint-ignored "exit $rc (want 143), SIGINT ignored: $ignored"
else
  wait $pid; bad train-keeps-sigint-ignored "exit $? before blocking in write" "$(cat "$tmp/err")"
fi
exec 3<&-

# gat-embed blocked writing --out into a full FIFO: SIGHUP ends it with 129, no file written
mkdir "$tmp/e"
full_fifo "$tmp/e/emb.fifo"
env --default-signal "$embed" --model "$tmp/m.gat" --dataset "$tiny" --out "$tmp/e/emb.fifo" --format tsv --predict "$tmp/e/p.tsv" --threads 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
if wait_blocked $pid write; then
  mask_has $pid SigCgt 1 && caught=yes || caught=no
  kill -HUP $pid
  wait $pid
  rc=$?
  [ $rc -eq 129 ] && [ $caught = yes ] && [ -p "$tmp/e/emb.fifo" ] && [ "$(ls -A "$tmp/e")" = emb.fifo ] &&
    ok embed-sighup-in-write || bad embed-sighup-in-write "exit $rc (want 129), SIGHUP caught: $caught" "$(ls -A "$tmp/e")"
else
  wait $pid; bad embed-sighup-in-write "exit $? before blocking in write" "$(cat "$tmp/err")"
fi
exec 3<&-
# started with SIGINT ignored: it stays ignored
full_fifo "$tmp/e/emb2.fifo"
env --default-signal bash -c 'trap "" INT; exec "$@"' - "$embed" --model "$tmp/m.gat" --dataset "$tiny" --out "$tmp/e/emb2.fifo" --format tsv --threads 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
if wait_blocked $pid write; then
  mask_has $pid SigIgn 2 && ignored=yes || ignored=no
  kill -INT $pid; kill -TERM $pid
  wait $pid
  rc=$?
  [ $rc -eq 143 ] && [ $ignored = yes ] && ok embed-keeps-sigint-ignored ||
    bad embed-keeps-sigint-ignored "exit $rc (want 143), SIGINT ignored: $ignored"
else
  wait $pid; bad embed-keeps-sigint-ignored "exit $? before blocking in write" "$(cat "$tmp/err")"
fi
exec 3<&-
# a write past ulimit -f: the kernel raises SIGXFSZ inside the library's write of the temporary
# file; gat-embed exits 153 (128 + 25) and the temporary file is gone (the default action killed
# the process and left it)
mkdir "$tmp/x"
check embed-sigxfsz 153 '' "^gat-embed: cannot write the embeddings: cannot write $tmp/x/e\.tsv: File too large$" -- \
  bash -c 'ulimit -f 2; exec "$@"' - "$embed" --model "$tmp/m.gat" --dataset "$tiny" --out "$tmp/x/e.tsv" --threads 1
[ -z "$(ls -A "$tmp/x")" ] && ok embed-sigxfsz-no-temporary || bad embed-sigxfsz-no-temporary "$(ls -A "$tmp/x")"

# a tool that never trains stops OpenBLAS's pool, which OpenBLAS starts as it loads (here for
# two threads, where the machine has two cores): gat-convert blocked writing into a full FIFO
# runs one thread (OpenMP starts none: OMP_NUM_THREADS=1)
full_fifo "$tmp/conv.fifo"
OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=1 "$tools/gat-convert" "$tiny" "$tmp/conv.fifo" --quiet >"$tmp/out" 2>"$tmp/err" &
pid=$!
if wait_blocked $pid write; then
  n=$(ls "/proc/$pid/task" | wc -l)
  kill -TERM $pid; wait $pid
  [ "$n" -eq 1 ] && ok convert-one-thread || bad convert-one-thread "$n threads (want 1)"
else
  wait $pid; bad convert-one-thread "exit $? before blocking in write" "$(cat "$tmp/err")"
fi
exec 3<&-

# --- options the loader would not read are refused, not ignored: on a .gatd file (stored as
# built) the graph's direction and the text readers' options, --skip-unknown-cites outside the
# Cora layout, --self-loop-fill without edge features; --directed stays valid on other files
# that are no .gatd (an .npz or JSON file was once taken for one)
convert=$tools/gat-convert partition=$tools/gat-partition
"$convert" --quiet "$tiny" "$tmp/t.gatd" || bad convert-tiny
"$train" --dataset "$tiny" --epochs 2 --threads 1 --quiet --save "$tmp/t.gat" >/dev/null || bad train-tiny
check embed-directed-gatd 2 '' "^gat-embed: --directed does not apply to dataset file .*t\.gatd: it is stored as it was built" -- "$embed" --model "$tmp/t.gat" --dataset "$tmp/t.gatd" --out "$tmp/e.tsv" --directed
check embed-undirected-gatd 2 '' '^gat-embed: --undirected does not apply to dataset file' -- "$embed" --model "$tmp/t.gat" --dataset "$tmp/t.gatd" --out "$tmp/e.tsv" --undirected
[ ! -e "$tmp/e.tsv" ] && ok embed-directed-gatd-nothing-written || bad embed-directed-gatd-nothing-written
check partition-directed-gatd 2 '' '^gat-partition: --directed does not apply to dataset file' -- "$partition" --dataset "$tmp/t.gatd" --parts 2 --out "$tmp/p" --directed
check convert-tu-features-gatd 2 '' '^gat-convert: --tu-features does not apply to dataset file' -- "$convert" "$tmp/t.gatd" "$tmp/t2.gatd" --tu-features labels
check convert-fill-gatd 2 '' '^gat-convert: --self-loop-fill does not apply to dataset file' -- "$convert" "$tmp/t.gatd" "$tmp/t2.gatd" --self-loop-fill zero
check convert-fill-no-edge-features 2 '' "^gat-convert: --self-loop-fill sets the edge features of added self-loops; .*tiny has no edge features$" -- "$convert" "$tiny" "$tmp/t2.gatd" --self-loop-fill zero
check convert-fill-edge-features 0 '' '' -- "$convert" --quiet "$data/edgefeat" "$tmp/ef.gatd" --self-loop-fill zero
check convert-skip-cites-gatd 2 '' '^gat-convert: --skip-unknown-cites does not apply to dataset file' -- "$convert" "$tmp/t.gatd" "$tmp/t3.gatd" --skip-unknown-cites
mkdir -p "$tmp/tu/toy" && toy_tu "$tmp/tu/toy" toy 6
check convert-skip-cites-tu 2 '' "^gat-convert: --skip-unknown-cites applies to a Cora-layout dataset's .cites file; .*toy is in another layout$" -- "$convert" "$tmp/tu/toy" "$tmp/t3.gatd" --skip-unknown-cites
check convert-skip-cites-cora 0 '' '' -- "$convert" --quiet "$tiny" "$tmp/t3.gatd" --skip-unknown-cites
printf '{"features": [[1, 0], [0, 1], [1, 1]], "labels": [0, 1, 0], "links": [[1], [2], []]}' >"$tmp/w.json"
check train-directed-json 0 '^test accuracy' '' -- "$train" --dataset "$tmp/w.json" --directed --epochs 1 --threads 1 --quiet --train-per-class 1 --val-size 1 --test-size 0
check embed-no-header-npy 2 '' '^gat-embed: --no-header omits the header of TSV and CSV outputs' -- "$embed" --model "$tmp/t.gat" --out "$tmp/x.npy" --no-header
check embed-no-header-tsv 0 '' '' -- "$embed" --model "$tmp/t.gat" --out "$tmp/x.tsv" --no-header --quiet
check embed-partitions-data 2 '' '^gat-embed: --partitions: --features does not apply \(the partition holds the graph and its features' -- "$embed" --model "$tmp/t.gat" --partitions "$tmp" --features "$tmp/f.txt" --out "$tmp/x.tsv"
check embed-partitions-directed 2 '' '^gat-embed: --partitions: --directed does not apply' -- "$embed" --model "$tmp/t.gat" --partitions "$tmp" --directed --out "$tmp/x.tsv"
# gat-convert --directed stores the graph directed: tiny's 10 .cites lines and 16 self-loops
# instead of 34 edges, and training on it is training on the text with --directed
check convert-directed 0 '16 nodes, 26 edges' '' -- "$convert" "$tiny" "$tmp/td.gatd" --directed
"$train" --dataset "$tmp/td.gatd" --epochs 3 --threads 1 --quiet | sed 's/, [0-9.]* s)/)/' >"$tmp/a"
"$train" --dataset "$tiny" --directed --epochs 3 --threads 1 --quiet | sed 's/, [0-9.]* s)/)/' >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok convert-directed-same-run || bad convert-directed-same-run "$(cat "$tmp/a" "$tmp/b")"
summary
