#!/usr/bin/env bash
# CLI tests of the graph-file options (--graph, --graph-format, --features, --labels, --split)
# and of the inputs users bring (ncol node order and the .npy ids file, names in an edge list,
# a .cites line naming an unknown paper)
# shared by gat-train and gat-embed: exit codes (0 ok, 1 failure, 2 usage), one-line errors
# naming the file, and a train -> save -> embed round on the SBM fixture.
# Usage: test_graph_files.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR GAT_CONVERT
set -u
train=$1 embed=$2 data=$3 convert=$4
g=$data/graphs
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

split=(--train-per-class 5 --val-size 15 --test-size 20 --threads 1)
check train-edgelist 0 '^test accuracy: [0-9.]+%' '' -- "$train" \
  --graph "$g/sbm.edges" --features "$g/sbm.features" --labels "$g/sbm.labels" "${split[@]}" --epochs 20
check header-line 0 '^dataset .*sbm\.edges: 60 nodes, .* 6 features, 3 classes, split 15/15/20' '' -- "$train" \
  --graph "$g/sbm.edges" --features "$g/sbm.svm" --graph-format edgelist --labels "$g/sbm.labels" "${split[@]}" --epochs 2
# without --features: one-hot; the edge list never mentions node 59, so 59 nodes
check one-hot-features 0 ': 59 nodes, .* 59 features, 3 classes' '' -- "$train" \
  --graph "$g/sbm.edges" --labels "$g/sbm.labels" "${split[@]}" --epochs 2 --log-every 100
printf '0 train\n1 val\n2 test\n20 train\n21 val\n22 test\n40 train\n41 val\n42 test\n' >"$tmp/split"
check split-file 0 'split 3/3/3' '' -- "$train" \
  --graph "$g/sbm.edges" --features "$g/sbm.features" --labels "$g/sbm.labels" --split "$tmp/split" --epochs 2 --threads 1

check graph-and-dataset 2 '' '^gat-train: --dataset and --graph exclude each other \(try --help\)$' -- "$train" --dataset cora --graph "$g/sbm.edges" --labels "$g/sbm.labels"
check features-alone 2 '' '^gat-train: --features needs --graph \(try --help\)$' -- "$train" --features "$g/sbm.features"
check no-labels 2 '' '^gat-train: training on --graph needs --labels or --label-attribute \(try --help\)$' -- "$train" --graph "$g/sbm.edges"
check bad-format 2 '' "^gat-train: --graph-format: unknown graph format 'xls' \(expected auto, edgelist, ncol, lgl, graphml, gml, pajek, dimacs or csv\)$" -- "$train" --graph "$g/sbm.edges" --graph-format xls --labels "$g/sbm.labels"
check unknown-extension 1 '' "^gat-train: cannot read the dataset: cannot tell the graph format of $g/sbm\.labels from its extension; name it \(edgelist, ncol, csv, lgl, graphml, gml, pajek or dimacs\)$" -- "$train" --graph "$g/sbm.labels" --labels "$g/sbm.labels"
check missing-graph 1 '' '^gat-train: cannot read the dataset: cannot open /nonexistent/g\.edges: No such file or directory$' -- "$train" --graph /nonexistent/g.edges --labels "$g/sbm.labels"
printf '0 1\n1 2 3\n' >"$tmp/bad.edges"
check edge-table-fields 1 '' "^gat-train: cannot read the dataset: $tmp/bad\.edges:2: 3 fields, expected 2 as on the first line \(two nodes and the same 0 edge feature columns on every line\)$" -- "$train" --graph "$tmp/bad.edges" --labels "$g/sbm.labels"
printf '<graphml><graph edgedefault="undirected"><node id="a"/></graph></graphml>' >"$tmp/bad.graphml"
printf 'graph [\n node [ id 0 ]\n edge [ source 0 target 9 ]\n]\n' >"$tmp/bad.gml"
check igraph-parse-error 1 '' "^gat-train: cannot read the dataset: $tmp/bad\.gml: igraph cannot read it as gml: .*\(igraph: Parse error\)$" -- "$train" --graph "$tmp/bad.gml" --labels "$g/sbm.labels"
sed 's/^7 .*/7 1 2 3 inf 5 6/' "$g/sbm.features" >"$tmp/inf.features"
check bad-feature 1 '' "^gat-train: cannot read the dataset: $tmp/inf\.features:9:9: field 5 of node '7' is not finite: 'inf'$" -- "$train" \
  --graph "$g/sbm.edges" --features "$tmp/inf.features" --labels "$g/sbm.labels"
printf '0 c0\nzz c1\n' >"$tmp/labels"
check unknown-label-node 1 '' "^gat-train: cannot read the dataset: $tmp/labels:2:1: unknown node id 'zz' \(not a vertex of $g/sbm\.edges\)$" -- "$train" \
  --graph "$g/sbm.edges" --labels "$tmp/labels"

