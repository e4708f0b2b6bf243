#!/usr/bin/env bash
# CLI tests of edge features in the attention score (issue 16): gat-train --edge-features on a
# gat-synth dataset with edge feature columns (text and .gatd), the model file's edge_dim,
# gat-embed with the dataset's edge features, gatv2's edge term, and the failures: --edge-features
# without edge features, a score without an edge term, a model with edge_dim 3 on data with 0 or 2 columns (both numbers).
# Usage: test_edge_features.sh GAT_TRAIN GAT_EMBED GAT_SYNTH
set -u
train=$1 embed=$2 synth=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bad() { badf "$1"; shift; [ $# -gt 0 ] && sed 's/^/    | /' "$@" | head -20; }

strip() { grep -E '^(epoch|run|test accuracy)' "$1" | sed -E 's/ +[0-9.]+ s\b//g; s/[0-9.]+ ms\/epoch//; s/\(best epoch ([0-9]+), [0-9.]+ s\)/(best epoch \1)/'; }

"$synth" --out "$tmp/e3" --nodes 600 --seed 5 --edge-dim 3 --quiet --plain
"$synth" --out "$tmp/e3" --nodes 600 --seed 5 --edge-dim 3 --out-format binary --quiet
"$synth" --out "$tmp/e2" --nodes 600 --seed 5 --edge-dim 2 --quiet --plain
"$synth" --out "$tmp/e0" --nodes 600 --seed 5 --quiet --plain

check help 0 '--edge-features' '' -- "$train" --help
check train-edges 0 '^test accuracy' '' -- "$train" --dataset "$tmp/e3" --edge-features --epochs 5 --seed 1 --threads 1 --save "$tmp/e3.gat"
[ ! -s "$tmp/err" ] && ok train-edges-no-note || badf train-edges-no-note "$tmp/err"
cp "$tmp/out" "$tmp/text.out"
grep -q '"edge_dim":"3"' "$tmp/e3.gat" && ok model-edge-dim || badf model-edge-dim
grep -q 'layer1.att_edge' "$tmp/e3.gat" && ok model-edge-tensors || badf model-edge-tensors
check train-edges-binary 0 '^test accuracy' '' -- "$train" --dataset "$tmp/e3.gatd" --edge-features --epochs 5 --seed 1 --threads 1
strip "$tmp/text.out" >"$tmp/a"
strip "$tmp/out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok train-edges-same-binary || badf train-edges-same-binary "$tmp/a" "$tmp/b"
# the edge term changes the training: the same seed without the flag differs
check train-plain 0 '^test accuracy' 'has 3 edge feature columns: read, not used \(--edge-features' -- "$train" --dataset "$tmp/e3" --epochs 5 --seed 1 --threads 1
strip "$tmp/out" >"$tmp/c"
! cmp -s "$tmp/a" "$tmp/c" && ok train-edges-differ || badf train-edges-differ "$tmp/a" "$tmp/c"

check train-no-edges 1 '' '^gat-train: --edge-features: dataset .*e0 has no edge feature columns' -- "$train" --dataset "$tmp/e0" --edge-features --epochs 1
check train-dot 2 '' 'edge_dim 3 needs the gat or gatv2 score: the dot score has no edge term' -- "$train" --dataset "$tmp/e3" --edge-features --attention dot --epochs 1
check train-gatv2 0 '^test accuracy' '' -- "$train" --dataset "$tmp/e3" --edge-features --attention gatv2 --epochs 3 --seed 1 --threads 1 --save "$tmp/v2.gat"
grep -q 'layer1.weight_edge' "$tmp/v2.gat" && ! grep -q 'att_edge' "$tmp/v2.gat" && ok gatv2-edge-tensors || badf gatv2-edge-tensors
check embed-gatv2 0 '' '' -- "$embed" --model "$tmp/v2.gat" --dataset "$tmp/e3.gatd" --out "$tmp/v2.tsv" --threads 1

check embed-edges 0 '^wrote .*emb\.tsv' '' -- "$embed" --model "$tmp/e3.gat" --dataset "$tmp/e3" --out "$tmp/emb.tsv" --threads 1
[ ! -s "$tmp/err" ] && ok embed-edges-no-note || badf embed-edges-no-note "$tmp/err"
check embed-edges-binary 0 '' '' -- "$embed" --model "$tmp/e3.gat" --dataset "$tmp/e3.gatd" --out "$tmp/emb2.tsv" --threads 1
cmp -s "$tmp/emb.tsv" "$tmp/emb2.tsv" && ok embed-same-binary || badf embed-same-binary
check embed-attention 0 '^wrote .*att\.tsv' '' -- "$embed" --model "$tmp/e3.gat" --dataset "$tmp/e3" --attention-out "$tmp/att.tsv" --predict "$tmp/pred.tsv" --threads 1
check embed-missing 1 '' '^gat-embed: model .*e3\.gat was trained with edge_dim 3 but dataset .*e0 has 0 edge feature columns$' -- "$embed" --model "$tmp/e3.gat" --dataset "$tmp/e0" --out "$tmp/x.tsv"
check embed-other-d 1 '' '^gat-embed: model .*e3\.gat was trained with edge_dim 3 but dataset .*e2 has 2 edge feature columns$' -- "$embed" --model "$tmp/e3.gat" --dataset "$tmp/e2" --out "$tmp/x.tsv"
[ ! -e "$tmp/x.tsv" ] && ok embed-no-output || badf embed-no-output
# a model without edge features on data with them: the note, and the output
check train-plain-save 0 '' '' -- "$train" --dataset "$tmp/e0" --epochs 2 --seed 1 --threads 1 --quiet --save "$tmp/e0.gat"
check embed-plain-note 0 '' 'e3 has 3 edge feature columns: read, not used \(model .*e0\.gat was trained without edge features\)' -- "$embed" --model "$tmp/e0.gat" --dataset "$tmp/e3" --out "$tmp/y.tsv" --threads 1

# mini-batches with edge features: every neighbour in one batch of all training nodes trains as
# the full graph does (dropout off: the same losses to the printed digits), sampled batches train
# and save a model gat-embed uses
"$train" --dataset "$tmp/e3" --edge-features --epochs 15 --seed 2 --threads 1 --dropout 0 --quiet --metrics "$tmp/full.csv" >/dev/null 2>&1
"$train" --dataset "$tmp/e3" --edge-features --epochs 15 --seed 2 --threads 1 --dropout 0 --quiet --metrics "$tmp/mb.csv" --batch-size 100000 --fanout -1,-1 >/dev/null 2>&1
if [ -s "$tmp/full.csv" ] && [ -s "$tmp/mb.csv" ] &&
   python3 - "$tmp/full.csv" "$tmp/mb.csv" <<'PY'
import csv, sys
a = list(csv.DictReader(open(sys.argv[1]))); b = list(csv.DictReader(open(sys.argv[2])))
assert len(a) == len(b) == 15, (len(a), len(b))
for x, y in zip(a, b):
    for k in ("train_loss", "val_loss"):
        assert abs(float(x[k]) - float(y[k])) <= 1e-5 * abs(float(x[k])), (x["epoch"], k, x[k], y[k])
PY
then ok minibatch-edges-full; else badf minibatch-edges-full; fi
check minibatch-edges 0 '^test accuracy' '' -- "$train" --dataset "$tmp/e3" --edge-features --epochs 5 --seed 1 --threads 1 --batch-size 16 --fanout 4,4 --save "$tmp/mb.gat"
check minibatch-edges-embed 0 '' '' -- "$embed" --model "$tmp/mb.gat" --dataset "$tmp/e3" --predict "$tmp/mb.tsv" --threads 1

# edge features from GraphML edge attributes (--edge-attributes) and the self-loop fill
g="$(cd "$(dirname "$0")/../data/edgefeat" && pwd)/eattr.graphml"
printf 'n0 a\nn1 b\nn2 a\nn3 b\n' >"$tmp/g.labels"
printf 'n0 train\nn1 train\nn2 val\nn3 test\n' >"$tmp/g.split"
gl=(--graph "$g" --labels "$tmp/g.labels" --split "$tmp/g.split")
check graphml-edges 0 '^test accuracy' '' -- "$train" "${gl[@]}" --edge-attributes t,w --edge-features --epochs 3 --threads 1 --quiet
check graphml-edges-unknown 1 '' "edge attribute 'nope' does not exist" -- "$train" "${gl[@]}" --edge-attributes t,nope --edge-features --epochs 3
check graphml-edges-empty-name 2 '' "--edge-attributes: expected NAME\[,NAME...\] .*got 't,,w'" -- "$train" "${gl[@]}" --edge-attributes t,,w
check edge-attributes-no-graph 2 '' '--edge-attributes needs --graph' -- "$train" --dataset "$tmp/e3" --edge-attributes w
check self-loop-fill-bad 2 '' "--self-loop-fill: expected mean or zero, got 'one'" -- "$train" --dataset "$tmp/e3" --self-loop-fill one
check self-loop-fill-zero 0 '^test accuracy' '' -- "$train" --dataset "$tmp/e3" --edge-features --self-loop-fill zero --epochs 3 --seed 1 --threads 1 --quiet

# edge-list and ncol files with edge feature columns "a b w1 ... wD"
gd="$(cd "$(dirname "$0")/../data/graphs" && pwd)"
awk '{ print $1, $2, ($1 + $2) % 3, 0.5 }' "$gd/sbm.edges" >"$tmp/w.edges"
awk '{ print "v" $1, "v" $2, ($1 + $2) % 3, 0.5 }' "$gd/sbm.edges" >"$tmp/w.ncol"
sed 's/^\([0-9]\)/v\1/' "$gd/sbm.labels" >"$tmp/v.labels"
sed 's/^\([0-9]\)/v\1/' "$gd/sbm.features" >"$tmp/v.features"
el=(--graph "$tmp/w.edges" --features "$gd/sbm.features" --labels "$gd/sbm.labels")
check edgelist-columns 0 '^test accuracy' '' -- "$train" "${el[@]}" --edge-features --epochs 3 --threads 1 --quiet
check ncol-columns 0 '^test accuracy' '' -- "$train" --graph "$tmp/w.ncol" --features "$tmp/v.features" --labels "$tmp/v.labels" --edge-features --epochs 3 --threads 1 --quiet
check edgelist-columns-note 0 '' 'has 2 edge feature columns' -- "$train" "${el[@]}" --epochs 2 --threads 1
{ head -n 4 "$tmp/w.edges"; echo "3 9 1"; tail -n +5 "$tmp/w.edges"; } >"$tmp/short.edges"
check edgelist-short-line 1 '' 'short\.edges:5: 3 fields, expected 4 as on the first line' -- "$train" --graph "$tmp/short.edges" --features "$gd/sbm.features" --labels "$gd/sbm.labels" --epochs 2
{ head -n 2 "$tmp/w.edges"; echo "3 9 x 1"; tail -n +3 "$tmp/w.edges"; } >"$tmp/word.edges"
check edgelist-word 1 '' "word\.edges:3:5: edge feature 1 is not a number: 'x'" -- "$train" --graph "$tmp/word.edges" --features "$gd/sbm.features" --labels "$gd/sbm.labels" --epochs 2
{ head -n 2 "$tmp/w.edges"; echo "3 9 1 nan"; tail -n +3 "$tmp/w.edges"; } >"$tmp/nan.edges"
check edgelist-nan 1 '' "nan\.edges:3:7: edge feature 2 is not finite: 'nan'" -- "$train" --graph "$tmp/nan.edges" --features "$gd/sbm.features" --labels "$gd/sbm.labels" --epochs 2

summary
