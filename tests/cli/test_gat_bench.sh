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
check default-gat 0 '"attention": "gat", "residual": false, "isa": "[a-z0-9]+"' '' -- "$bin" "${quick[@]}"
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

summary