# train -> save -> embed on the graph file
check save 0 'saved the model' '' -- "$train" --graph "$g/sbm.edges" --features "$g/sbm.features" \
  --labels "$g/sbm.labels" "${split[@]}" --epochs 10 --save "$tmp/sbm.gat"
check embed-graph 0 'wrote .*emb\.tsv: 60 x 64' '' -- "$embed" --model "$tmp/sbm.gat" --graph "$g/sbm.edges" \
  --features "$g/sbm.features" --out "$tmp/emb.tsv" --threads 1
if [ -f "$tmp/emb.tsv" ] && [ "$(wc -l <"$tmp/emb.tsv")" -eq 61 ] && [ "$(sed -n 61p "$tmp/emb.tsv" | cut -f1)" = 59 ]; then
  ok "embed-rows"
else
  bad "embed-rows"
fi
check embed-no-data 2 '' "^gat-embed: model $tmp/sbm\.gat records no dataset \(trained on --graph or --partitions\): give --dataset or --graph \(try --help\)$" -- "$embed" --model "$tmp/sbm.gat" --out "$tmp/e.tsv"
check embed-feature-width 1 '' "^gat-embed: dataset $g/sbm\.edges has 59 features per node but model $tmp/sbm\.gat expects 6 \(one-hot: --graph without --features; give the training --features FILE\)$" -- "$embed" --model "$tmp/sbm.gat" \
  --graph "$g/sbm.edges" --out "$tmp/e2.tsv"

# ncol names its vertices by first appearance in the edges: with --features, the nodes (rows of
# every output) follow the features file's lines instead; a .npy gets its row ids beside it
tac "$g/sbm.edges" | awk '{ print "n" $1, "n" $2 }' >"$tmp/sbm.ncol"
awk '/^#/ { next } { $1 = "n" $1; print }' "$g/sbm.features" >"$tmp/n.features"
awk '{ $1 = "n" $1; print }' "$g/sbm.labels" >"$tmp/n.labels"
check ncol-save 0 'saved the model' '' -- "$train" --graph "$tmp/sbm.ncol" --features "$tmp/n.features" \
  --labels "$tmp/n.labels" "${split[@]}" --epochs 3 --save "$tmp/n.gat"
check ncol-embed-npy 0 "^wrote $tmp/e\.npy: 60 x 64 \(layer 0, npy\); row ids in $tmp/e\.ids\.txt$" '' -- "$embed" \
  --model "$tmp/n.gat" --graph "$tmp/sbm.ncol" --features "$tmp/n.features" --out "$tmp/e.npy" --predict "$tmp/p.tsv" --threads 1
cut -d' ' -f1 "$tmp/n.features" >"$tmp/want.ids"
if cmp -s "$tmp/e.ids.txt" "$tmp/want.ids" && tail -n +2 "$tmp/p.tsv" | cut -f1 | cmp -s - "$tmp/want.ids"; then
  ok ncol-rows-in-features-order
else
  bad ncol-rows-in-features-order "$(head -3 "$tmp/e.ids.txt" | tr '\n' ' ')" "$(head -3 "$tmp/want.ids" | tr '\n' ' ')"
fi
# a .npy written into something that is not a regular file gets no ids file
check npy-fifo-no-ids 0 "^wrote /dev/null: 60 x 64 \(layer 0, npy\)$" '' -- "$embed" \
  --model "$tmp/n.gat" --graph "$tmp/sbm.ncol" --features "$tmp/n.features" --out /dev/null --format npy --threads 1
[ ! -e /dev/null.ids.txt ] && ok npy-device-no-ids || bad npy-device-no-ids

# an edge list of names, not numbers, reads as names (the ncol rule), the same with or without
# --graph-format ncol: the rows follow the features file; an edge list of numbers keeps them
awk '/^#/ { next } { print "n" $1, "n" $2 }' "$g/sbm.edges" >"$tmp/names.edges"
check edgelist-names 0 '^dataset .*names\.edges: 60 nodes, .* 6 features, 3 classes' '' -- "$train" --graph "$tmp/names.edges" \
  --features "$tmp/n.features" --labels "$tmp/n.labels" "${split[@]}" --epochs 2
check edgelist-names-as-ncol 0 '^dataset .*names\.edges: 60 nodes, .* 6 features, 3 classes' '' -- "$train" --graph "$tmp/names.edges" \
  --graph-format ncol --features "$tmp/n.features" --labels "$tmp/n.labels" "${split[@]}" --epochs 2
