#!/usr/bin/env bash
# Install test: `meson install` into a temporary DESTDIR, then build with nothing but
# `pkg-config --cflags --libs gat` (a minimal program on <gat/gat.h>, an igraph user's program on
# <gat/gat_igraph.h>, and the example tools/gat-communities.c), run them, and check that the
# shared library exports only gat_ symbols and carries its soname.
# usage: test_install.sh BUILD_DIR SOURCE_DIR MESON [SANITIZE]   (run by meson test)
set -euo pipefail
build=$1 src=$2 meson=$3 sanitize=${4:-none}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gat-install-XXXXXX")
# only the main shell cleans up (a subshell killed by a signal may run an inherited EXIT trap)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

. "$src/tests/api/install_root.sh" # installs into $tmp/root: prefix, flags, libdir
echo "pkg-config --cflags --libs gat: $flags"
[ "$(pkg-config --modversion gat)" = "$(sed -n 's/.*GAT_VERSION_STRING "\(.*\)"/\1/p' \
      "$tmp/root$prefix/include/gat/gat.h")" ] || fail "gat.pc and gat.h versions differ"

# the library: soname, and exactly the public API exported
so="$libdir/libgat.so"
[ -e "$so" ] && [ -e "$libdir/libgat.a" ] || fail "libgat.so or libgat.a missing in $libdir"
readelf -d "$so" | grep -q 'SONAME.*\[libgat\.so\.0\]' || fail "soname is not libgat.so.0"
nm -D --defined-only "$so" | awk '{print $NF}' | sort >"$tmp/symbols"
others=$(grep -v '^gat_' "$tmp/symbols" || true)
[ -z "$others" ] || fail "non-gat_ symbols exported: $(echo $others)"
[ "$(wc -l <"$tmp/symbols")" -gt 50 ] || fail "too few symbols exported"
echo "exported: $(wc -l <"$tmp/symbols") symbols, all gat_*"

# a sanitized build's library needs its runtime in the program too
extra=()
[ "$sanitize" = none ] || extra=("-fsanitize=$sanitize")
cc=${CC:-cc}
build_run() { # NAME SOURCE LIBS ARGS...: compile with pkg-config's flags (+ LIBS), run
  local name=$1 source=$2 libs=$3
  shift 3
  "$cc" -std=c11 -Wall -Wextra -Werror "${extra[@]}" -o "$tmp/$name" "$source" $flags $libs ||
    fail "compiling $source with pkg-config's flags"
  LD_LIBRARY_PATH="$libdir" "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err" >&2; fail "running $name"; }
  tail -n 1 "$tmp/$name.out"
}
build_run minimal "$src/tests/api/install/minimal.c" "" | grep -q 'embedding 12 x 64' ||
  fail "minimal: unexpected output"
build_run igraph_user "$src/tests/api/install/igraph_user.c" "" | grep -q 'embeddings 80 x 64' ||
  fail "igraph_user: unexpected output"
# the example calls sqrt() itself, hence its own -lm
build_run gat-communities "$src/tools/gat-communities.c" -lm "$src/tests/data/graphs/sbm.graphml" |
  grep -q 'NMI(communities, GAT classes)' || fail "gat-communities: unexpected output"
[ "$(grep -c . "$tmp/gat-communities.out")" -eq 62 ] || fail "gat-communities: expected 62 lines"
cat "$tmp/minimal.out" "$tmp/igraph_user.out"
tail -n 1 "$tmp/gat-communities.out"

# the installed tools and data
[ -x "$tmp/root$prefix/bin/gat-train" ] || fail "gat-train not installed"
[ -x "$tmp/root$prefix/bin/gat-convert" ] || fail "gat-convert not installed"
[ -e "$tmp/root$prefix/share/libgat/datasets/cora/cora.cites" ] || fail "datasets not installed"
# the datasets folder gat_dataset_load looks in, as pkg-config reports it (relocated prefix)
dsdir=$(pkg-config --variable=datasetsdir gat) || fail "pkg-config --variable=datasetsdir gat"
[ "$dsdir" = "$tmp/root$prefix/share/libgat/datasets" ] ||
  fail "datasetsdir is '$dsdir', expected $tmp/root$prefix/share/libgat/datasets"
[ -e "$dsdir/cora/cora.cites" ] || fail "no cora in datasetsdir $dsdir"
[ -e "$tmp/root$prefix/share/libgat/libgat.supp" ] || fail "valgrind suppressions not installed"
echo "install test passed"
