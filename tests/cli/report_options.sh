#!/usr/bin/env bash
# perfkit report's smaller options against perf report 6.1 on the same
# files, the whole text: --group-sort-idx (a group's rows by one member's
# values: two- and three-member groups, with Children, -n, --hierarchy, an
# index out of range, and the refusal on a file without groups); -p REGEX,
# which adds the parent key (found callers first in Children mode), and -x
# (--exclude-other), which hides the rows without a parent match; -f; the
# trace key by default on a file of tracepoints alone (not a pipe, as perf)
# and --raw-trace's fields (perf 6.1's rules, not the installed
# libtraceevent's), refused where perf would make a column per field; -T,
# the per-thread counts of perf record -s after the report.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
have_perf || skip_all "no usable perf"
SHARED=${PK_SHARED:-../shared}
W="$PK_WORKLOAD"

# same NAME FILE ARGS...: the same report text, the closing tip aside
# (or a skip that says why perf's text is no oracle: perf_failed in tap-lib.bash)
same() {
	local name=$1 f=$2 rc why; shift 2
	perf_report --stdio "$@" -i "$f" 2>/dev/null | grep -v -e '^# (Tip' -e '^# (Cannot load tips' >"$TMP/perf.out"
	rc=${PIPESTATUS[0]}
	"$PERFKIT" report --stdio "$@" -i "$f" 2>/dev/null | grep -v '^# (Tip' >"$TMP/pk.out"
	if why=$(perf_failed "$rc" "$TMP/perf.out" "$TMP/pk.out"); then skip "$name: $why"
	elif [ ! -s "$TMP/perf.out" ]; then skip "$name: perf printed nothing"
	elif diff "$TMP/perf.out" "$TMP/pk.out" >"$TMP/diff"; then pass "$name"
	else fail "$name" "$(head -12 "$TMP/diff")"; keep_files report_options "$f" "$TMP/diff"; fi
}

rec() { perf record -q "$@" >/dev/null 2>&1; }
# members whose rows order otherwise than the leader's: page faults against time
rec -g -e '{cpu-clock,page-faults}' -F 999 -o "$TMP/g2.data" -- "$W" --spin-ms 100 --pages 2000
rec -e '{cpu-clock,task-clock,page-faults}' -F 999 -o "$TMP/g3.data" -- "$W" --spin-ms 100 --pages 2000
rec -e cpu-clock -e page-faults -F 999 -o "$TMP/nogroup.data" -- "$W" --spin-ms 50

for t in g2 g3; do
	f="$TMP/$t.data"
	if [ ! -s "$f" ]; then skip "perf record failed for $t.data"; continue; fi
	for idx in 1 2 3 -1; do
		same "$t.data: --group-sort-idx $idx" "$f" --group-sort-idx "$idx" --sort dso,sym -g none
	done
	same "$t.data: --group-sort-idx 1 -n --sort sym" "$f" --group-sort-idx 1 -n --sort sym -g none
	same "$t.data: --group-sort-idx 1 --children" "$f" --group-sort-idx 1 --children --sort sym -g none
	same "$t.data: --group-sort-idx 1 --no-children, call graphs" "$f" --group-sort-idx 1 --no-children --sort sym
	same "$t.data: --group-sort-idx 1 --hierarchy" "$f" --group-sort-idx 1 --hierarchy --sort dso,sym -g none
done
# the parent: clock_gettime's callers and callees (vdso, libc, the kernel), and the workload's loop
rec -g -e cpu-clock -F 1999 -o "$TMP/p.data" -- "$W" --spin-ms 150
f="$TMP/p.data"
if [ -s "$f" ]; then
	same "--sort dso,parent" "$f" --sort dso,parent -g none
	same "-p: the parent key added" "$f" -p clock_gettime --no-children
	# (rows of 1% and more: ties below come in an order perf's caller-above-callee rule picks)
	same "-p, Children: the outermost match" "$f" -p clock_gettime -g none --percent-limit 1
	same "-p -x: rows without a match hidden" "$f" -p clock_gettime -x
	same "-p -x --no-children -n" "$f" -p clock_gettime -x --no-children -n -g none
	same "-x without -p: every row hidden" "$f" -x -g none
	same "-p -x --percentage relative" "$f" -p clock_gettime -x --percentage relative
	same "-p -x --hierarchy" "$f" -p clock_gettime -x --hierarchy --no-children
	same "-f (--force): accepted, nothing changes" "$f" -f -g none
