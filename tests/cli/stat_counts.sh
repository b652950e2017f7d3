#!/usr/bin/env bash
# perfkit stat counts against the kernel's truth and Linux perf: a workload
# that makes exactly N write(2) calls and touches exactly M pages; groups
# against the same events alone; inheritance; exit status.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
"$PERFKIT" stat -e syscalls:sys_enter_write -x, -o /dev/null -- true 2>/dev/null ||
	skip_all "tracepoint syscalls:sys_enter_write cannot be counted here"

W="$PK_WORKLOAD"
stat_csv() { "$PERFKIT" stat -x, -o "$TMP/out" "$@" >/dev/null 2>&1; }

# Exactly N writes.
for n in 1 1000 25000; do
	stat_csv -e syscalls:sys_enter_write -- "$W" --writes $n
	is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" "$n" "sys_enter_write equals $n writes exactly"
done

# Threads and children are counted (inherit is the default); --no-inherit counts only the parent.
stat_csv -e syscalls:sys_enter_write -- "$W" --writes 300 --threads 4
is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" 1200 "4 threads x 300 writes counted through inherit"
stat_csv -e syscalls:sys_enter_write -- "$W" --writes 250 --children 3
is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" 750 "3 children x 250 writes counted through inherit"
stat_csv --no-inherit -e syscalls:sys_enter_write -- "$W" --writes 250 --children 3
is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" 0 "--no-inherit: the parent made no writes"
stat_csv -i -e syscalls:sys_enter_write -- "$W" --writes 250
is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" 250 "-i still counts the command itself"
stat_csv -e syscalls:sys_enter_write -- "$W" --writes 40 --exec
is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" 40 "counting continues across a second exec"

# Group counts equal the same events opened alone.
stat_csv -e '{syscalls:sys_enter_write,page-faults}' -- "$W" --writes 5000 --pages 8000
gw=$(csv_value "$TMP/out" syscalls:sys_enter_write); gp=$(csv_value "$TMP/out" page-faults)
stat_csv -e syscalls:sys_enter_write -e page-faults -- "$W" --writes 5000 --pages 8000
aw=$(csv_value "$TMP/out" syscalls:sys_enter_write); ap=$(csv_value "$TMP/out" page-faults)
is "$gw" "$aw" "group {writes,page-faults}: writes equal the event alone"
within "$gp" "$ap" 2 "group {writes,page-faults}: page-faults equal the event alone (2%)"

# Against Linux perf on the same workload.
if have_perf; then
	perf stat -x, -o "$TMP/perf" -e syscalls:sys_enter_write,page-faults -- "$W" --writes 777 --pages 20000 >/dev/null 2>&1
	stat_csv -e syscalls:sys_enter_write,page-faults -- "$W" --writes 777 --pages 20000
	is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" "$(csv_value "$TMP/perf" syscalls:sys_enter_write)" \
		"writes equal perf stat's"
	within "$(csv_value "$TMP/out" page-faults)" "$(csv_value "$TMP/perf" page-faults)" 2 \
		"page-faults agree with perf stat within 2%"
	pf=$(csv_value "$TMP/out" page-faults)
	[ "${pf:-0}" -ge 20000 ]; ok $? "page-faults cover the 20000 touched pages ($pf)"
	perf stat -x, -o "$TMP/perf" --no-inherit -e syscalls:sys_enter_write -- "$W" --writes 10 --children 2 >/dev/null 2>&1
	stat_csv --no-inherit -e syscalls:sys_enter_write -- "$W" --writes 10 --children 2
	is "$(csv_value "$TMP/out" syscalls:sys_enter_write)" "$(csv_value "$TMP/perf" syscalls:sys_enter_write)" \
		"--no-inherit agrees with perf"
else
	skip "Linux perf not usable here: no oracle comparison"
fi

# Exit status is the command's; a missing command is 127 with a message.
"$PERFKIT" stat -e task-clock -o /dev/null -- "$W" --exit 7 >/dev/null 2>&1
is $? 7 "exit status is the command's (7)"
"$PERFKIT" stat -e task-clock -o /dev/null -- "$W" >/dev/null 2>&1
is $? 0 "exit status is the command's (0)"
"$PERFKIT" stat -e task-clock -- /nonexistent/cmd >/dev/null 2>"$TMP/err"
is $? 127 "a command that cannot be found exits 127"
grep -q "'/nonexistent/cmd': command not found" "$TMP/err"; ok $? "and says so: $(head -1 "$TMP/err")"
printf 'not a program\n' > "$TMP/noexec"; chmod 644 "$TMP/noexec"
"$PERFKIT" stat -e task-clock -- "$TMP/noexec" >/dev/null 2>"$TMP/err"
is $? 126 "a file that cannot be executed exits 126"

done_testing
