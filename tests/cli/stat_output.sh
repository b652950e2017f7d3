#!/usr/bin/env bash
# perfkit stat output forms against perf stat's: the default event list and
# its <not supported> markers, the text layout, -x CSV fields, -j JSON keys,
# -r repeats with noise, -I intervals, -o and --no-big-num.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
W="$PK_WORKLOAD"

# Default events, in perf's order, with the same ones unsupported as perf says.
"$PERFKIT" stat -x, -o "$TMP/out" -- "$W" --writes 10 >/dev/null 2>&1
is $? 0 "default events run"
is "$(cut -d, -f3 "$TMP/out" | grep -v '^$' | grep -v '^#' | tr '\n' ' ')" \
	"task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses " \
	"default event list is perf stat's"
if have_perf; then
	perf stat -x, -o "$TMP/perf" -- "$W" --writes 10 >/dev/null 2>&1
	is "$(grep -c 'not supported' "$TMP/out")" "$(grep -c 'not supported' "$TMP/perf")" \
		"<not supported> on the same events as perf"
	is "$(grep 'not supported' "$TMP/out" | cut -d, -f3 | tr '\n' ' ')" \
	   "$(grep 'not supported' "$TMP/perf" | cut -d, -f3 | tr '\n' ' ')" "and the same names"
	# CSV: the same number of fields per line as perf
	is "$(awk -F, '/task-clock/ { print NF }' "$TMP/out")" "$(awk -F, '/task-clock/ { print NF }' "$TMP/perf")" \
		"CSV task-clock line has perf's field count"
	is "$(awk -F, '/task-clock/ { print $2 "," $7 }' "$TMP/out")" "$(awk -F, '/task-clock/ { print $2 "," $7 }' "$TMP/perf")" \
		"CSV unit and metric unit match perf's"
	# Text layout: the '#' column and line width match perf's
	perf stat -e task-clock,page-faults -- "$W" --writes 10 2>"$TMP/perft" >/dev/null
	"$PERFKIT" stat -e task-clock,page-faults -- "$W" --writes 10 2>"$TMP/outt" >/dev/null
	is "$(awk '/page-faults/ { print index($0, "#"), length($0) }' "$TMP/outt")" \
	   "$(awk '/page-faults/ { print index($0, "#"), length($0) }' "$TMP/perft")" "text columns line up with perf's"
	# JSON: the same keys as perf -j
	perf stat -j -e task-clock,page-faults -o "$TMP/perfj" -- "$W" >/dev/null 2>&1
	"$PERFKIT" stat -j -e task-clock,page-faults -o "$TMP/outj" -- "$W" >/dev/null 2>&1
	keys() { perl -MJSON::PP -ne 'next unless /^\{/; print join(",", sort keys %{decode_json($_)}), "\n"' "$1"; }
	is "$(keys "$TMP/outj")" "$(keys "$TMP/perfj")" "-j lines have perf's keys"
else
	skip "Linux perf not usable here: no oracle comparison"
fi

# Text: title, rows, elapsed, user, sys.
"$PERFKIT" stat -e task-clock,syscalls:sys_enter_write -- "$W" --writes 3 2>"$TMP/text" >/dev/null
grep -q "Performance counter stats for '$W --writes 3':" "$TMP/text"; ok $? "text title names the command"
grep -Eq '^ +3 +syscalls:sys_enter_write' "$TMP/text"; ok $? "text row for the tracepoint shows 3"
grep -Eq '^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized' "$TMP/text"; ok $? "task-clock in msec with CPUs utilized"
grep -Eq 'seconds time elapsed$' "$TMP/text"; ok $? "elapsed line"
grep -Eq 'seconds user$' "$TMP/text" && grep -Eq 'seconds sys$' "$TMP/text"; ok $? "user and sys lines"

# -j: every line is JSON with numeric fields in range.
"$PERFKIT" stat -j -e syscalls:sys_enter_write,task-clock -o "$TMP/j" -- "$W" --writes 42 >/dev/null 2>&1
perl -MJSON::PP -ne 'next if /^#/ || /^\s*$/; my $o = decode_json($_); print "$o->{event}=$o->{\"counter-value\"}\n"' \
	"$TMP/j" > "$TMP/jv" 2>&1
grep -qx 'syscalls:sys_enter_write=42.000000' "$TMP/jv"; ok $? "-j: counter-value of the tracepoint is 42"

# -r: repeat, mean, noise column in CSV, '(N runs)' and '+-' in text.
"$PERFKIT" stat -r 4 -x, -o "$TMP/r" -e syscalls:sys_enter_write -- "$W" --writes 100 >/dev/null 2>&1
line=$(grep sys_enter_write "$TMP/r")
is "$(echo "$line" | cut -d, -f1)" 100 "-r 4: mean of exactly 100 writes per run is 100"
is "$(echo "$line" | cut -d, -f4)" "0.00%" "-r 4: CSV noise column is 0.00% for identical runs"
"$PERFKIT" stat -r 3 -e task-clock -- "$W" --spin-ms 5 2>"$TMP/rt" >/dev/null
grep -q "(3 runs):" "$TMP/rt"; ok $? "-r 3: title says (3 runs)"
grep -Eq '\+- [0-9.]+ seconds time elapsed  \( \+- *[0-9.]+% \)' "$TMP/rt"; ok $? "-r 3: elapsed with +- and %"
grep -Eq 'task-clock .*\( \+- *[0-9.]+% \)' "$TMP/rt"; ok $? "-r 3: task-clock has its noise"

# -I: intervals with increasing timestamps; deltas sum to the total.
"$PERFKIT" stat -I 100 -x, -o "$TMP/i" -e syscalls:sys_enter_write -- "$W" --writes 500 --spin-ms 450 >/dev/null 2>&1
n=$(grep -c sys_enter_write "$TMP/i")
[ "$n" -ge 4 ]; ok $? "-I 100 over ~450 ms prints >= 4 intervals ($n)"
is "$(awk -F, '/sys_enter_write/ { s += $2 } END { print s }' "$TMP/i")" 500 "-I: interval deltas sum to the 500 writes"
awk -F, '/sys_enter_write/ { if ($1 + 0 <= last) bad = 1; last = $1 + 0 } END { exit bad }' "$TMP/i"
ok $? "-I: timestamps increase"
"$PERFKIT" stat -I 100 -e task-clock -- "$W" --spin-ms 250 2>"$TMP/it" >/dev/null
grep -q '^#           time             counts unit events$' "$TMP/it"; ok $? "-I text header as perf's"

# -o FILE and --no-big-num.
"$PERFKIT" stat -o "$TMP/o" -e syscalls:sys_enter_write -- "$W" --writes 12345 >/dev/null 2>"$TMP/stderr"
grep -q '^# started on ' "$TMP/o"; ok $? "-o FILE starts with '# started on'"
[ ! -s "$TMP/stderr" ]; ok $? "-o FILE leaves stderr empty"
LC_ALL=en_US.UTF-8 "$PERFKIT" stat --no-big-num -e syscalls:sys_enter_write -- "$W" --writes 12345 2>"$TMP/nb" >/dev/null
grep -Eq '^ +12345 +syscalls' "$TMP/nb"; ok $? "--no-big-num prints 12345 without separators"

done_testing
