#!/usr/bin/env bash
# CLI tests of gat-train --preset and --metric (issue 36 items 3 and 4): a preset is the same run
# as its options spelled out, every option given overrides it wherever it stands, unknown names
# are usage errors, and two-class data follows and reports the ROC-AUC.
# Usage: test_presets.sh GAT_TRAIN TESTDATA_DIR
set -u
bin=$1 data=$2
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tiny=$data/tiny

# same NAME ARGS1 -- ARGS2: both runs print the same lines but for the times
same() {
  local name=$1 a=() b=()
  shift
  while [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  "$bin" --dataset "$tiny" --threads 1 "${a[@]}" 2>&1 | sed -E 's/[0-9.]+ (s|ms\/epoch)\b//g' >"$tmp/a"
  "$bin" --dataset "$tiny" --threads 1 "${b[@]}" 2>&1 | sed -E 's/[0-9.]+ (s|ms\/epoch)\b//g' >"$tmp/b"
  if grep -q '^test' "$tmp/a" && cmp -s "$tmp/a" "$tmp/b"; then ok "$name"; else
    bad "$name" "$(diff "$tmp/a" "$tmp/b" | head -5)" "$(tail -2 "$tmp/a")"
  fi
}

platonov=(--arch gat-ffn --embed-dim 512 --linear-init pytorch --whole-scores 1 --layers 5 --hidden 64 --heads 8 --out-heads 1 --residual --in-dropout 0.2
          --att-dropout 0 --lr 3e-5 --weight-decay 0 --epochs 1000 --patience 1000 --no-normalize
          --head-dropout 0 --proj-dropout 0)
# the paper's setup is gat-train's defaults with the reference code's dropout placement and
# score biases
paper=(--head-dropout 1 --proj-dropout 0.6 --score-bias 1)
same paper-is-the-defaults --preset paper --epochs 3 -- "${paper[@]}" --epochs 3
same paper-pubmed --preset paper-pubmed --epochs 3 -- "${paper[@]}" --out-heads 8 --lr 0.01 --weight-decay 0.001 --epochs 3
same paper-placement-overridden --preset paper --head-dropout 0 --proj-dropout 0 --score-bias 0 --epochs 3 -- --epochs 3
same platonov-spelled-out --preset platonov --epochs 2 --embed-dim 8 --heads 2 -- "${platonov[@]}" --epochs 2 --embed-dim 8 --heads 2
# an option given before the preset overrides it too
same option-before-preset --lr 0.02 --epochs 2 --heads 2 --embed-dim 8 --preset platonov -- "${platonov[@]}" --lr 0.02 --epochs 2 --embed-dim 8 --heads 2
same preset-equals-form --preset=platonov --epochs 2 --embed-dim 8 --heads 2 --dropout 0.5 -- "${platonov[@]}" --in-dropout 0.5 --att-dropout 0.5 --epochs 2 --embed-dim 8 --heads 2
# --arch gat: the preset's training setup and scores on the GAT model; with another score, the
# preset's whole-row scores fall away
same platonov-on-gat --preset platonov --arch gat --epochs 2 --hidden 4 --heads 2 -- "${platonov[@]:6}" --epochs 2 --hidden 4 --heads 2
same platonov-on-gatv2 --preset platonov --arch gat --attention gatv2 --epochs 2 --hidden 4 --heads 2 -- "${platonov[@]:8}" --attention gatv2 --epochs 2 --hidden 4 --heads 2
# and its whole-row scores on gat-bn too
same platonov-gat-bn --preset platonov --arch gat-bn --epochs 2 --embed-dim 8 --heads 2 -- "${platonov[@]:2}" --arch gat-bn --epochs 2 --embed-dim 8 --heads 2
# the score biases: a tensor per layer in the model, and the gat score's alone
check score-bias-saved 0 '' '' -- "$bin" --dataset "$tiny" --preset paper --epochs 2 --threads 1 --quiet --save "$tmp/sb.gat"
grep -q '"score_bias":"1"' "$tmp/sb.gat" && grep -q '"layer1.att_bias":{"dtype":"F32","shape":\[2,1\]' "$tmp/sb.gat" \
  && ok score-bias-in-model || bad score-bias-in-model "$(head -c 600 "$tmp/sb.gat")"
check score-bias-gat-only 2 '' 'score_bias needs the gat score' -- "$bin" --dataset "$tiny" --score-bias 1 --attention dot --epochs 1
# whole-row scores in a GAT model's file, and gat-embed's predictions from it
check whole-saved 0 '' '' -- "$bin" --dataset "$tiny" --whole-scores 1 --epochs 2 --threads 1 --quiet --save "$tmp/w.gat"
grep -aq '"whole_scores":"1"' "$tmp/w.gat" && grep -aq '"layer0.att_src":{"dtype":"F32","shape":\[8,64\]' "$tmp/w.gat" \
  && ok whole-in-model || bad whole-in-model "$(head -c 600 "$tmp/w.gat")"
check whole-embed 0 '^wrote ' '' -- "$(dirname "$bin")/gat-embed" --model "$tmp/w.gat" --dataset "$tiny" --predict "$tmp/w.tsv"
check unknown-preset 2 '' "unknown preset 'pap' \(expected paper, paper-pubmed, platonov, dwivedi or xu\)" -- "$bin" --dataset "$tiny" --preset pap
check unknown-metric 2 '' "--metric: unknown metric 'f1' \(expected acc, auc or loss\)" -- "$bin" --dataset "$tiny" --metric f1
check auc-needs-two-classes 2 '' '^gat-train: --metric auc: ROC-AUC needs two classes, and .*tiny has 4 \(use acc or loss\)$' -- "$bin" --dataset "$tiny" --metric auc --epochs 2 --threads 1 --quiet

# two classes: a Cora-layout set of 12 nodes in two classes (a ring, features by class)
for i in $(seq 0 11); do
  c=$((i % 2))
  printf 'n%d\t%d\t%d\t%d\tc%d\n' "$i" "$c" $((1 - c)) $(((i / 2) % 2)) "$c"
done >"$tmp/two.content"
for i in $(seq 0 11); do printf 'n%d\tn%d\n' "$i" $(((i + 1) % 12)); done >"$tmp/two.cites"
for i in $(seq 0 11); do
  s=train
  [ "$i" -ge 4 ] && s=val
  [ "$i" -ge 8 ] && s=test
  printf 'n%d\t%s\n' "$i" "$s"
done >"$tmp/two.split"
check two-classes-report-auc 0 'test ROC-AUC: [0-9.]+%' '' -- "$bin" --dataset "$tmp/two" --epochs 3 --threads 1
grep -qE '^epoch +1 .* auc +[0-9.]+%' "$tmp/out" && ok auc-in-epoch-lines || badf auc-in-epoch-lines "$tmp/out"
check metric-acc-reports-accuracy 0 'test accuracy: [0-9.]+%' '' -- "$bin" --dataset "$tmp/two" --epochs 3 --threads 1 --metric acc
check runs-table-auc 0 'val auc +test auc' '' -- "$bin" --dataset "$tmp/two" --epochs 2 --threads 1 --runs 2
# the graph transformers follow and report the ROC-AUC of two-class data too
check gat-ffn-reports-auc 0 '^test ROC-AUC: [0-9.]+%  \(arch gat-ffn, ' '' -- "$bin" --dataset "$tmp/two" --arch gat-ffn --embed-dim 8 --heads 2 --epochs 3 --threads 1 --quiet
check gat-ffn-metric-acc 0 '^test accuracy: [0-9.]+%  \(arch gat-ffn, ' '' -- "$bin" --dataset "$tmp/two" --arch gat-ffn --embed-dim 8 --heads 2 --epochs 3 --threads 1 --quiet --metric acc
summary
