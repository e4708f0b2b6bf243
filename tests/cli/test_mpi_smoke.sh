#!/usr/bin/env bash
# MPI smoke test: gat-partition splits Cora in two, then `mpirun -np 2 mpi_smoke DIR` has each
# rank read its own part (under a timeout: a hung MPI start fails instead of blocking the suite).
# Skipped (77) when the build has no MPI (meson -Dmpi) or mpirun is missing.
# Usage: test_mpi_smoke.sh GAT_PARTITION DATASETS_DIR [MPI_SMOKE]
set -u
partition=$1 datasets=$2 smoke=${3:-}
if [ -z "$smoke" ]; then echo "SKIP: built without MPI (meson -Dmpi=disabled or Open MPI missing)"; exit 77; fi
if ! command -v mpirun >/dev/null; then echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
"$partition" --dataset "$datasets/cora" --parts 2 --out "$tmp/p" --quiet || { echo "FAIL gat-partition"; exit 1; }
timeout -k 5 60 mpirun --oversubscribe --allow-run-as-root -np 2 "$smoke" "$tmp/p" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ $rc -ne 0 ]; then echo "FAIL mpirun exited $rc"; exit 1; fi
grep -q '^mpi_smoke: 2 ranks read their parts: 2708 nodes, 13264 in-edges' "$tmp/out" || { echo "FAIL output"; exit 1; }
echo "ok   mpi-smoke"
