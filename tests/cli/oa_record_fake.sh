#!/usr/bin/env bash
# perfkit oa record end to end, on a fake i915 GPU: pk-fake-i915.so
# (tests/workload/pk-fake-i915.c) stands in front of libc's open, ioctl,
# read, poll and close, behind a fixture /sys tree, so the command runs as
# it would on a Broadwell. Checked: the recording decodes with
# i915-perf-reader (the oracle, when intel-gpu-tools is installed) and
# perfkit oa report with the report count the summary gives; the stream's
# properties (-p, -P, --metric-id without metric files); the clock and
# period of the correlation points (-k, --correlation-period); -P refused
# on an old kernel; "did you mean" for -m; a set without a GUID;
# EACCES explained, with no summary; -s keeps the last records; -f takes
# i915-perf-control's DUMP and QUIT, drops bytes that are not a command
# and names an unknown one, and refuses a path that exists; -- CMD gives
# its exit status (128 + N when a signal ends it, 127 when it does not
# exist) and is stopped at the end of --duration; Ctrl-C leaves a complete
# file; SIGKILL with -s leaves a recording of the device and no reports.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
: "${PK_FAKE_I915_SO:=build/tests/pk-fake-i915.so}"
[ -f "$PK_FAKE_I915_SO" ] || skip_all "$PK_FAKE_I915_SO not built"
SO=$(cd "$(dirname "$PK_FAKE_I915_SO")" && pwd)/$(basename "$PK_FAKE_I915_SO")
META=${PK_SHARED:-../shared}/data/intel-oa
[ -f "$META/oa-bdw.xml" ] || skip_all "no oa-bdw.xml in $META"
META=$(cd "$META" && pwd)
GUID=b541bd57-0e0f-4154-b4c0-5858010a2bf7
HAVE_READER=0
command -v i915-perf-reader >/dev/null 2>&1 && HAVE_READER=1

