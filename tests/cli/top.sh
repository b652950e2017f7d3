#!/usr/bin/env bash
# perfkit top --stdio on a spinning pk-workload: the number of refreshes,
# the header (rate matching perf record on the same target and -F), the hottest row
# being the workload's spin function system-wide (-a) and per process (-p),
# -K/-U hiding, -F, usage errors, and the -p profile against perf record +
# perf report on the same process as the oracle.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
[ -x "$PK_WORKLOAD" ] || skip_all "$PK_WORKLOAD not built"
"$PERFKIT" top -h >/dev/null 2>&1 || skip_all "this perfkit has no top command"
if ! "$PERFKIT" top --stdio -n 1 -d 0.2 >"$TMP/probe" 2>&1; then
	grep -qiE 'permi|access|paranoid' "$TMP/probe" &&
		skip_all "sampling is not permitted here: $(head -1 "$TMP/probe")"
fi
NCPU=$(getconf _NPROCESSORS_ONLN)

# a workload that keeps every CPU busy for the whole test
"$PK_WORKLOAD" --spin-ms 60000 --threads "$NCPU" &
W=$!
trap 'kill $W 2>/dev/null; wait $W 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3

# iterations FILE: the number of refreshes printed
iterations() { grep -c '^   PerfTop:' "$1"; }
# block N FILE: the lines of refresh N (1-based)
block() { awk -v n="$1" '/^   PerfTop:/ { k++ } k == n' "$2"; }
# first_row N FILE: "PERCENT DSO SYMBOL" of the first row of refresh N
first_row() { block "$1" "$2" | awk '/^ +[0-9.]+%  / { sub("%", "", $1); print $1, $2, $4; exit }'; }
# rate N FILE: the irqs/sec of refresh N
rate() { block "$1" "$2" | awk '/^   PerfTop:/ { print $2; exit }'; }
# row_pct N FILE SYMBOL: percent of SYMBOL in refresh N (0 if absent)
row_pct() { block "$1" "$2" | awk -v s="$3" '/^ +[0-9.]+%  / && $NF == s { sub("%", "", $1); p = $1 } END { print p + 0 }'; }

# ---- system wide -------------------------------------------------------------
# The oracle for the header's irqs/sec: perf record sampling the same target at
# the same frequency during the same seconds gets the rate the kernel delivers
# here (a busy VM loses timer ticks to steal time).
# perf_rate_start NAME PERF-RECORD-ARGS...: start it for 3.2 s
perf_rate_start() {
	local name=$1
	shift
	have_perf || return 0
	perf record -q -e cpu-clock -o "$TMP/$name.rate" "$@" -- sleep 3.2 >/dev/null 2>&1 &
	echo $! >"$TMP/$name.rate.pid"
}
# check_rates FILE NAME HZ TEXT [MARGIN1]: the irqs/sec of refreshes 1 and 2
# of FILE each within 15% (refresh 1: MARGIN1%) of perf's samples/s, or of
# HZ x CPUs without perf. Refresh 1 compares with perf's first second. Refresh
# 2 compares with the faster of perf's second and third: perfkit's start-up
# (1.3 s under ASan) shifts its refreshes by up to a second against perf's,
# and takes CPU from a -p target, whose cpu-clock then samples less, during
# perf's second second (12 to 16% here under ASan) but not during refresh 2.
# Each refresh counts the samples taken during it, the ones still in the ring
# buffers at its end included: a refresh that left them to the next read 12%
# low here, and the next one 15% high (40% under ASan).
check_rates() {
	local want1=$(($3 * NCPU)) want2=$(($3 * NCPU)) want3
	[ -f "$TMP/$2.rate.pid" ] && wait "$(cat "$TMP/$2.rate.pid")"
	if [ -s "$TMP/$2.rate" ]; then
		perf script -i "$TMP/$2.rate" -F time 2>/dev/null |
			awk '{ t = $1 + 0; if (n++ == 0) f = t; if (t < f + 1) a++; else if (t < f + 2) b++; else if (t < f + 3) c++ }
			     END { print a + 0, b + 0, c + 0 }' >"$TMP/$2.rates"
		read -r want1 want2 want3 <"$TMP/$2.rates"
		note "perf record got $want1 samples in its first second, $want2 in its second, $want3 in its third"
		[ "$want3" -gt "$want2" ] && want2=$want3
	fi
	note "perfkit top: refresh 1 $(rate 1 "$1")/s, refresh 2 $(rate 2 "$1")/s"
	within "$(rate 1 "$1")" "$want1" "${5:-15}" "refresh 1: $4"
	within "$(rate 2 "$1")" "$want2" 15 "refresh 2: $4"
}

