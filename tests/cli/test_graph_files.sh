#!/usr/bin/env bash
# CLI tests of the graph-file options (--graph, --graph-format, --features, --labels, --split)
# shared by gat-train and gat-embed: exit codes (0 ok, 1 failure, 2 usage), one-line errors
# naming the file, and a train -> save -> embed round on the SBM fixture.
# Usage: test_graph_files.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR
set -u
train=$1 embed=$2 data=$3
g=$data/graphs
pass=0 fail=0
tmp=$(mktemp -d)
# only the main shell cleans up (a subshell killed by a signal may run an inherited EXIT trap)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT

# check NAME BIN WANT_EXIT STDOUT_REGEX STDERR_REGEX -- ARGS...
check() {
  local name=$1 bin=$2 want=$3 out_re=$4 err_re=$5; shift 6
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local ok=1
  [ "$rc" -eq "$want" ] || { echo "  exit $rc, want $want"; ok=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$tmp/out"; then echo "  stdout lacks /$out_re/"; ok=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$tmp/err"; then echo "  stderr lacks /$err_re/"; ok=0; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "  stderr is not one line"; ok=0; fi
  if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/    | /' "$tmp/out" "$tmp/err" | head -20; fi
}

split=(--train-per-class 5 --val-size 15 --test-size 20 --threads 1)
check train-edgelist "$train" 0 '^test accuracy: [0-9.]+%' '' -- \
  --graph "$g/sbm.edges" --features "$g/sbm.features" --labels "$g/sbm.labels" "${split[@]}" --epochs 20
check header-line "$train" 0 '^dataset .*sbm\.edges: 60 nodes, .* 6 features, 3 classes, split 15/15/20' '' -- \
  --graph "$g/sbm.edges" --features "$g/sbm.svm" --graph-format edgelist --labels "$g/sbm.labels" "${split[@]}" --epochs 2
# without --features: one-hot; the edge list never mentions node 59, so 59 nodes
check one-hot-features "$train" 0 ': 59 nodes, .* 59 features, 3 classes' '' -- \
  --graph "$g/sbm.edges" --labels "$g/sbm.labels" "${split[@]}" --epochs 2 --log-every 100
printf '0 train\n1 val\n2 test\n20 train\n21 val\n22 test\n40 train\n41 val\n42 test\n' >"$tmp/split"
check split-file "$train" 0 'split 3/3/3' '' -- \
  --graph "$g/sbm.edges" --features "$g/sbm.features" --labels "$g/sbm.labels" --split "$tmp/split" --epochs 2 --threads 1

check graph-and-dataset "$train" 2 '' '--dataset and --graph exclude each other' -- --dataset cora --graph "$g/sbm.edges" --labels "$g/sbm.labels"
check features-alone "$train" 2 '' '--features needs --graph' -- --features "$g/sbm.features"
check no-labels "$train" 2 '' 'training on --graph needs --labels' -- --graph "$g/sbm.edges"
check bad-format "$train" 2 '' "--graph-format: unknown graph format 'csv'" -- --graph "$g/sbm.edges" --graph-format csv --labels "$g/sbm.labels"
check unknown-extension "$train" 1 '' 'cannot tell the graph format of .*sbm\.labels' -- --graph "$g/sbm.labels" --labels "$g/sbm.labels"
check missing-graph "$train" 1 '' 'cannot open /nonexistent/g\.edges: No such file' -- --graph /nonexistent/g.edges --labels "$g/sbm.labels"
printf '0 1\n1 x\n' >"$tmp/bad.edges"
check igraph-parse-error "$train" 1 '' 'bad\.edges: igraph cannot read it as edgelist: .*Parse error' -- --graph "$tmp/bad.edges" --labels "$g/sbm.labels"
sed 's/^7 .*/7 1 2 3 inf 5 6/' "$g/sbm.features" >"$tmp/inf.features"
check bad-feature "$train" 1 '' 'inf\.features:9:[0-9]+: field 5 of node .7. is not finite' -- \
  --graph "$g/sbm.edges" --features "$tmp/inf.features" --labels "$g/sbm.labels"
printf '0 c0\nzz c1\n' >"$tmp/labels"
check unknown-label-node "$train" 1 '' 'labels:2:1: unknown node id .zz. \(not a vertex of .*sbm\.edges\)' -- \
  --graph "$g/sbm.edges" --labels "$tmp/labels"

# train -> save -> embed on the graph file
check save "$train" 0 'saved the model' '' -- --graph "$g/sbm.edges" --features "$g/sbm.features" \
  --labels "$g/sbm.labels" "${split[@]}" --epochs 10 --save "$tmp/sbm.gat"
check embed-graph "$embed" 0 'wrote .*emb\.tsv: 60 x 64' '' -- --model "$tmp/sbm.gat" --graph "$g/sbm.edges" \
  --features "$g/sbm.features" --out "$tmp/emb.tsv" --threads 1
if [ -f "$tmp/emb.tsv" ] && [ "$(wc -l <"$tmp/emb.tsv")" -eq 61 ] && [ "$(sed -n 61p "$tmp/emb.tsv" | cut -f1)" = 59 ]; then
  pass=$((pass + 1)); echo "ok   embed-rows"
else
  fail=$((fail + 1)); echo "FAIL embed-rows"
fi
check embed-no-data "$embed" 2 '' 'give --dataset or --graph' -- --model "$tmp/sbm.gat" --out "$tmp/e.tsv"
check embed-feature-width "$embed" 1 '' 'has 59 features per node but model .* expects 6' -- --model "$tmp/sbm.gat" \
  --graph "$g/sbm.edges" --out "$tmp/e2.tsv"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
