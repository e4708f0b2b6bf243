#!/usr/bin/env bash
# Installs the dependencies (Debian 12), configures ./build once and compiles it.
# Extra arguments go to `meson setup` on the first run (e.g. -Dnative=true).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build "$@"
meson compile -C build
