#!/usr/bin/env bash
# CLI tests of gat-bench's options (the benchmark itself is never timed here): --attention LIST
# runs every listed score in one invocation and tags its JSON lines, --residual tags them too,
# usage errors exit 2 with one line; a dataset file as a workload. Usage: test_gat_bench.sh
# GAT_BENCH GAT_SYNTH
set -u
bin=$1
synth=$2
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

quick=(--workloads synth-200 --threads 1 --epochs 2 --warmup 0 --infer 1)
check help-attention 0 '--attention LIST' '' -- "$bin" --help
check help-residual 0 '--residual' '' -- "$bin" --help
check bad-attention 2 '' "^gat-bench: --attention: unknown score function 'additive' \(expected gat, gatv2, dot" -- "$bin" --attention gat,additive
check empty-attention 2 '' '^gat-bench: --attention: expected one or more score names' -- "$bin" --attention ,
check default-gat 0 '"attention": "gat", "residual": false, "isa": "[a-z0-9]+", "layers": 2, "epochs": 2, ' '' -- "$bin" "${quick[@]}"
# every listed score, in order, once each (a repeated name runs once; case does not matter)
check three-scores 0 '"attention": "cosine", "residual": true' '' -- "$bin" "${quick[@]}" --attention gat,GATv2,cosine,gat --residual
got=$(grep -o '"attention": "[a-z0-9-]*", "residual": [a-z]*' "$tmp/out" | tr '\n' ';')
want='"attention": "gat", "residual": true;"attention": "gatv2", "residual": true;"attention": "cosine", "residual": true;'
if [ "$got" = "$want" ]; then
  ok "three-scores-json"
else
  bad "three-scores-json: $got"
fi
# the table has one row per score, with its name
if [ "$(grep -Ec '^synth-200 .* (gat|gatv2|cosine) ' "$tmp/out")" -eq 3 ]; then
  ok "three-scores-table"
else
  bad "three-scores-table"; cat "$tmp/out"
fi

# mini-batch epochs: both options or neither, one fan-out per layer, a line and a JSON record
check batch-no-fanout 2 '' '^gat-bench: --batch-size and --fanout go together' -- "$bin" --batch-size 16
check fanout-count 2 '' '^gat-bench: --fanout: 3 values for 2 layers' -- "$bin" --batch-size 16 --fanout 5,5,5
check fanout-bad 2 '' "^gat-bench: --fanout: expected F1,...,FL, each -1 or >= 0, got '5,-4'" -- "$bin" --batch-size 16 --fanout 5,-4
check minibatch 0 '"batch_size": 16, "fanout": "4,-1", "steps": 2, "block_edges_per_epoch": [0-9.e+]+' '' -- "$bin" "${quick[@]}" --batch-size 16 --fanout 4,-1
if grep -Eq 'mini-batch: 2 steps per epoch, .* drawing [0-9.]+ M edges/s' "$tmp/out"; then
  ok "minibatch-line"
else
  bad "minibatch-line"; cat "$tmp/out"
fi

# a dataset file as a workload, large enough (over 2^20 edges) that loading it runs the graph
# transpose's OpenMP loop: each run's child loads it itself (a child forked after its parent
# started an OpenMP thread pool hung in its first parallel loop); under a timeout, so a hang fails
if "$synth" --nodes 100000 --out-format binary --out "$tmp/s1e5" --quiet; then
  check file-workload 0 '"workload": "[^"]*/s1e5.gatd", "nodes": 100000, "edges": 1081746, .*"dataset_build_s": [0-9.]+' '' -- \
    timeout 300 "$bin" --workloads "$tmp/s1e5.gatd" --threads 2 --epochs 1 --warmup 0 --infer 1 --order none
else
  bad "file-workload: gat-synth failed"
fi
check missing-file 1 '' 'gat-bench: .*no-such.gatd' -- "$bin" --workloads "$tmp/no-such.gatd" --threads 1

# options no workload of the list reads: usage errors naming them, before any run
check graph-batch-no-graphs 2 '' '^gat-bench: --graph-batch: only graphs-N workloads read it, and --workloads has none$' -- "$bin" "${quick[@]}" --graph-batch 4
check graph-nodes-no-graphs 2 '' '^gat-bench: --graph-nodes: only graphs-N' -- "$bin" "${quick[@]}" --graph-nodes 8
check readout-no-graphs 2 '' '^gat-bench: --readout: only graphs-N' -- "$bin" "${quick[@]}" --readout mean
check readout-mixed 0 '"readout": "mean"' '' -- "$bin" --workloads synth-200,graphs-10 --threads 1 --epochs 1 --warmup 0 --infer 1 --readout mean
check order-graphs-only 2 '' '^gat-bench: --order: graphs-N workloads do not read it, and --workloads has no other$' -- "$bin" --workloads graphs-10 --order rcm
check batch-graphs-only 2 '' '^gat-bench: --batch-size: graphs-N workloads do not read it' -- "$bin" --workloads graphs-10 --batch-size 4 --fanout 2,2
check edge-dim-graphs 2 '' "^gat-bench: --edge-dim: workload 'graphs-10' has no edge features" -- "$bin" --workloads synth-200,graphs-10 --edge-dim 1
check edge-dim-file 2 '' "^gat-bench: --edge-dim: workload 'cora' has no edge features \(only synth-N workloads get them\)$" -- "$bin" --workloads synth-200,cora --edge-dim 2
check lookahead-no-batch 2 '' '^gat-bench: --no-lookahead: it qualifies mini-batch epochs \(--batch-size\)$' -- "$bin" "${quick[@]}" --no-lookahead
check compare-no-batch 2 '' '^gat-bench: --compare-steps: it qualifies mini-batch epochs' -- "$bin" "${quick[@]}" --compare-steps
check cli-runs-alone 2 '' '^gat-bench: --cli-runs: it counts the runs of --gat-train$' -- "$bin" "${quick[@]}" --cli-runs 2
check gat-train-synth-only 2 '' '^gat-bench: --gat-train: it runs on dataset workloads' -- "$bin" "${quick[@]}" --gat-train /bin/true

# --gat-train runs the row's model: its layers, score, node order and mini-batches
if "$synth" --nodes 300 --out-format binary --out "$tmp/s300" --quiet; then
  printf '#!/bin/sh\necho "$@" >>"%s"\n' "$tmp/args" >"$tmp/fake-train"
  chmod +x "$tmp/fake-train"
  check gat-train-row 0 '"layers": 3, "epochs": 1, .*"cli_s": [0-9.]+, ' '' -- "$bin" --workloads "$tmp/s300.gatd" --threads 1 --epochs 1 --warmup 0 --infer 1 \
    --layers 3 --attention dot --order none --batch-size 16 --fanout 4,-1,2 --gat-train "$tmp/fake-train" --cli-runs 2
  want="--dataset $tmp/s300.gatd --attention dot --quiet --threads 1 --layers 3 --order none --batch-size 16 --fanout 4,-1,2"
  if [ "$(sort -u "$tmp/args")" = "$want" ] && [ "$(wc -l <"$tmp/args")" -eq 2 ]; then
    ok "gat-train-args"
  else
    bad "gat-train-args: $(cat "$tmp/args")"
  fi
else
  bad "gat-train-row: gat-synth failed"
fi

summary
