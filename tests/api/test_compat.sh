#!/usr/bin/env bash
# API compatibility (docs/api-policy.md): a client written against the previous release's
# headers (tests/api/compat/client-0.1.0.c) compiles with the installed headers and
# `pkg-config --cflags --libs gat` under -Werror, but for the diagnostics on the lines it marks
# BREAK(x) (the incompatible changes CHANGES.md lists; GCC 14 makes them errors, so they are
# let through as warnings here and must stay exactly those), then links and runs.
# usage: test_compat.sh BUILD_DIR SOURCE_DIR MESON [SANITIZE]
set -euo pipefail
build=$1 src=$2 meson=$3 sanitize=${4:-none}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gat-compat-XXXXXX")
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

. "$src/tests/api/install_root.sh" # installs into $tmp/root: prefix, flags, libdir
# a sanitized build's library needs its runtime in the program too
[ "$sanitize" = none ] || flags="-fsanitize=$sanitize $flags"

for client in "$src"/tests/api/compat/client-*.c; do
  name=$(basename "$client" .c)
  # shellcheck disable=SC2086
  if ! cc -std=c11 -Wall -Wextra -Werror -Wno-error=incompatible-pointer-types \
      -Wno-error=discarded-qualifiers "$client" -o "$tmp/$name" $flags -Wl,-rpath,"$libdir" \
      2>"$tmp/$name.log"; then
    cat "$tmp/$name.log" >&2
    fail "$name does not compile against today's headers"
  fi
  # every diagnostic is on a BREAK line, and every BREAK line still has one (else the mark is
  # stale: the break was undone, drop the mark and its CHANGES entry's note)
  grep -E '^[^:]+:[0-9]+:[0-9]+: (warning|error)' "$tmp/$name.log" | cut -d: -f2 | sort -u >"$tmp/got" || true
  grep -n '/\* BREAK(' "$client" | cut -d: -f1 | sort -u >"$tmp/want"
  if ! cmp -s "$tmp/got" "$tmp/want"; then
    cat "$tmp/$name.log" >&2
    fail "$name: diagnostics on lines $(echo $(cat "$tmp/got")), expected exactly the BREAK lines $(echo $(cat "$tmp/want"))"
  fi
  (cd "$tmp" && "./$name" "$src/tests/data/tiny" "$tmp/$name.gat") >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out" >&2; fail "$name does not run"; }
  [ -s "$tmp/$name.gat" ] || fail "$name wrote no model"
  echo "ok   $name: compiles (the $(wc -l <"$tmp/want") BREAK lines warn), links, runs: $(head -n 1 "$tmp/$name.out")"
done
