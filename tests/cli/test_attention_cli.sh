#!/usr/bin/env bash
# CLI tests of the attention family: gat-train --attention, --residual, --hidden-heads, --layers
# (usage errors exit 2 with one line), a short training with every score, and a deeper residual
# gatv2 model saved, reloaded by gat-embed and its attention exported.
# Usage: test_attention_cli.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR
set -u
bin=$1 embed=$2 data=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tiny="$data/tiny"
check help 0 '--attention NAME' '' -- "$bin" --help
check help-residual 0 '--residual' '' -- "$bin" --help
check help-hidden-heads 0 '--hidden-heads K\[,K\.\.\.\]' '' -- "$bin" --help
check bad-attention 2 '' "--attention: unknown score function 'additive' \(expected gat, gatv2, dot" -- "$bin" --attention additive
check attention-case 2 '' "unknown score function 'GAT-v2'" -- "$bin" --attention GAT-v2
check attention-upper 0 '^test accuracy' '' -- "$bin" --dataset "$data/tiny" --attention GATv2 --epochs 1 --threads 1 --quiet
check heads-too-many 2 '' '--hidden-heads: 2 values for 1 hidden layer \(--layers 2\)' -- "$bin" --hidden-heads 4,4
check heads-zero 2 '' '--hidden-heads: expected K\[,K\.\.\.\] with each K in \[1, 256\], got .0,2.' -- "$bin" --layers 3 --hidden-heads 0,2
check heads-junk 2 '' "--hidden-heads: expected .*got '4,'" -- "$bin" --layers 3 --hidden-heads 4,
check residual-value 2 '' '--residual takes no value' -- "$bin" --residual=1

for s in gat gatv2 dot scaled-dot bilinear cosine gaussian; do
  check "train-$s" 0 '^test accuracy: [0-9.]+%' '' -- "$bin" --dataset "$tiny" --attention "$s" --epochs 3 --threads 1 --quiet
done
check train-deep 0 '^test accuracy' '' -- "$bin" --dataset "$tiny" --layers 4 --residual --hidden-heads 2,3 --epochs 3 --threads 1 --quiet

# a 3-layer residual gatv2 with per-layer heads: saved, reloaded, its attention exported
check save-gatv2 0 'saved the model' '' -- "$bin" --dataset "$tiny" --attention gatv2 --layers 3 --residual --hidden-heads 2,3 --out-heads 2 --epochs 5 --threads 1 --save "$tmp/m.gat"
if grep -aEq '"score": ?"gatv2"' "$tmp/m.gat" && grep -aEq '"residual": ?"1"' "$tmp/m.gat" &&
   grep -aq '"layer1.weight_dst"' "$tmp/m.gat" && grep -aq '"layer2.res"' "$tmp/m.gat"; then
  ok "file-metadata"
else
  bad "file-metadata: $(head -c 600 "$tmp/m.gat" | tr -c '[:print:]' ' ')"
fi
check embed-attention 0 '' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --attention-out "$tmp/att.tsv" --threads 1 --quiet
# header + one line per edge, layer and head: layers 0, 1, 2 with 2, 3, 2 heads
edges=$(awk -F'\t' 'NR > 1 && $1 == 0 && $2 == 0' "$tmp/att.tsv" | wc -l)
lines=$(($(wc -l <"$tmp/att.tsv") - 1))
if [ "$edges" -gt 0 ] && [ "$lines" -eq $((edges * 7)) ]; then
  ok "attention-rows"
else
  bad "attention-rows: $lines rows for $edges edges"
fi

summary
