#!/usr/bin/env bash
# The accuracy tables of issues 36 and 37: gat-train on each dataset given, the figure it reports
# (test accuracy, or the ROC-AUC of two-class sets) as mean ± std, beside the published figure.
# usage: tools/bench-accuracy.sh [options] DATASET... [-- GAT_TRAIN_OPTIONS...]
#   DATASET: a Planetoid prefix DIR/ind.NAME (public split: --seeds runs, seeds 1..N, --preset
#            paper), a dataset with fixed splits (.npz, a Geom-GCN directory: the first --splits
#            splits, split k with seed k + 1, --preset platonov), or a TU directory DIR/NAME
#            (graph classification, one run of 10 folds with --seed 1, --preset dwivedi: the
#            fixed folds FOLDS/NAME_{train,val,test}.index with --tu-folds FOLDS where they
#            exist, else stratified folds; the std is over the folds)
#   --seeds N        runs on a public split (default 100)
#   --splits K       fixed splits used (default 10)
#   --tu-folds DIR   where the fixed folds of TU sets are (benchmarking-gnns' files)
#   --preset NAME    for every dataset, instead of paper / platonov / dwivedi
#   --threads T      gat-train --threads (default 2)
#   --gat-train PATH (default build/tools/gat-train)
#   --checkpoint-dir DIR  runs keep their training state in DIR/BASE-splitK.ckpt (or -seedS,
#            and DIR/BASE-folds.ckpt.foldF for the folds of a TU set; BASE the dataset's file or
#            folder name) and go on from it when it is there: a benchmark of hours stopped
#            (Ctrl-C) and run again with the same DIR goes on where it stopped, runs that had
#            ended giving their figures at once
#   after --: options passed to every gat-train run (they override the preset)
# Prints a markdown table on stdout and each run's summary line on stderr; the last column is the
# 1-minute load average when the dataset's runs ended (the seconds mean little under load).
# Model selection uses the validation nodes only (gat-train's early stopping); test figures are
# only reported.
set -euo pipefail

seeds=100 splits=10 threads=2 preset= bin=build/tools/gat-train tu_folds= ckpt_dir=
sets=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --splits) splits=$2; shift 2 ;;
    --tu-folds) tu_folds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --gat-train) bin=$2; shift 2 ;;
    --checkpoint-dir) ckpt_dir=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-accuracy: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) sets+=("$1"); shift ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || { echo "bench-accuracy: no dataset given (try --help)" >&2; exit 2; }
[ -x "$bin" ] || { echo "bench-accuracy: $bin is not an executable (--gat-train)" >&2; exit 2; }
[ -z "$ckpt_dir" ] || [ -d "$ckpt_dir" ] ||
  { echo "bench-accuracy: --checkpoint-dir: $ckpt_dir is not a directory" >&2; exit 2; }

# ckpt TAG [SUFFIX]: the gat-train options that keep run TAG's state under --checkpoint-dir and
# go on from it when it is there (its first file: the name with SUFFIX, .fold1 for folds; none
# without the option)
ckpt() {
  [ -n "$ckpt_dir" ] || return 0
  local f="$ckpt_dir/$base-$1.ckpt"
  if [ -e "$f${2:-}" ]; then echo "--checkpoint $f --resume $f"; else echo "--checkpoint $f"; fi
}

# published NAME: the published GAT figure and its source, verified against the source where
# it was available offline
published() {
  case $1 in
    cora) echo "83.0 ± 0.7 | Veličković et al. 2018, Table 2 (100 runs)" ;;
    citeseer) echo "72.5 ± 0.7 | Veličković et al. 2018, Table 2 (100 runs)" ;;
    minesweeper) echo "92.01 ± 0.68 | Platonov et al. 2023, GAT (their notebooks/results.ipynb)" ;;
    tolokers) echo "83.70 ± 0.47 | Platonov et al. 2023, GAT (their notebooks/results.ipynb)" ;;
    chameleon_filtered) echo "39.21 ± 3.08 | Platonov et al. 2023, GAT (as Ribeiro et al., Cooperative Sheaf Neural Networks, Table 1 quotes it; the paper not available offline)" ;;
    squirrel_filtered) echo "35.62 ± 2.06 | Platonov et al. 2023, GAT (as Ribeiro et al., Cooperative Sheaf Neural Networks, Table 1 quotes it; the paper not available offline)" ;;
    actor|actor-film|film) echo "27.44 ± 0.89 | GAT on Pei et al.'s 10 splits, as Di Giovanni et al., GNNs as Gradient Flows, and Ribeiro et al., Table 2 quote it (its first source not available offline)" ;;
    MUTAG) echo "89.4 ± 5.6 (GIN-0) | Xu et al. 2019, Table 1; not verified offline" ;;
    ENZYMES) echo "68.5 | Dwivedi et al., benchmarking-gnns (TU table); not verified offline" ;;
    PROTEINS|PROTEINS_full) echo "76.3 | Dwivedi et al., benchmarking-gnns (TU table); not verified offline" ;;
    *) echo "— | —" ;;
  esac
}

