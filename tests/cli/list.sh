#!/usr/bin/env bash
# perfkit list against perf list: the same software events, tracepoints and
# kernel PMU events; hardware events the kernel rejects here are marked.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"

names() { sed -n 's/^  \([^ ]*\).*\[.*/\1/p' | sort; }

"$PERFKIT" list sw > "$TMP/sw"
is $? 0 "list sw runs"
grep -q '^  task-clock  *\[Software event\]$' "$TMP/sw"; ok $? "task-clock is a software event"
"$PERFKIT" list hw > "$TMP/hw"
is "$(names < "$TMP/hw" | tr '\n' ' ')" \
	"branch-instructions branch-misses bus-cycles cache-misses cache-references cpu-cycles instructions ref-cycles stalled-cycles-backend stalled-cycles-frontend " \
	"list hw names the ten generic hardware events"
# Marked unsupported exactly when perf stat says <not supported> for the event.
if "$PERFKIT" stat -e cycles -x, -o "$TMP/cy" -- true >/dev/null 2>&1 && grep -q 'not supported' "$TMP/cy"; then
	grep -q '^  cpu-cycles OR cycles .*<not supported>$' "$TMP/hw"; ok $? "cycles marked <not supported>, as stat finds it"
else
	grep -q '^  cpu-cycles OR cycles .*\]$' "$TMP/hw"; ok $? "cycles not marked: the kernel counts it here"
fi
is "$(wc -l < "$("$PERFKIT" list cache > "$TMP/cache"; echo "$TMP/cache")" | tr -d ' ')" \
	"$(grep -c 'Hardware cache event' "$TMP/cache")" "list cache prints only cache events"

if have_perf; then
	is "$(names < "$TMP/sw")" "$(perf list sw 2>/dev/null | grep "Software event" | names)" \
		"kernel software events equal perf list sw (perf's own tool events aside)"
	if [ -r /sys/kernel/tracing/available_events ] || [ -r /sys/kernel/debug/tracing/available_events ]; then
		"$PERFKIT" list tracepoint | names > "$TMP/tp"
		perf list tracepoint 2>/dev/null | names > "$TMP/ptp"
		is "$(wc -l < "$TMP/tp")" "$(wc -l < "$TMP/ptp")" "as many tracepoints as perf list ($(wc -l < "$TMP/ptp"))"
		cmp -s "$TMP/tp" "$TMP/ptp"; ok $? "the same tracepoint names as perf list"
	else
		skip "tracefs not readable"
	fi
	is "$("$PERFKIT" list pmu | names)" "$(perf list pmu 2>/dev/null | names)" "kernel PMU events equal perf list pmu"
else
	skip "Linux perf not usable here: no oracle comparison"
fi

"$PERFKIT" list bogus >/dev/null 2>"$TMP/err"
is $? 2 "unknown category exits 2"
grep -q "bogus" "$TMP/err"; ok $? "and names it"

done_testing
