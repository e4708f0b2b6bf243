#!/usr/bin/env bash
# CLI tests of the multi-label node task (issue 37): gat-synth --graphs (both kinds, the summary,
# the same files for a seed and different ones for another, usage errors) and gat-train --task
# multilabel on its output (micro-F1 reports, a saved model, batches of graphs with --graph-batch,
# the task checked against the data).
# Usage: test_multilabel_cli.sh GAT_TRAIN GAT_SYNTH TESTDATA_DIR
set -u
train=$1 synth=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check synth-multilabel 0 '^gat-synth: 6 graphs, [0-9]+ nodes, [0-9]+ edges with self-loops, 12 features, 7 labels per node, 4/1/1 graphs train/val/test: [0-9.]+ s \(.*/ml\.gatd\)$' '' -- "$synth" --out "$tmp/ml" --graphs 6 --nodes 40 --node-labels 7 --feature-dim 12 --seed 3
check synth-again 0 '' '' -- "$synth" --out "$tmp/ml2" --graphs 6 --nodes 40 --node-labels 7 --feature-dim 12 --seed 3 --quiet
cmp -s "$tmp/ml.gatd" "$tmp/ml2.gatd" && ok synth-same-seed-same-file || bad synth-same-seed-same-file
"$synth" --out "$tmp/ml3" --graphs 6 --nodes 40 --node-labels 7 --feature-dim 12 --seed 4 --quiet
cmp -s "$tmp/ml.gatd" "$tmp/ml3.gatd" && bad synth-other-seed-other-file || ok synth-other-seed-other-file
check synth-graph-kind 0 '^gat-synth: 30 graphs, [0-9]+ nodes, [0-9]+ edges with self-loops, 5 features, 3 graph classes' '' -- "$synth" --out "$tmp/gc" --graphs 30 --nodes 12 --classes 3 --feature-dim 5
check synth-split 0 '3/2/1 graphs train/val/test' '' -- "$synth" --out "$tmp/sp" --graphs 6 --nodes 10 --node-labels 2 --graph-split 3,2,1
check synth-bad-split 2 '' "--graph-split '3,2': expected A,B,C" -- "$synth" --out "$tmp/x" --graphs 6 --node-labels 2 --graph-split 3,2
check synth-split-sum 2 '' 'A \+ B \+ C = --graphs \(6\)' -- "$synth" --out "$tmp/x" --graphs 6 --node-labels 2 --graph-split 3,2,2
check synth-labels-alone 2 '' '^gat-synth: --node-labels needs --graphs$' -- "$synth" --out "$tmp/x" --node-labels 3
# the options a mode does not read are refused, not ignored
check synth-graphs-dense 2 '' '^gat-synth: --dense does not apply to --graphs \(one .gatd file of many graphs' -- "$synth" --out "$tmp/x" --graphs 6 --dense
check synth-graphs-format 2 '' '^gat-synth: --out-format does not apply to --graphs' -- "$synth" --out "$tmp/x" --graphs 6 --out-format text
check synth-graphs-edge-dim 2 '' '^gat-synth: --edge-dim does not apply to --graphs' -- "$synth" --out "$tmp/x" --graphs 6 --edge-dim 3
check synth-split-no-labels 2 '' '^gat-synth: --graph-split needs --node-labels' -- "$synth" --out "$tmp/x" --graphs 6 --graph-split 3,2,1
check synth-classes-labels 2 '' '^gat-synth: --classes does not apply to --node-labels' -- "$synth" --out "$tmp/x" --graphs 6 --node-labels 2 --classes 4
check synth-types-alone 2 '' '^gat-synth: --types needs --graphs$' -- "$synth" --out "$tmp/x" --types 5
check synth-plain-binary 2 '' '^gat-synth: --plain applies to the text files' -- "$synth" --out "$tmp/x" --out-format binary --plain
check synth-density-dense 2 '' '^gat-synth: --density applies to sparse features, not --dense$' -- "$synth" --out "$tmp/x" --dense --density 0.5
check synth-noise-no-edges 2 '' '^gat-synth: --edge-noise needs --edge-dim D > 0$' -- "$synth" --out "$tmp/x" --edge-noise 0.5
[ ! -e "$tmp/x.gatd" ] && [ ! -e "$tmp/x.cites" ] && ok synth-refused-nothing-written || bad synth-refused-nothing-written
check synth-graphs-classes 0 '6 graphs, .* 4 graph classes' '' -- "$synth" --out "$tmp/gc" --graphs 6 --nodes 10 --classes 4
[ ! -e "$tmp/x.gatd" ] && ok no-output-on-usage-error || bad no-output-on-usage-error

