#!/usr/bin/env bash
# Builds the libFuzzer targets tests/fuzz/fuzz_*.c into OUTDIR with clang, ASan and UBSan:
#   tests/fuzz/build.sh OUTDIR
# Each target is its harness plus the library sources (the list of src/meson.build) compiled
# directly, so meson never needs clang. OpenMP is off: the kernels run serially, as fuzzing wants.
# Run one: OUTDIR/fuzz_dataset -max_total_time=60 CORPUS_DIR tests/fuzz/corpus/dataset
set -euo pipefail
out=${1:?usage: tests/fuzz/build.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-clang}
command -v "$CC" >/dev/null || { echo "build.sh: $CC not found (tools/install-deps.sh installs clang)" >&2; exit 1; }
mkdir -p "$out/obj"

# the library's sources, as meson compiles them
mapfile -t srcs < <(sed -n '/^gat_sources = files(/,/^)/p' "$root/src/meson.build" |
                    grep -o "'[^']*\.c'" | tr -d "'")
[ ${#srcs[@]} -gt 0 ] || { echo "build.sh: no sources found in src/meson.build" >&2; exit 1; }

san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
# -ffile-prefix-map: source paths in the binaries (__FILE__, debug info) relative to the clone, so
# that where it sits moves no constant data (fixed-seed runs compare addresses: .ci/run)
cflags=(-std=c11 -g1 -O1 -D_POSIX_C_SOURCE=200809L -Wall -Wno-unknown-pragmas -ffile-prefix-map="$root"=.
        -I"$root/include" -I"$root/src" $(pkg-config --cflags igraph libcjson zlib openblas arpack))
libs=($(pkg-config --libs igraph libcjson zlib openblas arpack) -lcxsparse -lmetis -lm -pthread)

# Each source once, two at a time, instrumented for coverage and the sanitizers. The fused
# kernels (the fused_sources of src/meson.build), built per instruction set by meson: here the
# portable copy only (no -DGAT_I_FUSED_X86, so the dispatcher picks it), on the generic shapes.
# They use GCC vector builtins that clang may not know; then gcc compiles them without
# instrumentation (gcc's sanitizers cannot mix with clang's).
compile_source() { # source object
  "$CC" "${cflags[@]}" "${san[@]}" -fsanitize=fuzzer-no-link \
        -DGAT_SOURCE_DATASETS='""' -DGAT_INSTALL_DATASETS='""' -c "$root/src/$1" -o "$2"
}
compile_kernel() { # source object
  local k=(-DGAT_I_ISA=base -DGAT_I_GENERIC_SHAPES -c "$root/src/$1" -o "$2")
  "$CC" "${cflags[@]}" "${san[@]}" -fsanitize=fuzzer-no-link "${k[@]}" 2>/dev/null && return
  echo "build.sh: $CC cannot compile src/$1; using gcc, uninstrumented" >&2
  gcc "${cflags[@]}" -O2 "${k[@]}"
}
mapfile -t ksrcs < <(sed -n '/^fused_sources = files(/,/)/p' "$root/src/meson.build" |
                     grep -o "'[^']*\.c'" | tr -d "'")
objs=()
pids=()
for s in "${ksrcs[@]/#/kernel:}" "${srcs[@]}" ../tools/cli.c; do # the longest first
  if [ "${s#kernel:}" != "$s" ]; then
    s=${s#kernel:}
    o="$out/obj/$(echo "$s" | tr '/.' '__')_base.o"
    compile_kernel "$s" "$o" &
  else
    o="$out/obj/$(echo "$s" | tr '/.' '__').o"
    compile_source "$s" "$o" &
  fi
  objs+=("$o")
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done

for h in "$root"/tests/fuzz/fuzz_*.c; do
  t=$(basename "$h" .c)
  "$CC" "${cflags[@]}" "${san[@]}" -fsanitize=fuzzer "$h" "${objs[@]}" "${libs[@]}" -o "$out/$t"
  echo "built $out/$t"
done
