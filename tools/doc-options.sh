#!/usr/bin/env bash
# The option tables of docs/cli.md, generated from each tool's --help output.
# usage: tools/doc-options.sh BUILD_DIR TOOL            print TOOL's table (markdown)
#        tools/doc-options.sh --update BUILD_DIR FILE   rewrite every table of FILE in place
#        tools/doc-options.sh --check BUILD_DIR FILE    exit 1 naming each table that differs
# A table sits between the lines "<!-- options TOOL -->" and "<!-- end options -->".
# --help prints "  --name ARG" padded to 26 columns, a space, the help text (tools/cli.c).
set -euo pipefail

table() { # BUILD_DIR TOOL -> the markdown table of TOOL's options
  local help
  help=$("$1/tools/$2" --help) || { echo "doc-options: $1/tools/$2 --help failed" >&2; return 1; }
  printf '%s\n' "$help" | awk '
    function esc(s) { gsub(/\|/, "\\|", s); return s }
    /^  --/ {
      if (substr($0, 29, 1) == " ") {       # the option fits the 26 columns
        left = substr($0, 3, 26); help = substr($0, 30)
        sub(/ +$/, "", left)
      } else {                              # longer: "--name ARG help..."
        n = split(substr($0, 3), w, " ")
        left = w[1] " " w[2]; help = ""
        for (i = 3; i <= n; i++) help = help (i > 3 ? " " : "") w[i]
      }
      rows[++nrows] = "| `" esc(left) "` | " esc(help) " |"
    }
    END {
      if (!nrows) { print "doc-options: no options in the --help output" > "/dev/stderr"; exit 1 }
      print "| option | meaning |"
      print "|--------|---------|"
      for (i = 1; i <= nrows; i++) print rows[i]
    }' |
    # quoted formats (e.g. '<id> <label>') as code spans, so that markdown shows them as they are
    sed -E "s/(^|[ (])'([^']+)'([ ),.;:]|\$)/\1\`\2\`\3/g"
}

rewrite() { # BUILD_DIR FILE -> FILE with every table regenerated, on stdout
  local build=$1 file=$2 line tool=""
  while IFS= read -r line || [ -n "$line" ]; do
    if [ -n "$tool" ]; then
      [ "$line" = "<!-- end options -->" ] || continue
      table "$build" "$tool"
      tool=""
    elif [[ $line =~ ^\<!--\ options\ ([a-z-]+)\ --\>$ ]]; then
      printf '%s\n' "$line"
      tool=${BASH_REMATCH[1]}
      continue
    fi
    printf '%s\n' "$line"
  done <"$file"
  [ -z "$tool" ] || { echo "doc-options: $file: table of $tool not closed" >&2; return 1; }
}

case ${1:-} in
  --update)
    [ $# -eq 3 ] || { echo "usage: $0 --update BUILD_DIR FILE" >&2; exit 2; }
    out=$(rewrite "$2" "$3")
    printf '%s\n' "$out" >"$3.tmp" && mv "$3.tmp" "$3"
    ;;
  --check)
    [ $# -eq 3 ] || { echo "usage: $0 --check BUILD_DIR FILE" >&2; exit 2; }
    tools=$(sed -n 's/^<!-- options \([a-z-]*\) -->$/\1/p' "$3")
    [ -n "$tools" ] || { echo "doc-options: $3 has no option table" >&2; exit 1; }
    bad=0
    for t in $tools; do
      want=$(table "$2" "$t") || { bad=1; continue; }
      have=$(awk -v t="$t" '$0 == "<!-- options " t " -->" { on = 1; next }
                           $0 == "<!-- end options -->" { on = 0 } on' "$3")
      if [ "$want" != "$have" ]; then
        echo "doc-options: $3: the table of $t differs from '$t --help' (regenerate:" \
             "tools/doc-options.sh --update BUILD_DIR $3):" >&2
        diff <(printf '%s\n' "$have") <(printf '%s\n' "$want") >&2 || true
        bad=1
      fi
    done
    exit $bad
    ;;
  -*|"")
    echo "usage: $0 BUILD_DIR TOOL | --update BUILD_DIR FILE | --check BUILD_DIR FILE" >&2
    exit 2
    ;;
  *)
    [ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR TOOL" >&2; exit 2; }
    table "$1" "$2"
    ;;
esac
