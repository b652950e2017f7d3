#!/usr/bin/env bash
# perfkit stat --delay and --control: counting switched on late, or from
# outside through a FIFO with acknowledgements, as perf stat does.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
W="$PK_WORKLOAD"

# Writes made before the delay ends are not counted; writes after are.
"$PERFKIT" stat -D 400 -x, -o "$TMP/d1" -e syscalls:sys_enter_write -- "$W" --writes 100 --spin-ms 600 >/dev/null 2>&1
is "$(csv_value "$TMP/d1" syscalls:sys_enter_write)" 0 "--delay 400: writes made at once are not counted"
"$PERFKIT" stat -D 100 -x, -o "$TMP/d2" -e syscalls:sys_enter_write -- "$W" --sleep-ms 500 --writes 100 >/dev/null 2>&1
is "$(csv_value "$TMP/d2" syscalls:sys_enter_write)" 100 "--delay 100: writes made after 500 ms are counted"
if have_perf; then
	perf stat -D 400 -x, -o "$TMP/pd" -e syscalls:sys_enter_write -- "$W" --writes 100 --spin-ms 600 >/dev/null 2>&1
	is "$(csv_value "$TMP/d1" syscalls:sys_enter_write)" "$(csv_value "$TMP/pd" syscalls:sys_enter_write)" "--delay agrees with perf"
else
	skip "Linux perf not usable here"
fi

# control COMMAND OUT [STAT-OPTIONS...]: run perfkit stat with --control on a
# workload that writes 10 times once released; send COMMAND first, then release
# it. Sets $reply to what came back on the ack FIFO.
mkfifo "$TMP/ctl" "$TMP/ack"
control() {
	local cmd=$1 out=$2 go="$TMP/go.$RANDOM" spid
	shift 2
	"$PERFKIT" stat "$@" --control "fifo:$TMP/ctl,$TMP/ack" -x, -o "$out" -e syscalls:sys_enter_write -- \
		"$W" --writes 10 --wait-file "$go" --exec >/dev/null 2>"$out.err" &
	spid=$!
	exec 7<>"$TMP/ack"
	wait_counting $spid
	echo "$cmd" > "$TMP/ctl"
	reply=
	read -t 5 -r reply <&7
	touch "$go"
	wait $spid
	exec 7<&-
}

# -D -1: disabled until 'enable' arrives; each command is acked.
control enable "$TMP/c" -D -1
is "$reply" "ack" "'enable' is acknowledged"
is "$(csv_value "$TMP/c" syscalls:sys_enter_write)" 10 "writes after 'enable' are counted"
grep -q "Events enabled" "$TMP/c.err"; ok $? "'Events enabled' is reported"

# 'disable' stops counting: writes after it are not counted.
control disable "$TMP/c2"
is "$reply" "ack" "'disable' is acknowledged"
is "$(csv_value "$TMP/c2" syscalls:sys_enter_write)" 0 "writes after 'disable' are not counted"
grep -q "Events disabled" "$TMP/c2.err"; ok $? "'Events disabled' is reported"

"$PERFKIT" stat --control "fifo:$TMP/nonexistent" -e task-clock -- true >/dev/null 2>"$TMP/err"
is $? 2 "--control with a missing FIFO is a usage error"
grep -q nonexistent "$TMP/err"; ok $? "and names the FIFO"

done_testing
