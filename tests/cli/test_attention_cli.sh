#!/usr/bin/env bash
# CLI tests of the attention family: gat-train --attention, --residual, --hidden-heads, --layers
# (usage errors exit 2 with one line), a short training with every score, and a deeper residual
# gatv2 model saved, reloaded by gat-embed and its attention exported.
# Usage: test_attention_cli.sh GAT_TRAIN GAT_EMBED TESTDATA_DIR
set -u
bin=$1 embed=$2 data=$3
pass=0 fail=0
tmp=$(mktemp -d)
# only the main shell cleans up (a subshell killed by a signal may run an inherited EXIT trap)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT

# check NAME WANT_EXIT STDOUT_REGEX STDERR_REGEX -- PROGRAM ARGS...
check() {
  local name=$1 want=$2 out_re=$3 err_re=$4; shift 5
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local ok=1
  [ "$rc" -eq "$want" ] || { echo "  exit $rc, want $want"; ok=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$tmp/out"; then echo "  stdout lacks /$out_re/"; ok=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$tmp/err"; then echo "  stderr lacks /$err_re/"; ok=0; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "  stderr is not one line"; ok=0; fi
  if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/    | /' "$tmp/out" "$tmp/err" | head -20; fi
}

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
  pass=$((pass + 1)); echo "ok   file-metadata"
else
  fail=$((fail + 1)); echo "FAIL file-metadata: $(head -c 600 "$tmp/m.gat" | tr -c '[:print:]' ' ')"
fi
check embed-attention 0 '' '' -- "$embed" --model "$tmp/m.gat" --dataset "$tiny" --attention "$tmp/att.tsv" --threads 1 --quiet
# header + one line per edge, layer and head: layers 0, 1, 2 with 2, 3, 2 heads
edges=$(awk -F'\t' 'NR > 1 && $1 == 0 && $2 == 0' "$tmp/att.tsv" | wc -l)
lines=$(($(wc -l <"$tmp/att.tsv") - 1))
if [ "$edges" -gt 0 ] && [ "$lines" -eq $((edges * 7)) ]; then
  pass=$((pass + 1)); echo "ok   attention-rows"
else
  fail=$((fail + 1)); echo "FAIL attention-rows: $lines rows for $edges edges"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