S=$TMP/sys
mkdir -p "$S/class/drm/card1/device" "$S/class/drm/card1/metrics/$GUID" "$TMP/dev/dri"
ln -s ../../../bus/pci/drivers/i915 "$S/class/drm/card1/device/driver"
echo 300 >"$S/class/drm/card1/gt_min_freq_mhz"
echo 1000 >"$S/class/drm/card1/gt_max_freq_mhz"
echo 5 >"$S/class/drm/card1/metrics/$GUID/id"
: >"$TMP/dev/dri/card1"
export PK_FAKE_I915_NODE=$TMP/dev/dri/card1 PK_FAKE_I915_LOG=$TMP/props

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
REC=(oa record --sys-root "$S" --dev-root "$TMP/dev" --metrics-dir "$META")
# rec ARGS...: perfkit oa record on the fake GPU
rec() { LD_PRELOAD=$SO "$PERFKIT" "${REC[@]}" "$@"; }
# eventually CMD...: CMD succeeds within 10 s (tried every 0.1 s)
eventually() { local _; for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done; return 1; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# stops PID: PID's exit status once it ends within 10 s; 137 when it is killed then
stops() { eventually gone "$1" || kill -9 "$1"; wait "$1"; }
# summary_reports ERRFILE: the report count of the summary line
summary_reports() { sed -n 's/^\[ perfkit oa record: \([0-9]*\) reports.*/\1/p' "$1"; }
# decodes FILE N NAME: perfkit oa report and i915-perf-reader count N reports in FILE
decodes() {
	local got
	got=$("$PERFKIT" oa report --json --metrics-dir "$META" "$1" 2>&1 | tr -d ' \n' | grep -o '"reports":[0-9]*' | head -1 | cut -d: -f2)
	is "$got" "$2" "$3: perfkit oa report counts $2 reports"
	if [ "$HAVE_READER" = 1 ]; then
		got=$(i915-perf-reader -c GpuTime "$1" 2>&1 | sed -n 's/^Reports: //p')
		is "$got" "$2" "$3: i915-perf-reader decodes it, $2 reports"
	else
		skip "i915-perf-reader not installed (intel-gpu-tools)"
	fi
}

# a plain recording
rm -f "$TMP/props"
rec --duration 0.3 -o "$TMP/a.rec" 2>"$TMP/err"
is "$?" 0 "a 0.3 s recording: exit 0"
n=$(summary_reports "$TMP/err")
[ -n "$n" ] && [ "$n" -gt 150 ] && [ "$n" -lt 260 ]
ok $? "the summary counts the reports of 0.3 s at 1.311 ms ($n)"
grep -q 'exponent 13 (1.311 ms)' "$TMP/err"
ok $? "the summary gives the exponent and its period"
decodes "$TMP/a.rec" "$n" "plain"
if [ "$HAVE_READER" = 1 ]; then
	i915-perf-reader -c GpuTime "$TMP/a.rec" | grep -q '^Context switches: 3$'
	ok $? "the reader finds the fake's three contexts"
fi
is "$(grep -v '^reg_read' "$TMP/props" | tr '\n' ' ')" "2 1 3 5 4 10 5 13 open 0 " \
	"the stream: SAMPLE_OA 1, metric set 5 from sysfs, format 10, exponent 13"
is "$(sed -n 's/^reg_read clock //p' "$TMP/props" | sort -u | tr '\n' ' ')" "1 " \
	"correlation points on CLOCK_MONOTONIC (1) by default"

# -k: the clock of the correlation points
for k in mono_raw:4 boot:7 raw:4 boottime:7 mono:1; do
	rm -f "$TMP/props"
	rec --duration 0.1 -k "${k%:*}" -o "$TMP/k.rec" 2>"$TMP/err"
	is "$(sed -n 's/^reg_read clock //p' "$TMP/props" | sort -u | tr '\n' ' ')" "${k#*:} " \
		"-k ${k%:*}: every REG_READ is timed on clock ${k#*:}"
done

# --correlation-period: a point every 50 ms over 0.3 s, the first and the last (1 s by default: 2)
rec --duration 0.3 --correlation-period 0.05 -o "$TMP/corr.rec" 2>"$TMP/err"
n=$(sed -n 's/.* \([0-9]*\) correlation points.*/\1/p' "$TMP/err")
[ -n "$n" ] && [ "$n" -ge 6 ] && [ "$n" -le 9 ]
ok $? "--correlation-period 0.05 over 0.3 s: 6 to 9 correlation points ($n)"
decodes "$TMP/corr.rec" "$(summary_reports "$TMP/err")" "--correlation-period 0.05"

# -p and -P
rm -f "$TMP/props"
rec --duration 0.1 -p 5ms -P 2ms -o "$TMP/b.rec" 2>"$TMP/err"
is "$?" 0 "-p 5ms -P 2ms: exit 0"
is "$(grep -v '^reg_read' "$TMP/props" | tr '\n' ' ')" "2 1 3 5 4 10 5 15 8 2000000 open 0 " \
	"exponent 15 for 5 ms, POLL_OA_PERIOD 2000000 ns"
rm -f "$TMP/props"
rec --duration 0.1 -P 250 -o "$TMP/b.rec" 2>"$TMP/err"
grep -q '^8 250000$' "$TMP/props"
ok $? "-P 250: microseconds, as i915-perf-recorder -P"
rm -f "$TMP/props" "$TMP/b.rec"
PK_FAKE_I915_PERF_REVISION=4 rec --duration 0.1 -P 2ms -o "$TMP/b.rec" 2>"$TMP/err"
is "$?" 1 "-P on i915 perf revision 4: exit 1"
grep -q "perf (revision 4) takes no poll period" "$TMP/err"
ok $? "the message gives the kernel's revision"
[ ! -e "$TMP/b.rec" ] && ! grep -q '^open' "$TMP/props"
ok $? "no stream is opened, no recording left behind"

# errors
rec --duration 0.1 -m renderbasic -o "$TMP/m.rec" 2>"$TMP/err"
is "$?" 0 "-m renderbasic: the set, ignoring case (as i915-perf-recorder -m)"
grep -q 'metric set RenderBasic, id 5' "$TMP/err"
ok $? "recorded as RenderBasic, the set's own name"
rec --duration 0.1 -m RenderBasik -o "$TMP/c.rec" 2>"$TMP/err"
is "$?" 2 "-m RenderBasik: exit 2"
grep -q "^hint: did you mean 'RenderBasic'?" "$TMP/err"
ok $? "did you mean 'RenderBasic'?"
PK_FAKE_I915_OPEN_ERRNO=13 rec --duration 0.1 -o "$TMP/c.rec" 2>"$TMP/err"
is "$?" 1 "EACCES from the kernel: exit 1"
grep -q 'no permission to open an i915 perf stream' "$TMP/err" && grep -q '^hint: .*perf_stream_paranoid' "$TMP/err"
ok $? "the message and the perf_stream_paranoid hint"
! grep -q '^\[ perfkit oa record:' "$TMP/err"
ok $? "and no summary: nothing was recorded"
# a metric file whose set has no GUID: the kernel's id cannot be found by it
mkdir -p "$TMP/noguid"
sed 's/ *hw_config_guid="b541bd57-0e0f-4154-b4c0-5858010a2bf7"//' "$META/oa-bdw.xml" >"$TMP/noguid/oa-bdw.xml"
LD_PRELOAD=$SO "$PERFKIT" oa record --sys-root "$S" --dev-root "$TMP/dev" --metrics "$TMP/noguid/oa-bdw.xml" \
	--duration 0.1 -o "$TMP/ng.rec" 2>"$TMP/err"
is "$?" 2 "a metric file whose set has no GUID: exit 2"
grep -q "'$TMP/noguid/oa-bdw.xml': no metric set 'RenderBasic' with a GUID" "$TMP/err"
ok $? "the message says the set has no GUID"
# --metric-id without metric files (none in PERFKIT_OA_METRICS): the kernel's id as given
rm -f "$TMP/props"
LD_PRELOAD=$SO PERFKIT_OA_METRICS=$TMP/no-metrics "$PERFKIT" oa record --sys-root "$S" --dev-root "$TMP/dev" \
	--metric-id 7 --duration 0.1 -o "$TMP/id.rec" 2>"$TMP/err"
is "$?" 0 "--metric-id 7 without metric files: exit 0"
grep -q '^3 7$' "$TMP/props"
ok $? "the stream is opened with metric set 7 (DRM_I915_PERF_PROP_METRICS_SET 3)"

# -s: a circular buffer
rec --duration 0.5 -s 16 -o "$TMP/ring.rec" 2>"$TMP/err"
is "$?" 0 "-s 16: exit 0"
kept=$(sed -n 's/.*(the last \([0-9]*\) in the file).*/\1/p' "$TMP/err")
[ -n "$kept" ] && [ "$kept" -ge 55 ] && [ "$kept" -le 62 ] && [ "$(summary_reports "$TMP/err")" -gt "$kept" ]
ok $? "the summary says the file holds the last $kept reports, what 16 KB hold"
decodes "$TMP/ring.rec" "$kept" "-s 16"

# -f: i915-perf-control's commands
if command -v i915-perf-control >/dev/null 2>&1; then
	LD_PRELOAD=$SO "$PERFKIT" "${REC[@]}" -f "$TMP/fifo" -o "$TMP/fifo.rec" 2>"$TMP/ferr" &
	pid=$!
	eventually [ -p "$TMP/fifo" ]
	ok $? "-f makes the fifo"
	sleep 0.3
	(cd "$TMP" && i915-perf-control -f "$TMP/fifo" -d snap.rec)
	eventually grep -q 'wrote the circular buffer' "$TMP/ferr"
	snap=$(sed -n "s|.*wrote the circular buffer to $TMP/snap.rec (\([0-9]*\) reports).*|\1|p" "$TMP/ferr")
	[ -n "$snap" ] && [ "$snap" -gt 0 ]
	ok $? "i915-perf-control -d snap.rec: the recorder writes $snap reports to \$TMP/snap.rec"
	decodes "$TMP/snap.rec" "$snap" "the DUMP"
	i915-perf-control -f "$TMP/fifo" -q
	stops "$pid"
	is "$?" 0 "i915-perf-control -q stops the recorder: exit 0"
	[ ! -e "$TMP/fifo" ]
	ok $? "the fifo is removed"
	decodes "$TMP/fifo.rec" "$(summary_reports "$TMP/ferr")" "-f, at the end: the 8 MB buffer holds every report;"
else
	skip "i915-perf-control not installed (intel-gpu-tools)"
fi
# -f: bytes that are not a command are dropped, with a message; an unknown
# command is named and ignored; a QUIT after them still stops the recorder
# (written with perl: i915-perf-control writes only good commands)
LD_PRELOAD=$SO "$PERFKIT" "${REC[@]}" -f "$TMP/fifo2" --duration 60 -o "$TMP/fifo2.rec" 2>"$TMP/ferr2" &
pid=$!
eventually [ -p "$TMP/fifo2" ]
perl -e 'print pack("VV", 2, 3)' >"$TMP/fifo2"
eventually grep -q 'dropped' "$TMP/ferr2"
perl -e 'print pack("VV", 99, 8)' >"$TMP/fifo2"
eventually grep -q 'unknown command' "$TMP/ferr2"
perl -e 'print pack("VV", 2, 8)' >"$TMP/fifo2"
stops "$pid"
is "$?" 0 "-f: a QUIT after bad bytes stops the recorder, exit 0 (137: killed 10 s after it)"
grep -q "^perfkit: '$TMP/fifo2': command 2 has a size of 3 bytes (8 to 4104) (byte 4 of the command); dropped 8 bytes$" "$TMP/ferr2"
ok $? "-f: bytes that are not a command: the message says why, and that they are dropped"
grep -q "^perfkit: '$TMP/fifo2': unknown command 99, ignored$" "$TMP/ferr2"
ok $? "-f: an unknown command is named and ignored"
mkfifo "$TMP/taken"
rec -f "$TMP/taken" --duration 0.1 -o "$TMP/d.rec" 2>"$TMP/err"
is "$?" 2 "-f on a path that exists: exit 2"
grep -q "'$TMP/taken': cannot make the command fifo: File exists" "$TMP/err" && grep -q '^hint: another recorder' "$TMP/err"
ok $? "the message names it, the hint says why it may be there"
[ -p "$TMP/taken" ]
ok $? "and it is left alone"

# -- CMD, Ctrl-C
rec -o "$TMP/cmd.rec" -- sh -c 'sleep 0.2; exit 3' 2>"$TMP/err"
is "$?" 3 "-- CMD: perfkit exits with the command's status"
decodes "$TMP/cmd.rec" "$(summary_reports "$TMP/err")" "-- CMD"
rec -o "$TMP/sig.rec" -- sh -c 'kill -TERM $$' 2>"$TMP/err"
is "$?" 143 "-- CMD killed by SIGTERM: exit 143 (128 + 15), as a shell gives it"
rec -o "$TMP/nocmd.rec" -- "$TMP/no-such-command" 2>"$TMP/err"
is "$?" 127 "-- CMD that does not exist: exit 127, as perf"
grep -q "'$TMP/no-such-command': command not found" "$TMP/err"
ok $? "the message names it"
# a command that outlives --duration is stopped then (SIGTERM), not waited for
t0=$EPOCHREALTIME
rec --duration 0.2 -o "$TMP/long.rec" -- sleep 30 2>"$TMP/err"
st=$?
took=$(awk -v a="${t0/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }')
is "$st" 0 "--duration 0.2 -- sleep 30: exit 0"
awk -v t="$took" 'BEGIN { exit !(t < 10) }'
ok $? "the command is stopped at the end of the duration ($took s, not 30)"
LD_PRELOAD=$SO "$PERFKIT" "${REC[@]}" -o "$TMP/int.rec" 2>"$TMP/err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
is "$?" 0 "Ctrl-C: exit 0"
grep -q 'interrupted by a signal; the file is complete' "$TMP/err"
ok $? "it says the file is complete"
decodes "$TMP/int.rec" "$(summary_reports "$TMP/err")" "Ctrl-C"

# SIGKILL in circular-buffer mode: the ring is lost, the file still reads
LD_PRELOAD=$SO "$PERFKIT" "${REC[@]}" -s 16 -o "$TMP/kill.rec" 2>"$TMP/err" &
pid=$!
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$?" 137 "-s, SIGKILL: the recorder is killed"
"$PERFKIT" oa report --json --metrics-dir "$META" "$TMP/kill.rec" >"$TMP/kill.json" 2>"$TMP/err"
is "$?" 0 "-s, SIGKILL: perfkit oa report reads what is left"
tr -d ' \n' <"$TMP/kill.json" | grep -q '"symbol":"RenderBasic".*"reports":0,"lost":0,"segments":\[\]'
ok $? "-s, SIGKILL: a RenderBasic recording of no reports, not an empty file"

done_testing
