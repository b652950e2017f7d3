# Shared helpers for perfkit's TAP shell tests (sourced, not run).
# Tests print "ok N - name" / "not ok N - name", then plan with done_testing.
# $PERFKIT is the command under test, $PK_WORKLOAD the counting workload.
: "${PERFKIT:=build/perfkit}"
: "${PK_WORKLOAD:=build/tests/pk-workload}"
TAP_N=0
TAP_FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { # ok CONDITION-STATUS NAME
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then echo "ok $TAP_N - $2"; else echo "not ok $TAP_N - $2"; TAP_FAILED=$((TAP_FAILED + 1)); fi
}
pass() { ok 0 "$1"; }
# fail NAME [WHY]: WHY goes to stderr, which prove shows (and CI's log keeps) without -v
fail() { ok 1 "$1"; [ $# -gt 1 ] && note "$2" >&2; return 0; }
note() { printf '# %s\n' "$@"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $1"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
done_testing() { echo "1..$TAP_N"; [ "$TAP_FAILED" -eq 0 ]; }

# is GOT WANT NAME
is() {
	if [ "$1" = "$2" ]; then pass "$3"; else fail "$3" "got '$1', want '$2'"; fi
}
# within GOT WANT PERCENT NAME: |got - want| <= percent of want
within() {
	if awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w != "" && g != "" && d <= w * p / 100) }'; then
		pass "$4"
	else
		fail "$4" "got '$1', want '$2' within $3%"
	fi
}

# perf is the oracle; it is usable if it can count a software event here.
have_perf() { command -v perf >/dev/null 2>&1 && perf stat -e task-clock -x, -o /dev/null -- true >/dev/null 2>&1; }
# need_recording: skip the whole test unless perf counts and perfkit may sample here
need_recording() {
	have_perf || skip_all "Linux perf cannot count here"
	"$PERFKIT" record -q -e cpu-clock -o "$TMP/probe.data" -- true 2>"$TMP/probe.err" ||
		skip_all "sampling is not permitted here: $(head -1 "$TMP/probe.err")"
}

# csv_value FILE EVENT: the counter value of EVENT from -x, output (first match)
csv_value() { awk -F, -v e="$2" '$3 == e { print $1; exit }' "$1"; }

# wait_counting PID: wait (up to 10 s) until process PID holds perf_event fds,
# i.e. perfkit has opened its counters.
wait_counting() {
	local i
	for i in $(seq 100); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event' && return 0
		sleep 0.1
	done
	return 1
}

# wait_target PID NAME: print the pid of PID's child once it runs NAME (its
# exec done, so perfkit has released it), waiting up to 20 s; 1 if it never
# does. A test that signals "the target" signals it running, however
# slowly a loaded machine or a sanitizer starts perfkit.
wait_target() {
	local i c
	for i in $(seq 200); do
		c=$(pgrep -P "$1" -x "$2") && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

# keep_files TAG FILE...: copy FILEs (a live recording and the outputs that
# disagreed on it) to a new /tmp/perfkit-TAG-failure.* (or under $PK_KEEP_DIR)
# and say where on stderr, so that a rare failure can be looked at afterwards.
keep_files() {
	local tag=$1 dir
	shift
	dir=$(mktemp -d "${PK_KEEP_DIR:-/tmp}/perfkit-$tag-failure.XXXXXX") || return
	cp "$@" "$dir/" 2>/dev/null
	echo "$tag: kept $* in $dir" >&2
}

# perf report as an oracle, and where perf 6.1 fails as one. Where a tree of perf's holds
# one key twice (its comparison of unresolved addresses goes round in a circle for
# addresses 2^63 or more apart, and an insertion can then miss the equal entry), perf
# prints that key's row twice; and where a group member's tree does, perf pairs the
# leader's row with both entries and zero-fills 2^32 columns for the second (ui/hist.c:
# idx_delta is -1), which takes it half an hour. perfkit prints each key once.
# perf_report ARGS...: `perf report ARGS...`, stopped after $PK_PERF_LIMIT s (status 124)
PK_PERF_LIMIT=${PK_PERF_LIMIT:-20}
perf_report() { timeout "$PK_PERF_LIMIT" perf report "$@"; }

# perf_failed STATUS PERF_OUT PK_OUT: say why perf's output is no oracle, if it is not:
# STATUS (perf_report's) 124, or a row's key that perf printed twice in one event's rows
# where perfkit printed it once (not for --hierarchy, where a key recurs under parents)
perf_failed() {
	if [ "$1" -eq 124 ]; then
		echo "perf report ran past $PK_PERF_LIMIT s (perf 6.1 loops on a group row whose member holds the key twice)"
		return 0
	fi
	awk 'FNR == 1 { file++; block = 0 }
	     /^# Samples/ { block++ }
	     /^ *[0-9]+\.[0-9]+%/ {
		key = $0; sub(/^([ \t]*[0-9][0-9.,]*%?)+[ \t]+/, "", key)
		n[file, block, key]++
		if (file == 1) order[++nk] = block SUBSEP key
	     }
	     END {
		for (i = 1; i <= nk; i++) {
			split(order[i], bk, SUBSEP)
			if (n[1, bk[1], bk[2]] > 1 && n[2, bk[1], bk[2]] < n[1, bk[1], bk[2]]) {
				print "perf 6.1 printed the row \"" bk[2] "\" twice (its tree missed the equal entry), perfkit once"
				exit 0
			}
		}
		exit 1
	     }' "$2" "$3"
}
