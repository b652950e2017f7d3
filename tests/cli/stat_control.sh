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

# --control with -D -1: disabled until 'enable' arrives; each command is acked.
mkfifo "$TMP/ctl" "$TMP/ack"
"$PERFKIT" stat -D -1 --control "fifo:$TMP/ctl,$TMP/ack" -x, -o "$TMP/c" -e syscalls:sys_enter_write -- \
	"$W" --writes 10 --wait-file "$TMP/phase1" --sleep-ms 0 --exec >/dev/null 2>"$TMP/cerr" &
spid=$!
exec 7<>"$TMP/ack"
sleep 0.3
echo enable > "$TMP/ctl"
read -t 5 -r reply <&7
is "$reply" "ack" "'enable' is acknowledged"
touch "$TMP/phase1"
wait $spid
exec 7<&-
is "$(csv_value "$TMP/c" syscalls:sys_enter_write)" 10 "writes after 'enable' are counted"
grep -q "Events enabled" "$TMP/cerr"; ok $? "'Events enabled' is reported"

# 'disable' stops counting: writes after it are not counted.
rm -f "$TMP/phase1"
"$PERFKIT" stat --control "fifo:$TMP/ctl,$TMP/ack" -x, -o "$TMP/c2" -e syscalls:sys_enter_write -- \
	"$W" --writes 10 --wait-file "$TMP/phase1" >/dev/null 2>/dev/null &
spid=$!
exec 7<>"$TMP/ack"
sleep 0.3
echo disable > "$TMP/ctl"
read -t 5 -r reply <&7
is "$reply" "ack" "'disable' is acknowledged"
touch "$TMP/phase1"
wait $spid
exec 7<&-
is "$(csv_value "$TMP/c2" syscalls:sys_enter_write)" 0 "writes after 'disable' are not counted"

"$PERFKIT" stat --control "fifo:$TMP/nonexistent" -e task-clock -- true >/dev/null 2>"$TMP/err"
is $? 2 "--control with a missing FIFO is a usage error"
grep -q nonexistent "$TMP/err"; ok $? "and names the FIFO"

done_testing
