#!/usr/bin/env bash
# CLI tests of gat-train's options that once did nothing or failed only after the work (issue 35,
# items 3 and 5): the random split's sizes imply --random-split, --directed on a .gatd file is a
# usage error, --save is checked before training, and the model's limits (GAT_MAX_HEADS, a
# layer's width) are usage errors before the dataset is trained on.
# Usage: test_train_options.sh GAT_TRAIN GAT_CONVERT TESTDATA_DIR
set -u
bin=$1 convert=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# untrained NAME: the last check trained no epoch (its stdout has no epoch line)
untrained() {
  if grep -q '^epoch' "$tmp/out"; then bad "$1" "trained first"; else ok "$1"; fi
}
tiny=$data/tiny
run=(--epochs 2 --threads 1)

# 35.3: tiny has a split file (3/2/3); a size of the random split draws one, as --random-split does
check sizes-imply-random 0 'split 4/2/2$' '' -- "$bin" --dataset "$tiny" --train-per-class 1 --val-size 2 --test-size 2 "${run[@]}"
"$bin" --dataset "$tiny" --random-split --train-per-class 1 --val-size 2 --test-size 2 "${run[@]}" |
  sed 's/[0-9.]* s\b//g; s/[0-9.]* ms\/epoch//' >"$tmp/a"
sed 's/[0-9.]* s\b//g; s/[0-9.]* ms\/epoch//' "$tmp/out" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok sizes-as-random-split || bad sizes-as-random-split "$(diff "$tmp/a" "$tmp/b" | head)"
check val-size-alone 0 'split [0-9]+/3/[0-9]+$' '' -- "$bin" --dataset "$tiny" --val-size 3 "${run[@]}"
check no-size-keeps-file 0 'split 3/2/3$' '' -- "$bin" --dataset "$tiny" "${run[@]}"
check size-beside-split-file 2 '' '^gat-train: --val-size draws a random split, but --split .* gives the split' -- "$bin" \
  --graph "$data/graphs/sbm.edges" --labels "$data/graphs/sbm.labels" --split "$tmp/none.split" --val-size 5
untrained size-beside-split-file-untrained
check size-with-partitions 2 '' '(--test-size does not apply|this build has no MPI)' -- "$bin" --partitions "$tmp" --test-size 3

# 35.3: --directed cannot change a .gatd file's graph (stored as built): a usage error, with or
# without the .gatd suffix; text datasets keep honouring it
"$convert" --quiet "$tiny" "$tmp/tiny.gatd" || bad convert
cp "$tmp/tiny.gatd" "$tmp/tinybin"
check directed-gatd 2 '' "^gat-train: --directed does not apply to dataset file $tmp/tiny\\.gatd: it is stored as it was built" -- "$bin" \
  --dataset "$tmp/tiny.gatd" --directed "${run[@]}"
untrained directed-gatd-untrained
check directed-gatd-no-suffix 2 '' 'does not apply to dataset file .*tinybin' -- "$bin" --dataset "$tmp/tinybin" --directed "${run[@]}"
check gatd-undirected 0 '^test accuracy' '' -- "$bin" --dataset "$tmp/tiny.gatd" "${run[@]}"
check directed-text 0 '^test accuracy' '' -- "$bin" --dataset "$tiny" --directed "${run[@]}"

# 35.5: --save into a missing directory fails at once (exit 1), before any epoch
check save-missing-dir 1 '' '^gat-train: --save: cannot write /nonexistent-dir/m\.gat: directory /nonexistent-dir: ' -- "$bin" \
  --dataset "$tiny" --save /nonexistent-dir/m.gat "${run[@]}"
untrained save-missing-dir-untrained
check save-ok 0 'saved the model' '' -- "$bin" --dataset "$tiny" --save "$tmp/m.gat" "${run[@]}"

# 35.5: the CLI's head ranges are the library's GAT_MAX_HEADS (256): usage errors naming it
check heads-limit 2 '' "^gat-train: --heads: expected an integer in \\[1, 256\\], got '300'$" -- "$bin" --dataset "$tiny" --heads 300
check heads-at-limit 0 '^test accuracy' '' -- "$bin" --dataset "$tiny" --heads 256 --hidden 1 --epochs 1 --threads 1
check out-heads-limit 2 '' "^gat-train: --out-heads: expected an integer in \\[1, 256\\], got '257'$" -- "$bin" --out-heads 257
check hidden-heads-limit 2 '' "^gat-train: --hidden-heads: expected K\\[,K\\.\\.\\.\\] with each K in \\[1, 256\\], got '4,300'$" -- "$bin" --layers 3 --hidden-heads 4,300
check help-limits 0 '^  --heads K +heads of hidden layers, concatenated \(default 8, at most 256\)$' '' -- "$bin" --help
check help-implies 0 '^  --val-size N +validation nodes of a random split, exactly \(implies --random-split' '' -- "$bin" --help
check layers-limit 2 '' '^gat-train: --layers: expected an integer in \[1, 16\]' -- "$bin" --layers 17
# a layer wider than the library allows (heads x hidden > 2^20): a usage error before training
check width-limit 2 '' '^gat-train: invalid model options: hidden layer width heads x hidden = 32 x 65536 exceeds 1048576' -- "$bin" \
  --dataset "$tiny" --heads 32 --hidden 65536 "${run[@]}"
untrained width-limit-untrained

# --metric auc with --partitions (accuracy or loss only): a usage error (the many-class case:
# test_presets.sh)
check split-index-partitions 2 '' '(--split-index does not apply|this build has no MPI)' -- "$bin" --partitions "$tmp" --split-index 1
check auc-partitions 2 '' '(--metric auc does not apply|this build has no MPI)' -- "$bin" --partitions "$tmp" --metric auc

summary