perf_rate_start all -a -F 4000
"$PERFKIT" top --stdio -n 2 -d 1 -a >"$TMP/all" 2>"$TMP/all.err"
is "$?" 0 "top -a exits 0 after -n 2"
is "$(iterations "$TMP/all")" 2 "top -n 2 prints two refreshes"
grep -q "^   PerfTop: .*irqs/sec  kernel: *[0-9.]*%  exact: .* lost: [0-9]*/[0-9]* \[4000Hz cpu-clock\],  (all, $NCPU CPUs\?)$" \
	"$TMP/all" && pass "header: rate, kernel share, lost, 4000Hz cpu-clock, all CPUs" ||
	fail "header line" "$(grep PerfTop "$TMP/all" | head -1)"
grep -q '^  Overhead  Shared Object  *Symbol$' "$TMP/all" && pass "column header" || fail "column header"
read -r pct dso sym <<<"$(first_row 2 "$TMP/all")"
if [ "$dso" = pk-workload ] && [ "$sym" = work ]; then
	pass "hottest symbol system-wide is the workload's work ($pct%)"
else
	fail "hottest symbol system-wide is the workload's work" "first row: $pct $dso $sym"
fi
# every CPU samples at 4000 Hz while the workload keeps them busy
check_rates "$TMP/all" all 4000 "rate is about 4000 Hz x $NCPU CPUs, as perf record gets"
total=$(block 2 "$TMP/all" | awk '/^ +[0-9.]+%  / { sub("%", "", $1); t += $1 } END { printf "%.2f", t }')
awk -v t="$total" 'BEGIN { exit !(t > 0 && t <= 100.05) }' && pass "row percentages add up to at most 100 ($total)" ||
	fail "row percentages add up to at most 100" "sum $total"
rows=$(block 2 "$TMP/all" | grep -cE '^ +[0-9.]+%  ')
is "$rows" 20 "20 rows per refresh without a terminal"

# ---- a refresh whose samples take long to resolve -------------------------------
# Every shared object's open slowed to 150 ms (pk-slow-open.so): resolving the
# first samples of each process takes seconds, as under a sanitizer on a
# loaded machine, and processes first sampled meanwhile are resolved at the
# end of refresh 1. The samples taken during that wait in the rings (4 MB per
# CPU, -m 1024, which do not fill) for refresh 2, which must count them over
# the time they span: when refresh 1 ended after resolving its samples,
# refresh 2 showed 2 to 600 times the rate, and refresh 1 was 20 to 30% low.
if [ -f "${PK_SLOW_OPEN_SO:-}" ]; then
	perf_rate_start slow -a -F 4000
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$PK_SLOW_OPEN_SO" \
		PK_SLOW_OPEN_MS=150 "$PERFKIT" top --stdio -n 2 -d 1 -a -m 1024 >"$TMP/slow" 2>"$TMP/slow.err"
	is "$?" 0 "top -a with slow symbol loading exits 0"
	is "$(iterations "$TMP/slow")" 2 "top -a with slow symbol loading prints two refreshes"
	check_rates "$TMP/slow" slow 4000 "slow symbol loading: rate is about 4000 Hz x $NCPU CPUs"
else
	skip "no pk-slow-open.so (\$PK_SLOW_OPEN_SO): slow symbol loading not tested"
fi

# ---- one process ------------------------------------------------------------------
"$PERFKIT" top --stdio -n 2 -d 1 -p "$W" >"$TMP/pid" 2>"$TMP/pid.err"
is "$?" 0 "top -p exits 0"
is "$(iterations "$TMP/pid")" 2 "top -p prints two refreshes"
grep -q "(target_pid: $W)\$" "$TMP/pid" && pass "header names the target pid" ||
	fail "header names the target pid" "$(grep PerfTop "$TMP/pid" | head -1)"
read -r pct dso sym <<<"$(first_row 2 "$TMP/pid")"
if [ "$dso" = pk-workload ] && [ "$sym" = work ] && awk -v p="$pct" 'BEGIN { exit !(p >= 50) }'; then
	pass "hottest symbol of -p is work with $pct%"
else
	fail "hottest symbol of -p is work with at least 50%" "first row: $pct $dso $sym"
