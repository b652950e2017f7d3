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