check train-multilabel 0 'test micro-F1: [0-9.]+%  \(best epoch' '' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --epochs 4 --threads 1 --dropout 0 --save "$tmp/ml.gat"
grep -q '^dataset .*ml\.gatd: 6 graphs, [0-9]* nodes, .* 7 labels per node, split ' "$tmp/out" && ok train-summary || badf train-summary "$tmp/out"
grep -qE '^epoch +1  train loss [0-9.]+ F1 +[0-9.]+%  val loss [0-9.]+ F1 ' "$tmp/out" && ok train-epoch-line || badf train-epoch-line "$tmp/out"
[ -s "$tmp/ml.gat" ] && ok train-saved-model || bad train-saved-model
# the same run twice: the same figures (one thread or two)
"$train" --dataset "$tmp/ml.gatd" --task multilabel --epochs 4 --threads 1 --quiet >"$tmp/a" 2>&1
"$train" --dataset "$tmp/ml.gatd" --task multilabel --epochs 4 --threads 2 --quiet >"$tmp/b" 2>&1
sed -E 's/, [0-9.]+ s\)/)/' "$tmp/a" >"$tmp/a2"; sed -E 's/, [0-9.]+ s\)/)/' "$tmp/b" >"$tmp/b2"
cmp -s "$tmp/a2" "$tmp/b2" && grep -q micro-F1 "$tmp/a2" && ok train-threads-same || badf train-threads-same "$tmp/a" "$tmp/b"

# --graph-batch 2: steps on two whole training graphs (the GAT paper's PPI setup), the same
# figures on 1 and 2 threads, other figures than the full-graph steps; a plain node task refuses it
check train-graph-batch 0 'test micro-F1: [0-9.]+%  \(best epoch' '' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --graph-batch 2 --epochs 3 --threads 1 --dropout 0
"$train" --dataset "$tmp/ml.gatd" --task multilabel --graph-batch 2 --epochs 3 --threads 2 --dropout 0 --quiet >"$tmp/c" 2>&1
"$train" --dataset "$tmp/ml.gatd" --task multilabel --graph-batch 2 --epochs 3 --threads 1 --dropout 0 --quiet >"$tmp/d" 2>&1
sed -E 's/, [0-9.]+ s\)/)/' "$tmp/c" >"$tmp/c2"; sed -E 's/, [0-9.]+ s\)/)/' "$tmp/d" >"$tmp/d2"
cmp -s "$tmp/c2" "$tmp/d2" && grep -q micro-F1 "$tmp/c2" && ok graph-batch-threads-same || badf graph-batch-threads-same "$tmp/c" "$tmp/d"
! cmp -s "$tmp/a2" "$tmp/d2" && ok graph-batch-differs-from-full || badf graph-batch-differs-from-full "$tmp/a2" "$tmp/d2"
check graph-batch-node-task 2 '' '^gat-train: --graph-batch needs --task graph or multilabel' -- "$train" --dataset "$data/tiny" --graph-batch 2 --epochs 1
# Laplacian encodings flip their signs during training, where these figures are measured: refused
check graph-batch-pe-lap 2 '' '^gat-train: --pe lap:2 with --graph-batch: not supported' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --graph-batch 2 --pe lap:2 --epochs 1
check graph-batch-pe-rw 0 'test micro-F1' '' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --graph-batch 2 --pe rw:3 --epochs 2 --threads 1

check task-node-on-multilabel 1 '' 'has multi-hot node labels: train it with --task multilabel' -- "$train" --dataset "$tmp/ml.gatd" --epochs 2
check task-multilabel-on-classes 1 '' '--task multilabel: dataset .* has one class per node' -- "$train" --dataset "$data/tiny" --task multilabel --epochs 2
check task-unknown 2 '' "--task: unknown task 'edge'" -- "$train" --dataset "$tmp/ml.gatd" --task edge
check task-no-minibatch 2 '' 'excludes --batch-size' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --batch-size 4 --fanout 2,2
check task-multilabel-no-auc 2 '' '^gat-train: --metric auc: --task multilabel follows the validation micro-F1 \(acc\) or loss$' -- "$train" --dataset "$tmp/ml.gatd" --task multilabel --metric auc
summary