fi
# every object in the rows must be mapped by the target (sanitizer builds add their runtimes)
awk 'NF >= 6 { n = split($6, p, "/"); print p[n] }' "/proc/$W/maps" 2>/dev/null | sort -u >"$TMP/pid.objs"
printf '%s\n' '[kernel.kallsyms]' '[vdso]' '[unknown]' >>"$TMP/pid.objs"
strays=$(block 2 "$TMP/pid" | awk '/^ +[0-9.]+%  / { print $2 }' | sort -u | grep -vxFf "$TMP/pid.objs")
if [ -z "$strays" ]; then
	pass "-p rows are only the workload's objects and the kernel"
else
	fail "-p rows are only the workload's objects" "not mapped by $W: $strays"
fi

# the oracle: perf record on the same process, share of work
if have_perf && perf record -q -e cpu-clock -F 4000 -p "$W" -o "$TMP/perf.data" -- sleep 1 >/dev/null 2>&1; then
	want=$(perf report --stdio --no-children -i "$TMP/perf.data" --sort sym 2>/dev/null |
		awk '/^ +[0-9.]+%/ && $NF == "work" { sub("%", "", $1); print $1; exit }')
	got=$(row_pct 2 "$TMP/pid" work)
	if [ -n "$want" ] && awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 10) }'; then
		pass "work's share of -p ($got%) matches perf record + report ($want%) within 10 points"
	else
		fail "work's share of -p matches perf" "perfkit $got%, perf ${want:-none}%"
	fi
else
	skip "Linux perf not usable here: no oracle comparison"
fi

# ---- hiding and frequency -----------------------------------------------------------
"$PERFKIT" top --stdio -n 1 -d 0.5 -K >"$TMP/K" 2>/dev/null
block 1 "$TMP/K" | grep -qE '^ +[0-9.]+%  .*\[k\] ' && fail "-K hides kernel rows" || pass "-K hides kernel rows"
grep -qE '^ +[0-9.]+%  .*\[\.\] ' "$TMP/K" && pass "-K still shows user rows" || fail "-K still shows user rows"
"$PERFKIT" top --stdio -n 1 -d 0.5 -U >"$TMP/U" 2>/dev/null
grep -qE '^ +[0-9.]+%  .*\[\.\] ' "$TMP/U" && fail "-U hides user rows" || pass "-U hides user rows"
perf_rate_start F -p "$W" -F 1000
"$PERFKIT" top --stdio -n 2 -d 1 -F 1000 -E 5 -p "$W" >"$TMP/F" 2>/dev/null
grep -q '\[1000Hz cpu-clock\]' "$TMP/F" && pass "-F 1000 in the header" || fail "-F 1000 in the header"
# Refresh 1 of -p within 25%: top's start-up (kallsyms parsed on one of the CPUs the target's
# threads share) takes CPU from the target, whose cpu-clock then samples less (8 to 12% here,
# 17% beside perf's own start-up); -a samples whatever runs and keeps 15%.
check_rates "$TMP/F" F 1000 "-F 1000 -p: about 1000 Hz x $NCPU busy threads, as perf record gets" 25
is "$(block 2 "$TMP/F" | grep -cE '^ +[0-9.]+%  ')" 5 "-E 5 prints 5 rows"

# ---- errors ---------------------------------------------------------------------------
"$PERFKIT" top --bogus >/dev/null 2>"$TMP/err"
is "$?" 2 "unknown option: exit 2"
grep -q "^perfkit: unknown option '--bogus'" "$TMP/err" && pass "unknown option named" || fail "unknown option named" "$(cat "$TMP/err")"
"$PERFKIT" top -a -p "$W" >/dev/null 2>&1
is "$?" 2 "-a with -p: exit 2"
"$PERFKIT" top --stdio -n 1 -p 2147483646 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -ne 0 ] && grep -q '^perfkit: ' "$TMP/err" && pass "a pid that does not exist fails with a message" ||
	fail "a pid that does not exist fails with a message" "rc $rc: $(cat "$TMP/err")"

# a process that runs nothing: a refresh without samples (sorting no rows was undefined
# behaviour, caught under UBSan)
sleep 30 &
IDLE=$!
"$PERFKIT" top --stdio -n 1 -d 0.1 -e cpu-clock -p "$IDLE" >"$TMP/idle.out" 2>"$TMP/idle.err"
is "$?" 0 "top on an idle process exits 0"
[ "$(iterations "$TMP/idle.out")" = 1 ] && pass "top on an idle process prints its refresh" ||
	fail "top on an idle process prints its refresh" "$(head -5 "$TMP/idle.out") $(cat "$TMP/idle.err")"
kill "$IDLE" 2>/dev/null
wait "$IDLE" 2>/dev/null
done_testing
