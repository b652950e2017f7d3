#!/usr/bin/env bash
# perfkit stat targets: system-wide (-a, -C, -A, --per-core, --per-socket),
# attaching to processes (-p) and threads (-t), and Ctrl-C.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
W="$PK_WORKLOAD"
ncpu=$(getconf _NPROCESSORS_ONLN)

if "$PERFKIT" stat -a -e task-clock -o /dev/null -- true >/dev/null 2>&1; then
	"$PERFKIT" stat -a -A -x, -o "$TMP/a" -e task-clock -- sleep 0.2 >/dev/null 2>&1
	is $? 0 "-a -A runs"
	is "$(grep -c '^CPU[0-9]*,' "$TMP/a")" "$ncpu" "-a -A prints one line per online CPU ($ncpu)"
	# Each CPU's task-clock covers the ~200 ms run (idle counts too): CPUs utilized ~ 1.
	bad=$(awk -F, '/^CPU/ { if ($7 < 0.9 || $7 > 1.1) print $1 }' "$TMP/a")
	is "$bad" "" "-a -A: every CPU's task-clock is ~1 CPUs utilized"
	"$PERFKIT" stat -a -A -r 3 -x, -o "$TMP/ar" -e task-clock -- sleep 0.05 >/dev/null 2>&1
	is "$(grep -Ec '^CPU[0-9]+,[0-9.]+,msec,task-clock,[0-9.]+%,' "$TMP/ar")" "$ncpu" \
		"-a -A -r 3: every CPU line carries its own noise column"
	"$PERFKIT" stat -a -x, -o "$TMP/g" -e task-clock -- sleep 0.2 >/dev/null 2>&1
	within "$(awk -F, '/task-clock/ { print $6 }' "$TMP/g")" "$ncpu" 10 "-a aggregated: CPUs utilized ~ $ncpu"
	"$PERFKIT" stat -C 0 -A -x, -o "$TMP/c" -e task-clock -- sleep 0.1 >/dev/null 2>&1
	is "$(grep -c '^CPU0,' "$TMP/c"),$(grep -c '^CPU' "$TMP/c")" "1,1" "-C 0 -A counts CPU0 only"
	"$PERFKIT" stat -a --per-core -x, -o "$TMP/pc" -e task-clock -- sleep 0.05 >/dev/null 2>&1
	grep -Eq '^S[0-9]+-D[0-9]+-C[0-9]+,[0-9]+,' "$TMP/pc"; ok $? "--per-core prefixes S-D-C and the CPU count"
	is "$(awk -F, '{ s += $2 } END { print s }' "$TMP/pc")" "$ncpu" "--per-core covers every CPU once"
	"$PERFKIT" stat -a --per-socket -x, -o "$TMP/ps" -e task-clock -- sleep 0.05 >/dev/null 2>&1
	is "$(awk -F, '{ s += $2 } END { print s }' "$TMP/ps")" "$ncpu" "--per-socket covers every CPU once"
	if have_perf; then
		perf stat -a --per-core -x, -o "$TMP/perfpc" -e task-clock -- sleep 0.05 >/dev/null 2>&1
		is "$(cut -d, -f1,2 "$TMP/pc" | grep -v '^#' | grep . | sort)" "$(cut -d, -f1,2 "$TMP/perfpc" | grep -v '^#' | grep . | sort)" \
			"--per-core units equal perf's"
		for m in -A --per-core --per-socket; do
			perf stat -a $m -I 100 -e task-clock -- sleep 0.05 2>"$TMP/perfi" >/dev/null
			"$PERFKIT" stat -a $m -I 100 -e task-clock -- sleep 0.05 2>"$TMP/outi" >/dev/null
			is "$(head -1 "$TMP/outi")" "$(head -1 "$TMP/perfi")" "-I $m: header as perf's"
			is "$(awk 'NR == 2 { print index($0, "#"), length($0) }' "$TMP/outi")" \
			   "$(awk 'NR == 2 { print index($0, "#"), length($0) }' "$TMP/perfi")" "-I $m: columns as perf's"
		done
	else
		skip "Linux perf not usable here"
	fi
	# -a without a command runs until SIGINT, then prints.
	"$PERFKIT" stat -a -x, -o "$TMP/sig" -e task-clock >/dev/null 2>&1 &
	pid=$!
	wait_counting $pid
	sleep 0.2
	kill -INT $pid
	wait $pid
	is $? 0 "-a without a command stops cleanly on SIGINT"
	grep -q task-clock "$TMP/sig"; ok $? "and prints the counts so far"
