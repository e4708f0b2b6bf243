#!/usr/bin/env bash
# Distributed training benchmark (README, "Distributed training"): one process with T threads
# against K ranks with one thread each on the same dataset file, then a projection of the epoch
# time to more ranks from the measured per-rank compute rate and the halo sizes METIS gives.
#
#   tools/bench-dist.sh BUILD DATASET.gatd [EPOCHS] [RANKS] [PROJECT_PARTS]
#     BUILD          a build directory with tools/gat-train and tools/gat-partition (-Dmpi)
#     EPOCHS         training epochs per run (default 6; the median is over epochs 2..)
#     RANKS          ranks of the measured run (default 2; one process gets as many threads)
#     PROJECT_PARTS  part counts of the projection (default "8 16 32 64")
#
# Prints: the single process's and each rank's median epoch, peak RSS, exchange time and bytes
# per epoch, the METIS edge cut; then per part count P the largest part's in-edges, rows
# (owned + halo) and halo, and the projected epoch at 10 and 100 Gb/s. Model (stated with the
# table): a rank's compute time is proportional to its in-edges plus its owned rows (a halo row
# is neither projected nor attended there), at the rate the measured ranks achieved; per epoch
# a rank receives its halo rows' projections and sends back their gradients: per layer and halo
# row, the projection and score half (hw + H values) in the training and the validation forward,
# the projection's gradient (hw) in the backward, and as much the other way for the rows it
# sends; plus an all-gather of the gradients; no overlap of communication with computation;
# latency ignored (two messages per peer and layer). Work files go to $BENCH_DIR (default /tmp/bench-dist).
# One benchmark at a time on an otherwise idle machine.
set -euo pipefail
build=$1 data=$2 epochs=${3:-6} ranks=${4:-2} project=${5:-8 16 32 64}
train=$build/tools/gat-train partition=$build/tools/gat-partition
work=${BENCH_DIR:-/tmp/bench-dist}
mkdir -p "$work"
name=$(basename "$data" .gatd)
mpi=(mpirun --oversubscribe --allow-run-as-root)
common=(--epochs "$epochs" --patience 100000000 --quiet)

echo "== $name: one process, $ranks threads"
/usr/bin/time -v -o "$work/one.time" "$train" --dataset "$data" --threads "$ranks" "${common[@]}" \
  --metrics "$work/one.csv" >"$work/one.out"
cat "$work/one.out"

echo "== $name: $ranks parts (METIS)"
rm -rf "$work/p$ranks"
"$partition" --dataset "$data" --parts "$ranks" --out "$work/p$ranks" | tee "$work/partition.out"

echo "== $name: $ranks ranks x 1 thread"
# each rank under its own /usr/bin/time (Open MPI names the rank in the environment)
"${mpi[@]}" -np "$ranks" sh -c '/usr/bin/time -v -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
  "$work/rank.time" "$train" --partitions "$work/p$ranks" --threads 1 --epochs "$epochs" \
  --patience 100000000 --metrics "$work/dist.csv" >"$work/dist.out"
grep -v '^epoch' "$work/dist.out"

echo "== projection: METIS partitions of $name"
for k in $project; do
  rm -rf "$work/q$k"
  "$partition" --dataset "$data" --parts "$k" --out "$work/q$k" --quiet
done

/usr/bin/python3 - "$work" "$ranks" "$project" <<'PY'
import csv, json, re, statistics, sys
work, ranks, project = sys.argv[1], int(sys.argv[2]), [int(k) for k in sys.argv[3].split()]

def epochs(path):
    ms = [float(r["epoch_ms"]) for r in csv.DictReader(open(path))]
    return statistics.median(ms[1:] if len(ms) > 1 else ms) / 1e3

def rss(path):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(path).read())
    return int(m.group(1)) / 2**20  # GiB

def parts(d):
    m = json.load(open(f"{d}/manifest.json"))
    p = m["part_files"]
    return m, max(q["edges"] for q in p), max(q["nodes"] for q in p), max(q["nodes"] + q["halo"] for q in p), max(q["halo"] for q in p)

one, one_rss = epochs(f"{work}/one.csv"), rss(f"{work}/one.time")
dist = epochs(f"{work}/dist.csv")
rank_rss = [rss(f"{work}/rank.time.{r}") for r in range(ranks)]
rows = [l.split() for l in open(f"{work}/dist.out") if re.match(r"\s*\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s*$", l)]
ex = max(float(r[6]) for r in rows)           # exchange s per epoch, the slowest rank
mb = max(float(r[5]) for r in rows)           # MB sent per training step, per rank
halo_sent = max(int(r[4]) for r in rows)
man, e2, o2, n2, h2 = parts(f"{work}/p{ranks}")
print()
print(f"| | 1 process x {ranks} threads | {ranks} ranks x 1 thread |")
print("|---|---|---|")
print(f"| epoch (median) | {one * 1e3:.1f} ms | {dist * 1e3:.1f} ms (ratio {dist / one:.2f}) |")
print(f"| peak RSS | {one_rss:.2f} GiB | {max(rank_rss):.2f} GiB per rank (ratio {max(rank_rss) / one_rss:.2f}) |")
print(f"| exchange per epoch | | {ex * 1e3:.1f} ms; {mb:.1f} MB sent per training step, {halo_sent} halo rows sent |")
print(f"| METIS edge cut | | {man['edge_cut']} undirected edges, {man['cut_in_edges']} in-edges from other parts |")
# per-rank compute rate: (epoch - exchange) over the largest part's edges + owned rows
rate = (dist - ex) / (e2 + o2)
F, C = man["features"], man["classes"]
Fp = -(-C // 8) * 8  # the output layer's padded width (1 head)
# gat-train's default model (8 heads x 8, then 1 head): per halo row and epoch, two forwards'
# projections and score halves and one backward's projection gradients, over both layers
width = 2 * ((64 + 8) + (Fp + 1)) + (64 + Fp)
params = F * 64 + 3 * 64 + 64 * C + 3 * C  # gat-train's default model: W, a_src, a_dst, b per layer
print()
print(f"Projection (compute {rate * 1e9:.1f} ns per (edge + owned row) of the largest part, "
      f"measured; {width} floats per halo row per epoch, each way; the all-gather of "
      f"{params} gradients; no overlap):")
print()
print("| parts | largest part: in-edges | rows (owned + halo) | halo | compute | epoch at 10 Gb/s | at 100 Gb/s |")
print("|---|---|---|---|---|---|---|")
for k in project:
    m, e, o, n, h = parts(f"{work}/q{k}")
    comp = rate * (e + o)
    byts = h * width * 4 * 2 + (k - 1) * params * 4  # halo rows out and in; gradients in
    t10 = comp + byts * 8 / 10e9
    t100 = comp + byts * 8 / 100e9
    print(f"| {k} | {e} | {n} | {h} | {comp * 1e3:.1f} ms | {t10 * 1e3:.1f} ms | {t100 * 1e3:.1f} ms |")
PY