check edgelist-names-unknown 1 '' "^gat-train: cannot read the dataset: $g/sbm\.labels:1:1: unknown node id '0' \(not a vertex of $tmp/names\.edges\)$" -- "$train" --graph "$tmp/names.edges" --labels "$g/sbm.labels"
# a CSV edge list with a header line (pandas' to_csv(index=False)), names and a weight column
{ echo 'source,target,weight'; awk '/^#/ { next } { print "n" $1 ",n" $2 ",1.5" }' "$g/sbm.edges"; } >"$tmp/edges.csv"
check csv-header 0 '^dataset .*edges\.csv: 60 nodes, .* 6 features, 3 classes' '' -- "$train" --graph "$tmp/edges.csv" \
  --features "$tmp/n.features" --labels "$tmp/n.labels" "${split[@]}" --epochs 2
check csv-edge-column 0 '^dataset .*edges\.csv: 60 nodes' 'edges\.csv has 1 edge feature column: read, not used' -- "$train" --graph "$tmp/edges.csv" \
  --features "$tmp/n.features" --labels "$tmp/n.labels" --edge-attributes weight "${split[@]}" --epochs 2
check csv-edge-column-unknown 1 '' "^gat-train: cannot read the dataset: $tmp/edges\.csv:1: edge attribute 'w' is not a column of the header \(its edge columns are the fields after the two nodes\)$" -- "$train" --graph "$tmp/edges.csv" \
  --features "$tmp/n.features" --labels "$tmp/n.labels" --edge-attributes w "${split[@]}" --epochs 2
gzip -c "$tmp/edges.csv" >"$tmp/edges.csv.gz"
check csv-gzip 0 '^dataset .*edges\.csv\.gz: 60 nodes' '' -- "$train" --graph "$tmp/edges.csv.gz" \
  --features "$tmp/n.features" --labels "$tmp/n.labels" "${split[@]}" --epochs 2
# GraphML vertex attributes as features and labels (the path gat-communities takes)
check graphml-attributes 0 '^dataset .*sbm\.graphml: 60 nodes, .* 6 features, 3 classes' '' -- "$train" --graph "$g/sbm.graphml" \
  --feature-attributes all --label-attribute class "${split[@]}" --epochs 2
check graphml-named-attributes 0 '^dataset .*sbm\.graphml: 60 nodes, .* 2 features, 3 classes' '' -- "$train" --graph "$g/sbm.graphml" \
  --feature-attributes f0,f3 --label-attribute class "${split[@]}" --epochs 2
check graphml-missing-attribute 1 '' "^gat-train: cannot read the dataset: $g/sbm\.graphml: vertex attribute 'club' does not exist$" -- "$train" --graph "$g/sbm.graphml" \
  --label-attribute club "${split[@]}" --epochs 2
check attributes-and-files 2 '' '^gat-train: --labels and --label-attribute exclude each other \(try --help\)$' -- "$train" --graph "$g/sbm.graphml" \
  --labels "$g/sbm.labels" --label-attribute class
check attributes-of-edge-list 1 '' "^gat-train: cannot read the dataset: $g/sbm\.edges: edgelist files have no vertex attributes to read features or labels from \(GraphML and GML files have\): give a features or labels file$" -- "$train" \
  --graph "$g/sbm.edges" --label-attribute class
# a .cites line naming a paper the .content lacks (raw LINQS Citeseer has such lines) is refused,
# naming the line, the id and what to do (the Planetoid files are that data with them dropped)
mkdir -p "$tmp/c"
printf 'p1 1 0 A\np2 0 1 B\n' >"$tmp/c/c.content"
printf 'p1 p2\np2 p9\n' >"$tmp/c/c.cites"
check cites-unknown-id 1 '' "^gat-train: cannot load dataset: $tmp/c/c\.cites:2:4: unknown node id 'p9' \(not in $tmp/c/c\.content; every cited and citing id needs a line there: remove citations of papers it lacks, or skip such lines: --skip-unknown-cites\)$" -- "$train" --dataset "$tmp/c/c" --epochs 1
# ... or skipped when asked, and counted
printf 'p1 1 0 A\np2 0 1 B\np3 1 1 A\np4 0 1 B\n' >"$tmp/c/c.content"
printf 'p9 p1\np1 p2\np2 p8\np3 p4\n' >"$tmp/c/c.cites"
check cites-skip 0 '^test accuracy' '^gat-train: skipped 2 \.cites lines naming an id \.content lacks$' -- "$train" --dataset "$tmp/c/c" --skip-unknown-cites \
  --random-split --train-per-class 1 --val-size 1 --test-size 1 --epochs 1 --threads 1
check cites-skip-convert 0 '4 nodes, 8 edges' '^gat-convert: skipped 2 \.cites lines' -- "$convert" "$tmp/c/c" "$tmp/c.gatd" --skip-unknown-cites
check cites-skip-graph 2 '' '^gat-train: --skip-unknown-cites applies to a Cora-layout dataset' -- "$train" --graph "$g/sbm.edges" --labels "$g/sbm.labels" --skip-unknown-cites

summary
