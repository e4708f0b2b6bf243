# Helpers shared by the tests/cli scripts; each script sources it first:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It sets pass=0 fail=0 and $tmp (a fresh directory, removed when the script exits), then gives:
#   ok NAME                 counts a passed case, prints "ok   NAME"
#   bad NAME [LINE...]      counts a failed case, prints "FAIL NAME" and each LINE indented
#   badf NAME [FILE...]     the same, showing the last 20 lines of each FILE indented
#   check NAME WANT OUT_RE ERR_RE -- PROGRAM ARGS...
#                           runs PROGRAM (stdout in $tmp/out, stderr in $tmp/err); passes if the
#                           exit code is WANT, stdout matches the extended regex OUT_RE and stderr
#                           ERR_RE (an empty regex matches anything) and, for WANT != 0, stderr is
#                           one line (a tool's error is one sentence)
#   same_run ALL R ONE      whether run R's row of ALL (gat-train --runs --metrics CSV) holds
#                           what ONE's one row (a single run's CSV) does, the timings aside
#   summary                 prints "P passed, F failed"; use it as the script's last command
#   toy_tu DIR NAME COUNT   writes a TU graph set DIR/NAME_*.txt of COUNT path graphs: graph g
#                           (1..COUNT) has 4 + g % 5 nodes, class g % 2; a node's label is its
#                           graph's class, or 2 on every third node (the signal is planted)
#   wait_blocked PID SYSCALL
#                           waits until PID sleeps in that system call (read, write, openat),
#                           as /proc/PID/syscall shows; 1 if PID ends first. For signals sent at
#                           a known point of a program, never after a guessed delay.
pass=0 fail=0
tmp=$(mktemp -d)
# only the main shell cleans up (a subshell killed by a signal may run an inherited EXIT trap)
trap '[ "$BASHPID" = "$$" ] && rm -rf "$tmp"' EXIT

same_run() {
  [ -s "$3" ] && [ "$(awk -F, -v r="$2" 'NR > 1 && $1 == r { print $2, $3, $4, $5, $6, $7 }' "$1")" = \
    "$(awk -F, 'NR > 1 { print $1, $2, $3, $4, $5, $6 }' "$3")" ]
}

ok() { pass=$((pass + 1)); echo "ok   $1"; }

bad() {
  fail=$((fail + 1))
  echo "FAIL $1"
  shift
  local l
  for l in "$@"; do echo "    | $l"; done
}

badf() {
  fail=$((fail + 1))
  echo "FAIL $1"
  shift
  local f
  for f in "$@"; do [ -f "$f" ] && tail -n 20 "$f" | sed 's/^/    | /'; done
  return 0
}

check() {
  local name=$1 want=$2 out_re=$3 err_re=$4
  shift 5
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? good=1
  [ "$rc" -eq "$want" ] || { echo "  exit $rc, want $want"; good=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$tmp/out"; then echo "  stdout lacks /$out_re/"; good=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$tmp/err"; then echo "  stderr lacks /$err_re/"; good=0; fi
  if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "  stderr is not one line"; good=0; fi
  if [ $good -eq 1 ]; then
    ok "$name"
  else
    fail=$((fail + 1))
    echo "FAIL $name"
    sed 's/^/    | /' "$tmp/out" "$tmp/err" | head -20
  fi
}

summary() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# System call numbers of /proc/PID/syscall, per machine.
syscall_number() {
  case "$(uname -m):$1" in
    x86_64:read) echo 0 ;; x86_64:write) echo 1 ;; x86_64:openat) echo 257 ;;
    aarch64:read) echo 63 ;; aarch64:write) echo 64 ;; aarch64:openat) echo 56 ;;
    *) echo -1 ;;
  esac
}

wait_blocked() {
  local pid=$1 nr s
  nr=$(syscall_number "$2")
  [ "$nr" = -1 ] && return 2
  while kill -0 "$pid" 2>/dev/null; do
    # the first field is the call the (main) thread sleeps in; "running" while it runs
    read -r s _ <"/proc/$pid/syscall" 2>/dev/null
    [ "$s" = "$nr" ] && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = S ] && return 0
    sleep 0.05
  done
  return 1
}

toy_tu() {
  mkdir -p "$1"
  awk -v d="$1/$2" -v count="$3" 'BEGIN {
    id = 0
    for (g = 1; g <= count; g++) {
      n = 4 + g % 5; c = g % 2
      print c > (d "_graph_labels.txt")
      for (i = 1; i <= n; i++) {
        id++
        print g > (d "_graph_indicator.txt")
        print (i % 3 == 0 ? 2 : c) > (d "_node_labels.txt")
        if (i > 1) { print id - 1 ", " id > (d "_A.txt"); print id ", " id - 1 > (d "_A.txt") }
      }
    }
  }'
}
