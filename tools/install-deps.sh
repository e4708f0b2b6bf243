#!/usr/bin/env bash
# Installs the Debian 12 packages libgat needs to build, test and benchmark (idempotent).
set -euo pipefail
pkgs=(build-essential meson ninja-build pkg-config libsuitesparse-dev libigraph-dev check
      libopenblas-dev zlib1g-dev libcjson-dev python3 python3-numpy python3-scipy valgrind
      clang libclang-rt-14-dev llvm  # clang + libFuzzer runtime: tests/fuzz; llvm: symbolizer
      gnuplot-nox  # draws gat-train --plot and gat-embed --plot*; tests/cli/test_plots_cli.sh
      libarpack2-dev  # ARPACK's Lanczos: Laplacian encodings of large graphs (src/encode)
      libmetis-dev  # METIS k-way partitioning: gat-partition (src/partition)
      libopenmpi-dev openmpi-bin)  # Open MPI (meson -Dmpi=auto): distributed training, mpirun
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