# mean_std FILE: "mean ± std" (sample std, as numpy ddof=1) of the numbers in FILE, and the count
mean_std() {
  awk '{ s += $1; q += $1 * $1; n++ }
       END { m = s / n; v = n > 1 ? (q - n * m * m) / (n - 1) : 0; if (v < 0) v = 0
             printf "%.2f ± %.2f | %d", m, sqrt(v), n }' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| dataset | runs | metric | libgat | published GAT | source | seconds | load |"
echo "|---|---|---|---|---|---|---|---|"
for path in "${sets[@]}"; do
  base=$(basename "$path")
  name=${base#ind.}
  name=${name%.npz}
  name=${name#geomgcn-}
  : >"$tmp/figures"
  start=$SECONDS
  if [ -e "$path/${base}_A.txt" ] || [ -e "$path/${base}_A.txt.gz" ]; then
    # a TU set: one run of 10 folds, the fixed ones where given
    folds=(--folds 10) protocol="10 stratified folds (seed 1)"
    if [ -n "$tu_folds" ] && [ -e "$tu_folds/${base}_test.index" ]; then
      folds=(--fold-index "$tu_folds/$base")
      protocol="$(wc -l <"$tu_folds/${base}_test.index") fixed folds"
    elif [ -n "$tu_folds" ] && [ -e "$tu_folds/${base}_full_test.index" ]; then
      folds=(--fold-index "$tu_folds/${base}_full")
      protocol="$(wc -l <"$tu_folds/${base}_full_test.index") fixed folds (of ${base}_full)"
    fi
    # shellcheck disable=SC2046 # ckpt's words are options and a path without spaces
    "$bin" --dataset "$path" --preset "${preset:-dwivedi}" "${folds[@]}" --seed 1 \
      --threads "$threads" --quiet $(ckpt folds .fold1) "${extra[@]}" >"$tmp/out" 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 1; }
    tail -n 1 "$tmp/out" >&2
    # "test accuracy: 70.00% +- 4.10%, macro-F1: ... (10 folds, ...)": mean ± population std
    ms=$(sed -nE 's/^test accuracy: ([0-9.]+)% \+- ([0-9.]+)%.*/\1 ± \2/p' "$tmp/out")
    [ -n "$ms" ] || { echo "bench-accuracy: no test accuracy from $path" >&2; exit 1; }
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
    echo "| $base | $protocol | accuracy | $ms | $(published "$base") | $((SECONDS - start)) | $load |"
    continue
  fi
  if [ "$base" != "$name" ] && [ "${base#ind.}" != "$base" ]; then
    # a public split: seeds vary, the split does not
    for s in $(seq 1 "$seeds"); do
      # shellcheck disable=SC2046 # ckpt's words are options and a path without spaces
      "$bin" --dataset "$path" --preset "${preset:-paper}" --seed "$s" --threads "$threads" \
        --quiet $(ckpt "seed$s") "${extra[@]}" >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
      tail -n 1 "$tmp/out" >&2
      tail -n 1 "$tmp/out" >>"$tmp/lines"
    done
    protocol="public split, $seeds seeds"
  else
    for k in $(seq 0 $((splits - 1))); do
      # shellcheck disable=SC2046
      "$bin" --dataset "$path" --preset "${preset:-platonov}" --split-index "$k" \
        --seed $((k + 1)) --threads "$threads" --quiet $(ckpt "split$k") "${extra[@]}" \
        >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      tail -n 1 "$tmp/out" >&2
      tail -n 1 "$tmp/out" >>"$tmp/lines"
    done
    protocol="$splits fixed splits"
  fi
  # "test accuracy: 81.30%  (best epoch ...)" or "test ROC-AUC: 91.20%  (...)"
  metric=$(sed -nE 's/^test (accuracy|ROC-AUC): .*/\1/p' "$tmp/lines" | head -n 1)
  sed -nE 's/^test (accuracy|ROC-AUC): ([0-9.]+)%.*/\2/p' "$tmp/lines" >"$tmp/figures"
  rm -f "$tmp/lines"
  ms=$(mean_std "$tmp/figures")
  load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
  echo "| $name | $protocol | $metric | ${ms% |*} | $(published "$name") | $((SECONDS - start)) | $load |"
done
