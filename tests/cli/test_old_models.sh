#!/usr/bin/env bash
# Model files written before the one engine load unchanged: today's gat-embed on each file of
# tests/data/old-models gives the logits recorded then (within 1e-4, as kernels and BLAS builds
# differ in rounding) and the same predicted class for every node whose recorded top two logits
# are more than 1e-3 apart (and the class of every node agrees with today's own logits).
#   test_old_models.sh GAT_EMBED DATA_DIR
set -uo pipefail
embed=$1 data=$2
dir=$data/old-models
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
n=0
for m in "$dir"/*.safetensors; do
  name=$(basename "$m" .safetensors)
  n=$((n + 1))
  if ! "$embed" --model "$m" --dataset "$data/small" --predict "$tmp/$name.pred.tsv" \
       --out "$tmp/$name.logits.tsv" --layer logits --quiet 2>"$tmp/$name.err"; then
    badf "$name: gat-embed refused the file:" "$tmp/$name.err"; continue
  fi
  if ! out=$(awk -F'\t' -v name="$name" '
      FNR == 1 { next }                                    # headers
      phase == 1 { old[$1] = $0; next }                    # recorded logits
      phase == 2 {                                         # the logits now
        if (!($1 in old)) { printf "%s: node %s not in the recorded logits\n", name, $1; bad = 1; next }
        k = split(old[$1], o, "\t")
        if (k != NF) { printf "%s: node %s has %d logits, recorded %d\n", name, $1, NF - 1, k - 1; bad = 1; next }
        b1 = -1e30; b2 = -1e30
        for (c = 2; c <= NF; c++) {
          d = $c - o[c]; if (d < 0) d = -d
          a = o[c] < 0 ? -o[c] : o[c]
          if (d > 1e-4 + 1e-4 * a) { printf "%s: node %s logit %d is %s, recorded %s\n", name, $1, c - 2, $c, o[c]; bad = 1 }
          if (o[c] > b1) { b2 = b1; b1 = o[c]; top[$1] = c - 1 } else if (o[c] > b2) b2 = o[c]
        }
        clear[$1] = b1 - b2 > 1e-3
        rows++
        next
      }
      phase == 3 { cls[$1] = $2; next }                    # recorded predictions
      { if (clear[$1] && cls[$1] != $2) { printf "%s: node %s predicted %s, recorded %s\n", name, $1, $2, cls[$1]; bad = 1 }
        preds++ }
      END { if (rows < 1 || preds != rows) { printf "%s: %d logit rows, %d predictions\n", name, rows, preds; bad = 1 }
            exit bad }' \
      phase=1 "$dir/$name.logits.tsv" phase=2 "$tmp/$name.logits.tsv" \
      phase=3 "$dir/$name.pred.tsv" phase=4 "$tmp/$name.pred.tsv" 2>&1); then
    bad "$name" "$(echo "$out" | head -20)"
  else
    ok "$name"
  fi
done
[ "$n" -ge 6 ] || bad "model-files: $n in $dir, expected 6"
summary
