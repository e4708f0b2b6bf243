#!/usr/bin/env bash
# The documentation's commands run and its option tables match the tools (docs/testing.md, "The
# documentation test"): every ```sh block of README.md and docs/*.md runs, page by page in order,
# in a scratch directory where build/ is the build under test and datasets/ and tests/ are the
# source tree's; every ```c block that defines main compiles against include/ and the build's
# libgat.so and runs there too; docs/cli.md's option tables equal tools/doc-options.sh's output;
# README.md has at most 300 lines.
# usage: test_docs.sh SOURCE_DIR BUILD_DIR [SANITIZE]   (run by meson test as `docs`)
set -uo pipefail
src=$1 build=$2 sanitize=${3:-none}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gat-docs-XXXXXX")
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

cflags=(-std=c11 -Wall -Wextra -Werror)
[ "$sanitize" = none ] || cflags+=("-fsanitize=$sanitize")
cc=${CC:-cc}

# extract PAGE OUTDIR: one file per runnable block, OUTDIR/NNN.sh or NNN.c, in page order, each
# with OUTDIR/NNN.where ("PAGE:LINE" of its opening fence). Fences may be indented (list items);
# the indentation is removed from the block's lines. Returns the number of blocks on stdout.
extract() {
  awk -v page="$1" -v out="$2" '
    function close_block() { if (file != "") close(file); file = "" }
    {
      if (match($0, /^ *```/)) {
        indent = RLENGTH - 3
        tag = substr($0, RLENGTH + 1); sub(/[ \t]+$/, "", tag)
        if (!infence) {
          infence = 1
          if (tag == "sh" || tag == "c") {
            n++; base = sprintf("%s/%03d", out, n)
            file = base "." tag; skip = indent
            print page ":" NR > (base ".where"); close(base ".where")
            printf "" > file
          }
        } else if (tag == "") {
          infence = 0; close_block()
        }
        next
      }
      if (file != "") print substr($0, 1 + (substr($0, 1, skip) ~ /^ *$/ ? skip : 0)) > file
    }
    END { close_block(); if (infence) { print page ": unclosed code fence" > "/dev/stderr"; exit 1 }
          print n + 0 }
  ' "$1"
}

# run_page PAGE NAME: runs PAGE's blocks in a scratch directory of their own; prints
# "sh C" (the blocks run: shell blocks and C programs) on stdout; failures through fail().
run_page() {
  local page=$1 name=$2 dir="$tmp/$2" blocks n_sh=0 n_c=0 f where
  mkdir -p "$dir/blocks" "$dir/run"
  ln -s "$build" "$dir/run/build"
  ln -s "$src/datasets" "$dir/run/datasets"
  ln -s "$src/tests" "$dir/run/tests"
  blocks=$(extract "$page" "$dir/blocks") || { fail "$page: cannot read it or a code fence is not closed"; echo "0 0"; return; }
  for f in "$dir"/blocks/*.sh "$dir"/blocks/*.c; do
    [ -e "$f" ] || continue
    echo "$f"
  done | sort | while read -r f; do
    where=$(cat "${f%.*}.where")
    case $f in
      *.sh)
        echo "== $where (sh)" >&2
        if ! (cd "$dir/run" && bash -e -o pipefail "$f") >"$f.log" 2>&1; then
          fail "$where: the block's commands failed:"
          sed 's/^/    /' "$f" >&2
          echo "  output (last 20 lines):" >&2
          tail -n 20 "$f.log" | sed 's/^/    /' >&2
        fi
        echo sh
        ;;
      *.c)
        grep -q '^int main(' "$f" || continue # a fragment, not a program
        echo "== $where (C program)" >&2
        if ! "$cc" "${cflags[@]}" -I"$src/include" -o "${f%.c}" "$f" -L"$build/src" -lgat \
             -Wl,-rpath,"$build/src" -lm >"$f.log" 2>&1; then
          fail "$where: the program does not compile:"
          sed 's/^/    /' "$f.log" >&2
        elif ! (cd "$dir/run" && "${f%.c}") >>"$f.log" 2>&1; then
          fail "$where: the program failed:"
          tail -n 20 "$f.log" | sed 's/^/    /' >&2
        fi
        echo c
        ;;
    esac
  done >"$dir/ran"
  n_sh=$(grep -c '^sh$' "$dir/ran")
  n_c=$(grep -c '^c$' "$dir/ran")
  echo "$blocks blocks, $n_sh shell blocks and $n_c programs run" >&2
  echo "$n_sh $n_c"
}
# (the while loop runs in a subshell: its failures are counted from the FAIL lines below)

# 1. The runner itself can fail: a page whose block fails, a program that does not compile.
mkdir -p "$tmp/self"
printf '# t\n\n```sh\ntrue\n```\n\n  ```sh\n  false\n  ```\n\n```c\nint main(void) { return undefined; }\n```\n' \
  >"$tmp/self/page.md"
self=$(run_page "$tmp/self/page.md" self-test 2>&1 >/dev/null)
[ "$(grep -c '^FAIL:' <<<"$self")" -eq 2 ] ||
  fail "self-test: a failing block and a broken program should give two failures, got: $self"

# 2. The documentation's blocks.
total_sh=0 total_c=0
log="$tmp/pages.log"
for page in "$src/README.md" "$src"/docs/*.md; do
  name=$(basename "$page" .md)
  read -r n_sh n_c < <(run_page "$page" "page-$name" 2>>"$log")
  total_sh=$((total_sh + n_sh)) total_c=$((total_c + n_c))
done
cat "$log" >&2
failures=$((failures + $(grep -c '^FAIL:' "$log")))
echo "ran $total_sh shell blocks and $total_c C programs"
# the pages hold many runnable blocks: far fewer means the markers or the extractor broke
[ "$total_sh" -ge 10 ] || fail "only $total_sh shell blocks found in README.md and docs/*.md"
[ "$total_c" -ge 2 ] || fail "only $total_c C programs found in docs/*.md"

# the README stays short: details belong to docs/ (issue 34)
lines=$(wc -l <"$src/README.md")
[ "$lines" -le 300 ] || fail "README.md has $lines lines, more than 300: move details to docs/"

# 3. The option tables of docs/cli.md against the tools' --help.
for t in gat-train gat-embed gat-convert gat-synth gat-partition gat-bench; do
  grep -qx "<!-- options $t -->" "$src/docs/cli.md" || fail "docs/cli.md has no option table of $t"
done
"$src/tools/doc-options.sh" --check "$build" "$src/docs/cli.md" ||
  fail "docs/cli.md's option tables differ from the tools' --help (above)"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "all documented commands ran; option tables match"
