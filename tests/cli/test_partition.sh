#!/usr/bin/env bash
# CLI tests of gat-partition: usage and exit codes, the summary (edge cut, per-part table,
# seconds), the directory written whole (manifest and parts, no temporary left), identical files
# from two runs, refusing a non-empty --out without --force (and a foreign file even with it),
# errors naming the file.
# Usage: test_partition.sh GAT_PARTITION TESTDATA_DIR DATASETS_DIR
set -u
partition=$1 data=$2 datasets=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bad() { badf "$1"; shift; [ $# -gt 0 ] && sed 's/^/    | /' "$@" | head -20; }

cora=$datasets/cora
check help 0 '^usage: gat-partition' '' -- "$partition" --help
check no-parts 2 '' '--parts K is required' -- "$partition" --dataset "$cora" --out "$tmp/x"
check no-out 2 '' '--out DIR is required' -- "$partition" --dataset "$cora" --parts 2
check zero-parts 2 '' 'parts' -- "$partition" --dataset "$cora" --parts 0 --out "$tmp/x"
check unknown-flag 2 '' "unknown option '--bogus'" -- "$partition" --bogus
check too-many-parts 1 '' 'k = 5000 parts for 2708 nodes' -- "$partition" --dataset "$cora" --parts 5000 --out "$tmp/x"
[ ! -e "$tmp/x" ] && ok no-output-on-failure || badf no-output-on-failure
check bad-dataset 1 '' 'cols_missing\.content:3' -- "$partition" --dataset "$data/bad/cols_missing" --parts 2 --out "$tmp/x"

check cora-4 0 '^gat-partition: .*cora: 2708 nodes, 13264 edges \(self-loops included\) into 4 parts: edge cut [0-9]+ \(undirected edges between parts\), [0-9]+ in-edges from other parts$' '' \
  -- "$partition" --dataset "$cora" --parts 4 --out "$tmp/p4"
[ "$(grep -cE '^ +[0-3] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$tmp/out")" -eq 4 ] && ok per-part-table || badf per-part-table "$tmp/out"
grep -Eq "^gat-partition: wrote $tmp/p4: load [0-9.]+ s, partition [0-9.]+ s, write [0-9.]+ s$" "$tmp/out" && ok seconds || badf seconds "$tmp/out"
[ "$(cd "$tmp/p4" && ls | tr '\n' ' ')" = "manifest.json part-0.gatd part-1.gatd part-2.gatd part-3.gatd " ] &&
  ok directory-contents || { ls -la "$tmp/p4" >"$tmp/ls"; badf directory-contents "$tmp/ls"; }
[ -z "$(ls -a "$tmp" | grep -E 'tmp-|old-')" ] && ok no-temporary-left || badf no-temporary-left
# the table's sizes sum to the graph's
awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ { n += $2; e += $3 } END { exit !(n == 2708 && e == 13264) }' "$tmp/out" &&
  ok sizes-sum || badf sizes-sum "$tmp/out"

# two runs, identical files (also through a .gatd copy of the dataset: the same graph)
"$partition" --dataset "$cora" --parts 4 --out "$tmp/q4" --quiet >"$tmp/out" 2>&1
[ ! -s "$tmp/out" ] && ok quiet || badf quiet "$tmp/out"
same=1
for f in manifest.json part-0.gatd part-1.gatd part-2.gatd part-3.gatd; do cmp -s "$tmp/p4/$f" "$tmp/q4/$f" || same=0; done
[ $same -eq 1 ] && ok deterministic || badf deterministic

# an existing non-empty directory: refused without --force, replaced with it
check not-empty 1 '' 'is not empty \(5 entries\); use --force' -- "$partition" --dataset "$cora" --parts 2 --out "$tmp/p4"
[ -e "$tmp/p4/part-3.gatd" ] && ok kept-on-refusal || badf kept-on-refusal
check force 0 'into 2 parts' '' -- "$partition" --dataset "$cora" --parts 2 --out "$tmp/p4/" --force
[ "$(cd "$tmp/p4" && ls | tr '\n' ' ')" = "manifest.json part-0.gatd part-1.gatd " ] && ok force-replaced || badf force-replaced
grep -q '"parts":	2' "$tmp/p4/manifest.json" && ok force-manifest || badf force-manifest "$tmp/p4/manifest.json"
[ -z "$(ls -a "$tmp" | grep -E 'tmp-|old-')" ] && ok force-no-temporary || badf force-no-temporary
mkdir -p "$tmp/mine" && echo precious >"$tmp/mine/notes.txt"
check foreign-file 1 '' "holds 'notes.txt', which is no partition file" -- "$partition" --dataset "$cora" --parts 2 --out "$tmp/mine" --force
[ -e "$tmp/mine/notes.txt" ] && ok foreign-kept || badf foreign-kept
echo x >"$tmp/afile"
check out-is-file 1 '' 'exists and is not a directory' -- "$partition" --dataset "$cora" --parts 2 --out "$tmp/afile"
mkdir -p "$tmp/empty"
check empty-dir 0 'into 3 parts' '' -- "$partition" --dataset "$cora" --parts 3 --out "$tmp/empty"
# --directed keeps the .cites direction: fewer in-edges than the symmetrised 13264
check directed 0 'cora: 2708 nodes, 7986 edges \(self-loops included\) into 2 parts' '' -- "$partition" --dataset "$cora" --parts 2 --out "$tmp/pd" --directed
check one-part-seed 2 '' '--seed steers METIS, which --parts 1 does not run' -- "$partition" --dataset "$cora" --parts 1 --seed 3 --out "$tmp/x"
check one-part-balance 2 '' '--no-train-balance steers METIS, which --parts 1 does not run' -- "$partition" --dataset "$cora" --parts 1 --no-train-balance --out "$tmp/x"
check one-part 0 'into 1 parts: edge cut 0 .*, 0 in-edges' '' -- "$partition" --dataset "$cora" --parts 1 --out "$tmp/p1"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
