#!/usr/bin/env bash
# --switch-on / --switch-off / --show-on-off-events against perf 6.1 on the
# same file: report's totals and rows, script's every line, with the switch
# before report's --comm filter and after script's; a name no event has
# (exit status 2, perf's message); pipe input, where perf 6.1 finds no event
# by name: perfkit drops there what it drops in the file perf inject makes.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
have_perf || skip_all "no usable perf"
W="$PK_WORKLOAD"

# two events sampled in turn, and a third that samples rarely (pf: page faults, each 50th)
# (the shell's page faults come before the workload's: a --comm filter drops switching samples)
perf record -q -e cpu-clock -e task-clock -e page-faults/period=50,name=pf/ -F 999 -o "$TMP/two.data" -- \
	sh -c "exec $W --spin-ms 150 --pages 400" >/dev/null 2>&1
[ -s "$TMP/two.data" ] || skip_all "perf record failed"
f="$TMP/two.data"

# lines LOG: the sample totals and the rows of a report
lines() { grep -E '^# (Samples|Event count)|^ +[0-9]+\.[0-9]+%' "$1"; }

report() {
	local name=$1; shift
	perf report --stdio -g none --sort comm,dso "$@" -i "$f" >"$TMP/perf.out" 2>/dev/null
	"$PERFKIT" report --stdio -g none --sort comm,dso "$@" -i "$f" >"$TMP/pk.out" 2>/dev/null
	if diff <(lines "$TMP/perf.out") <(lines "$TMP/pk.out") >"$TMP/diff"; then pass "report $name"
	else fail "report $name" "$(head -10 "$TMP/diff")"; fi
}

script() {
	local name=$1; shift
	perf script -F event,tid,time,ip,sym "$@" -i "$f" >"$TMP/perf.out" 2>/dev/null
	"$PERFKIT" script -F event,tid,time,ip,sym "$@" -i "$f" >"$TMP/pk.out" 2>/dev/null
	if diff "$TMP/perf.out" "$TMP/pk.out" >"$TMP/diff"; then pass "script $name ($(wc -l <"$TMP/pk.out") lines)"
	else fail "script $name" "$(head -10 "$TMP/diff")"; fi
}

for args in "--switch-on task-clock" "--switch-on task-clock --show-on-off-events" \
	    "--switch-off task-clock" "--switch-off pf --show-on-off-events" \
	    "--switch-on pf --switch-off task-clock" \
	    "--switch-on pf --switch-off cpu-clock --show-on-off-events" \
	    "--switch-on pf --comm nosuch" "--switch-on pf --switch-off task-clock --comm pk-workload"; do
	# shellcheck disable=SC2086 # options of their own
	report "$args" $args
	# shellcheck disable=SC2086
	script "$args" $args
done
# the switch drops what it drops: fewer samples than without it
"$PERFKIT" report --stdio --sort comm --switch-on pf -i "$f" 2>/dev/null | lines /dev/stdin >"$TMP/on"
"$PERFKIT" report --stdio --sort comm -i "$f" 2>/dev/null | lines /dev/stdin >"$TMP/all"
! diff -q "$TMP/on" "$TMP/all" >/dev/null; ok $? "--switch-on pf: other totals than without it"

for cmd in report script; do
	"$PERFKIT" $cmd --switch-on nosuch -i "$f" >/dev/null 2>"$TMP/e"
	is "$?" 2 "$cmd --switch-on nosuch: exit status 2"
	grep -q "switch-on event not found (nosuch)" "$TMP/e"; ok $? "$cmd --switch-on nosuch: perf's message"
done

# pipe input (perf 6.1: "switch-on event not found"): as the file perf inject makes of it
if perf inject -i "$f" -o - >"$TMP/pipe.data" 2>/dev/null; then
	"$PERFKIT" report --stdio --sort comm --switch-on pf -i - <"$TMP/pipe.data" 2>/dev/null |
		lines /dev/stdin >"$TMP/p"
	diff "$TMP/on" "$TMP/p" >"$TMP/diff"; ok $? "pipe input: the same totals and rows as the file"
else
	skip "perf inject to a pipe failed"
fi
done_testing