else
	skip "perf record failed for p.data"
fi
# tracepoints alone: a string, signed and long fields (sched_switch) and pointers (write)
rec -e sched:sched_switch -e syscalls:sys_enter_write -o "$TMP/tp.data" -- "$W" --writes 20 --sleep-ms 20
f="$TMP/tp.data"
if [ -s "$f" ]; then
	same "tracepoints alone: sorted by trace by default" "$f"
	same "tracepoints alone: -n --hierarchy" "$f" -n --hierarchy
	same "tracepoints alone: -F +sample" "$f" -F +sample
	same "--sort trace --raw-trace: name=value per field" "$f" --sort trace --raw-trace
	same "--sort comm,trace --raw-trace -n" "$f" --sort comm,trace --raw-trace -n
	"$PERFKIT" report --stdio --raw-trace -i "$f" >/dev/null 2>"$TMP/e"
	is "$?" 2 "--raw-trace without --sort on tracepoints: exit status 2 (perf's per-field columns)"
	grep -q "use --sort trace --raw-trace" "$TMP/e"; ok $? "--raw-trace without --sort: says what to use"
	perf record -q -e sched:sched_switch -e syscalls:sys_enter_write -o - -- "$W" --writes 20 --sleep-ms 20 \
		>"$TMP/tpipe.data" 2>/dev/null
	perf report --stdio -i - <"$TMP/tpipe.data" 2>/dev/null | grep -v -e '^# (Tip' -e '^# (Cannot' >"$TMP/perf.out"
	"$PERFKIT" report --stdio -i - <"$TMP/tpipe.data" 2>/dev/null | grep -v '^# (Tip' >"$TMP/pk.out"
	diff "$TMP/perf.out" "$TMP/pk.out" >"$TMP/diff"; ok $? "tracepoints in a pipe: perf's usual keys"
else
	skip "perf record of tracepoints failed"
fi
# -T: READ records of inherited threads (perf record -s), two events and a group of two
rec -s -e cpu-clock -e task-clock -o "$TMP/s2.data" -- "$W" --spin-ms 80 --threads 3
rec -s -e '{cpu-clock,task-clock}' -o "$TMP/sg.data" -- "$W" --spin-ms 80 --threads 2 --children 1
for t in s2 sg; do
	f="$TMP/$t.data"
	if [ -s "$f" ]; then
		same "$t.data: -T, a row per thread" "$f" -T -g none --sort comm
		grep -q '^  *[0-9]*  *[0-9]*  *[0-9]*  *[0-9]*$' "$TMP/pk.out"; ok $? "$t.data: -T rows have counts"
	else
		skip "perf record -s failed for $t.data"
	fi
done
[ -s "$TMP/p.data" ] && same "-T on a file without READ records: the titles alone" "$TMP/p.data" -T -g none
f="$SHARED/data/perf.data/quipper/perf.data.group_desc-4.14"
[ -f "$f" ] && same "group_desc-4.14: --group-sort-idx 1" "$f" --group-sort-idx 1 --sort comm,dso,sym
f="$TMP/nogroup.data"
if [ -s "$f" ]; then
	"$PERFKIT" report --stdio --group-sort-idx 1 -i "$f" >/dev/null 2>"$TMP/e"
	is "$?" 2 "--group-sort-idx without groups: exit status 2 (perf refuses it)"
	grep -q "no event groups" "$TMP/e"; ok $? "--group-sort-idx without groups: says why"
	same "--group-sort-idx with --group on a file without groups" "$f" --group --group-sort-idx 1 --sort sym -g none
fi
"$PERFKIT" report --stdio --group-sort-idx x -i "$TMP/g2.data" >/dev/null 2>&1
is "$?" 2 "--group-sort-idx x: exit status 2"
done_testing
