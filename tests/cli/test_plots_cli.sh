#!/usr/bin/env bash
# CLI tests of the pictures (gnuplot): gat-train --plot (one run, --runs, .svg, --plot-size) and
# gat-embed --plot (PCA of embeddings) and --plot-attention (entropy histograms). Every PNG is
# opened by png_check.py: signature, chunk CRCs, the requested size in IHDR, IDAT inflating to
# the size's bytes. Exits 77 (skipped) without gnuplot or python3: CI installs both
# (tools/install-deps.sh).
# Usage: test_plots_cli.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR PNG_CHECK
set -u
bin=$1 embed=$2 data=$3 png_check=$4
command -v gnuplot >/dev/null || { echo "skip: no gnuplot on PATH (apt-get install gnuplot-nox)"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "skip: no /usr/bin/python3"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tiny="$data/tiny"

# run NAME PROGRAM ARGS...: exit 0 and nothing on stderr
run() {
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then ok "$name"; else bad "$name" "$(cat "$tmp/out" "$tmp/err" | head -10)"; fi
}
# png NAME FILE WIDTH HEIGHT
png() {
  local msg
  if msg=$(/usr/bin/python3 "$png_check" "$2" "$3" "$4"); then ok "$1 (${3}x$4)"; else bad "$1" "$msg"; fi
}

run train-plot "$bin" --dataset "$tiny" --epochs 30 --threads 1 --plot "$tmp/curves.png" --save "$tmp/m.gat"
grep -q "^wrote $tmp/curves.png: 640x400$" "$tmp/out" && ok train-plot-said || bad train-plot-said "$(cat "$tmp/out")"
png train-plot-png "$tmp/curves.png" 640 400
run train-plot-runs "$bin" --dataset "$tiny" --epochs 20 --runs 3 --threads 1 --quiet --plot "$tmp/runs.png" --plot-size 500x350
png train-plot-runs-png "$tmp/runs.png" 500 350
run train-plot-svg "$bin" --dataset "$tiny" --epochs 10 --threads 1 --quiet --plot "$tmp/curves.SVG" --plot-size 800x300
grep -q '<svg' "$tmp/curves.SVG" && grep -Eq 'width="800(px)?" height="300(px)?"' "$tmp/curves.SVG" &&
  ok train-plot-svg-size || bad train-plot-svg-size "$(head -c 400 "$tmp/curves.SVG")"
# --eval-every 3: the validation curve (red, #d62728) joins epochs 3, 6, 9 and 12 (NaN rows between
# them once broke it into dots): its path has three line segments beside the key's sample
for runs in 1 2; do
  run "train-plot-eval-every-$runs" "$bin" --dataset "$tiny" --layers 2 --epochs 12 --runs $runs --eval-every 3 --threads 1 --quiet --plot "$tmp/every.svg"
  n=$(grep -E "stroke='rgb\(214, *39, *40\)' +d=" "$tmp/every.svg" | head -1 | grep -o ' L' | wc -l)
  [ "$n" -eq 4 ] && ok "train-plot-eval-every-$runs-joined" || bad "train-plot-eval-every-$runs-joined" "$n line segments in the first validation path"
done
# replacing a picture keeps no temporary file beside it
run train-plot-again "$bin" --dataset "$tiny" --epochs 5 --threads 1 --quiet --plot "$tmp/curves.png"
png train-plot-again-png "$tmp/curves.png" 640 400
ls -A "$tmp" | grep -q '\.tmp-' && bad no-temporary-files "$(ls -A "$tmp")" || ok no-temporary-files

run embed-plots "$embed" --model "$tmp/m.gat" --dataset "$tiny" --threads 1 --plot "$tmp/pca.png" --plot-attention "$tmp/entropy.png"
grep -q "^wrote $tmp/pca.png: 640x400$" "$tmp/out" && grep -q "^wrote $tmp/entropy.png: 640x400$" "$tmp/out" &&
  ok embed-plots-said || bad embed-plots-said "$(cat "$tmp/out")"
png embed-pca-png "$tmp/pca.png" 640 400
png embed-entropy-png "$tmp/entropy.png" 640 400
run embed-plot-logits "$embed" --model "$tmp/m.gat" --dataset "$tiny" --threads 1 --quiet --layer logits --plot "$tmp/logits.png" --plot-size 320x240
png embed-plot-logits-png "$tmp/logits.png" 320 240
# a deeper model: one entropy panel per layer
run train-deep "$bin" --dataset "$tiny" --layers 3 --epochs 3 --threads 1 --quiet --save "$tmp/deep.gat"
run embed-attention-deep "$embed" --model "$tmp/deep.gat" --dataset "$tiny" --threads 1 --quiet --plot-attention "$tmp/deep.png" --plot-size 900x300
png embed-attention-deep-png "$tmp/deep.png" 900 300
ls -A "$tmp" | grep -q '\.tmp-' && bad no-temporary-files-embed "$(ls -A "$tmp")" || ok no-temporary-files-embed

# a graph without labels: the points take the model's predicted classes (said in the title)
g="$data/graphs"
run train-sbm "$bin" --graph "$g/sbm.edges" --features "$g/sbm.features" --labels "$g/sbm.labels" --epochs 5 --threads 1 --quiet --save "$tmp/sbm.gat"
run embed-unlabelled "$embed" --model "$tmp/sbm.gat" --graph "$g/sbm.edges" --features "$g/sbm.features" --threads 1 --quiet --plot "$tmp/sbm.svg"
grep -q 'layer 0 of sbm.edges (64-d), PCA to 2-D; colour: predicted class' "$tmp/sbm.svg" &&
  ok embed-unlabelled-title || bad embed-unlabelled-title "$(grep -o 'layer 0 of[^<]*' "$tmp/sbm.svg")"

# the checker itself refuses a broken file: a flipped byte inside IDAT, a wrong size
cp "$tmp/pca.png" "$tmp/broken.png"
printf '\x00' | dd of="$tmp/broken.png" bs=1 seek=200 conv=notrunc status=none
/usr/bin/python3 "$png_check" "$tmp/broken.png" 640 400 >/dev/null && bad checker-crc || ok checker-crc
/usr/bin/python3 "$png_check" "$tmp/pca.png" 640 401 >/dev/null && bad checker-size || ok checker-size

summary