else
	skip "system-wide counting not permitted here"
fi

# attach OPTION OUT WORKLOAD-ARGS...: start the workload held on a file, attach
# perfkit stat with OPTION (-p or -t) to it, release it, and wait for both.
# Sets $attach_ended to 0 when perfkit ended by itself once the target exited.
attach() {
	local opt=$1 out=$2 go="$TMP/go.$RANDOM" wpid spid
	shift 2
	"$W" --wait-file "$go" "$@" &
	wpid=$!
	sleep 0.2
	"$PERFKIT" stat $opt $wpid -x, -o "$out" -e syscalls:sys_enter_write >/dev/null 2>&1 &
	spid=$!
	wait_counting $spid
	touch "$go"
	wait $wpid
	timeout 10 tail --pid=$spid -f /dev/null
	attach_ended=$?
	wait $spid
}

# -p PID: attach, count exactly the writes made after attaching, end when the process exits.
attach -p "$TMP/p" --writes 321 --threads 3
is $attach_ended 0 "-p ends by itself when the process exits"
is "$(csv_value "$TMP/p" syscalls:sys_enter_write)" 963 "-p counts the 3 x 321 writes of the process's threads"

# -p PID -- sleep N: counts the process while the command runs.
"$W" --wait-file "$TMP/go2" --writes 50 --sleep-ms 100 &
wpid=$!
sleep 0.2
"$PERFKIT" stat -p $wpid -x, -o "$TMP/p2" -e syscalls:sys_enter_write -- sleep 2 >/dev/null 2>&1 &
spid=$!
wait_counting $spid
touch "$TMP/go2"
wait $spid
is $? 0 "-p PID -- sleep 2 exits with sleep's status"
is "$(csv_value "$TMP/p2" syscalls:sys_enter_write)" 50 "-p PID -- sleep: the process's 50 writes, not sleep's"
wait $wpid

# -t TID: a single thread.
attach -t "$TMP/t" --writes 77
is $attach_ended 0 "-t ends by itself when the thread exits"
is "$(csv_value "$TMP/t" syscalls:sys_enter_write)" 77 "-t TID counts the thread's 77 writes"

# Ctrl-C while a command runs: counts so far are printed.
"$PERFKIT" stat -x, -o "$TMP/cc" -e syscalls:sys_enter_write -- "$W" --writes 9 --sleep-ms 0 --spin-ms 5000 >/dev/null 2>&1 &
spid=$!
wait_counting $spid
sleep 0.2
kill -INT $spid
wait $spid
st=$?
[ $st -ne 0 ]; ok $? "Ctrl-C: exit status reports the interrupted command ($st)"
is "$(csv_value "$TMP/cc" syscalls:sys_enter_write)" 9 "Ctrl-C: the counts so far are printed"

# Attaching to a process that does not exist.
"$PERFKIT" stat -p 999999999 -e task-clock >/dev/null 2>"$TMP/err"
st=$?
[ $st -ne 0 ] && grep -q "999999999" "$TMP/err"; ok $? "-p with no such process fails and names it ($st)"
# Lists of ids that hold none, or something else (the empty one failed without a message).
for list in , 12,x; do
	"$PERFKIT" stat -p "$list" -e task-clock >/dev/null 2>"$TMP/err"
	is "$?" 2 "-p '$list': usage error"
	grep -q "'$list'" "$TMP/err"; ok $? "-p '$list': the message quotes the list ($(cat "$TMP/err"))"
done

done_testing
