#!/usr/bin/env bash
# perfkit record, checked with Linux perf as the oracle: files perfkit writes
# (single- and multi-threaded, fork and exec, a tracepoint, two events, -g,
# --call-graph dwarf, -a, -p, pipe mode, -z) must be read by perf report and
# perf script with the features perf writes, every sample perfkit counted,
# and the same comm/dso/symbol attribution as perfkit report; Ctrl-C, a
# killed target (also one killed before it started) and a full disk must
# leave files both tools read.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/tap-lib.bash

need_recording

W=$PK_WORKLOAD

# record NAME ARGS...: perfkit record -o $TMP/NAME.data ARGS, summary in $TMP/NAME.err
record() {
	local name=$1
	shift
	"$PERFKIT" record -o "$TMP/$name.data" "$@" 2>"$TMP/$name.err"
}
# samples_said NAME: the sample count perfkit's summary line gives
samples_said() { sed -n 's/.*, \([0-9]*\) samples, .*/\1/p' "$TMP/$1.err" | tail -1; }
# perf_samples FILE [EVENT]: samples perf script prints (of EVENT)
perf_samples() {
	if [ $# -gt 1 ]; then
		perf script -i "$1" -F event 2>/dev/null | grep -c "^ *$2:"
	else
		perf script -i "$1" -F tid 2>/dev/null | wc -l
	fi
}
# same_attribution NAME: perf report and perfkit report agree on comm/dso/sym
same_attribution() {
	local f="$TMP/$1.data"
	perf report -i "$f" --no-children --sort comm,dso,sym --stdio -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$TMP/$1.perf.txt"
	"$PERFKIT" report -i "$f" --no-children --sort comm,dso,sym --stdio -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$TMP/$1.pk.txt"
	if [ -s "$TMP/$1.perf.txt" ] && diff -q "$TMP/$1.perf.txt" "$TMP/$1.pk.txt" >/dev/null; then
		pass "$1: perf report and perfkit report attribute samples alike"
	else
		fail "$1: perf report and perfkit report attribute samples alike" \
			"$(diff "$TMP/$1.perf.txt" "$TMP/$1.pk.txt" | head -10)"
	fi
}
# all_samples_read NAME: perf script prints as many samples as perfkit wrote
all_samples_read() {
	local said got
	said=$(samples_said "$1")
	got=$(perf_samples "$TMP/$1.data")
	if [ -n "$said" ] && [ "$said" -gt 0 ] && [ "$said" = "$got" ]; then
		pass "$1: perf script reads all $said samples"
	else
		fail "$1: perf script reads all samples" "perfkit said '$said', perf script printed '$got'"
	fi
}

# ---- a single-threaded command: features, counts, attribution ------------------
record single -e cpu-clock -F 2000 -- "$W" --spin-ms 300
ok $? "single: record exits 0"
perf report --header-only -I -i "$TMP/single.data" >"$TMP/single.hdr" 2>&1
for line in "hostname : $(uname -n)" "os release : $(uname -r)" "arch : $(uname -m)" \
	"nrcpus online : $(getconf _NPROCESSORS_ONLN)" "cmdline :" "event : name = cpu-clock" "total memory :" \
	"cpudesc :" "cpuid :" "sibling threads :" "node0 meminfo" \
	"sample duration :" "pmu mappings:"; do
	grep -qF "$line" "$TMP/single.hdr"; ok $? "single: perf --header-only shows '$line'"
done
grep -q "perf version : perfkit" "$TMP/single.hdr"; ok $? "single: VERSION names perfkit"
perf buildid-list -i "$TMP/single.data" 2>/dev/null | grep -q "pk-workload"
ok $? "single: BUILD_ID lists the sampled workload binary"
# the [vdso] (the workload reads the clock through it) gets the build-id perf gives it
record vdso -e cpu-clock -F 4000 -- "$W" --spin-ms 500
perf record -q -e cpu-clock -F 4000 -o "$TMP/vdso.perf.data" -- "$W" --spin-ms 500 >/dev/null 2>&1
vdso_hit() { perf report -i "$1" --stdio --sort dso 2>/dev/null | grep -q ' \[vdso\] *$'; }
if vdso_hit "$TMP/vdso.data" && vdso_hit "$TMP/vdso.perf.data"; then
	want=$(perf buildid-list -i "$TMP/vdso.perf.data" 2>/dev/null | grep ' \[vdso\]$')
	is "$(perf buildid-list -i "$TMP/vdso.data" 2>/dev/null | grep ' \[vdso\]$')" "$want" \
		"BUILD_ID lists [vdso] with the build-id perf records ($want)"
else
	skip "no [vdso] sample in 500 ms this time: its build-id is not listed"
fi
all_samples_read single
same_attribution single
"$PERFKIT" report -i "$TMP/single.data" --stdio --no-children 2>/dev/null | grep -q '\[\.\] work'
ok $? "single: perfkit report finds the workload's hot function"
grep -q "captured and wrote .* MB .*single.data, [0-9]* samples, [0-9]* lost" "$TMP/single.err"
ok $? "single: summary line"

# ---- threads, fork, exec ------------------------------------------------------------
record threads -e cpu-clock -F 1000 -- "$W" --threads 2 --spin-ms 200
all_samples_read threads
n=$(perf script -i "$TMP/threads.data" -F pid,tid 2>/dev/null | awk -F/ '$1 + 0 != $2 + 0 { print $2 }' | sort -u | wc -l)
[ "$n" -ge 2 ]; ok $? "threads: samples from both worker threads ($n tids)"
same_attribution threads
record children -e cpu-clock -F 1000 -- "$W" --children 2 --spin-ms 200
all_samples_read children
n=$(perf script -i "$TMP/children.data" -F pid 2>/dev/null | sort -u | wc -l)
[ "$n" -ge 2 ]; ok $? "children: forked children are sampled (inherit; $n pids)"
same_attribution children
record exec -e cpu-clock -F 1000 -- sh -c "exec $W --spin-ms 200"
all_samples_read exec
perf script -i "$TMP/exec.data" -F comm 2>/dev/null | grep -q pk-workload
ok $? "exec: samples after exec carry the new comm"
same_attribution exec

# ---- two events, a tracepoint -----------------------------------------------------
record two -e cpu-clock,task-clock -F 1000 -- "$W" --spin-ms 200
for ev in cpu-clock task-clock; do
	got=$(perf_samples "$TMP/two.data" "$ev")
	[ "$got" -gt 0 ]; ok $? "two: perf script finds $ev samples ($got)"
done
all_samples_read two
pk_per_event=$("$PERFKIT" report -i "$TMP/two.data" --stdio --no-children 2>/dev/null |
	sed -n 's/^# Samples: \([0-9]*\) of event .\(.*\).$/\2=\1/p' | sort | tr '\n' ' ')
perf_per_event=$(perf report -i "$TMP/two.data" --stdio --no-children 2>/dev/null |
	sed -n 's/^# Samples: \([0-9]*\) of event .\(.*\).$/\2=\1/p' | sort | tr '\n' ' ')
is "$pk_per_event" "$perf_per_event" "two: samples per event agree ($perf_per_event)"
record grp -e '{cpu-clock,task-clock}' -k monotonic -F 1000 -- "$W" --spin-ms 200
all_samples_read grp
perf report --header-only -I -i "$TMP/grp.data" >"$TMP/grp.hdr" 2>&1
grep -q "^# group: {cpu-clock,task-clock}" "$TMP/grp.hdr"; ok $? "group: GROUP_DESC as perf prints it"
grep -q "^# clockid: monotonic (1)" "$TMP/grp.hdr"; ok $? "-k monotonic: CLOCKID/CLOCK_DATA written"
perf report -i "$TMP/grp.data" --stdio --group 2>/dev/null | grep -q '^ *[0-9.]*%  *[0-9.]*%  pk-workload'
ok $? "group: perf report --group shows both members per row"
record tp -e sched:sched_switch -a -- sleep 0.3
all_samples_read tp
perf script -i "$TMP/tp.data" 2>/dev/null | grep -q "prev_comm=.*next_comm="
ok $? "tracepoint: perf script prints the sched_switch fields (TRACING_DATA)"
perf report --header-only -i "$TMP/tp.data" 2>/dev/null | grep -q "event : name = sched:sched_switch"
ok $? "tracepoint: the header names the event"

# ---- call chains -------------------------------------------------------------------
record fp -e cpu-clock -F 2000 -g -- "$W" --spin-ms 300
all_samples_read fp
frames=$(perf script -i "$TMP/fp.data" -F ip 2>/dev/null | grep -c '^[[:space:]]*[0-9a-f]\+$')
[ "$frames" -gt "$(samples_said fp)" ]
ok $? "-g: perf script shows call chains (frames $frames, samples $(samples_said fp))"
same_attribution fp
record dwarf -e cpu-clock -F 500 --call-graph dwarf -- "$W" --spin-ms 300
all_samples_read dwarf
perf script -i "$TMP/dwarf.data" -F ip,sym 2>/dev/null | grep -B3 -A8 "work" | grep -q "main"
ok $? "--call-graph dwarf: perf unwinds the stacks up to main"

# ---- -a and -p -----------------------------------------------------------------------
record sys -e cpu-clock -F 1000 -a -- "$W" --spin-ms 300
all_samples_read sys
perf script -i "$TMP/sys.data" -F cpu 2>/dev/null | grep -q '\[00[01]\]'
ok $? "-a: samples carry their CPU"
same_attribution sys
# targets that outlive the records on a loaded machine: they are killed when done with
"$W" --spin-ms 30000 &
wpid=$!
sleep 0.2
record pid -e cpu-clock -F 1000 -p "$wpid" --duration 0.5
ok $? "-p: record with --duration exits 0"
record pidcmd -e cpu-clock -F 1000 -p "$wpid" -- sleep 0.3
is "$(perf script -i "$TMP/pidcmd.data" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u)" "$wpid" \
	"-p PID -- sleep: the command only sets the duration, as in perf"
taskset -c 0 "$W" --spin-ms 30000 &
pin=$!
sleep 0.2
record pidcpu -e cpu-clock -F 1000 -C 0,1 -p "$pin" --duration 0.3
kill "$pin" 2>/dev/null; wait "$pin" 2>/dev/null
is "$(perf script -i "$TMP/pidcpu.data" -F pid,cpu 2>/dev/null | awk '{ print $1, $2 }' | sort -u)" \
	"$pin [000]" "-C 0,1 -p PID: only the target's samples, on the CPU it is pinned to"
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
all_samples_read pid
is "$(perf script -i "$TMP/pid.data" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u)" "$wpid" \
	"-p: the samples are the target's"
perf script -i "$TMP/pid.data" --show-mmap-events 2>/dev/null | grep -q "PERF_RECORD_MMAP2 $wpid/.*pk-workload"
ok $? "-p: the target's existing mappings are synthesized"
same_attribution pid

# ---- pipe mode and compression -----------------------------------------------------------
"$PERFKIT" record -e cpu-clock -F 1000 -o - -- "$W" --spin-ms 200 2>"$TMP/pipe.err" >"$TMP/pipe.data"
ok $? "pipe: record -o - exits 0"
said=$(samples_said pipe)
got=$(perf script -i - -F tid <"$TMP/pipe.data" 2>/dev/null | wc -l)
is "$got" "$said" "pipe: perf script -i - reads all samples"
"$PERFKIT" record -e cpu-clock -F 1000 -o - -- "$W" --spin-ms 200 2>/dev/null |
	perf report -i - --stdio --no-children 2>/dev/null | grep -q '\[\.\] work'
ok $? "pipe: perf report reads a live pipe"
record zstd -z -e cpu-clock -F 2000 -g -- "$W" --spin-ms 300
all_samples_read zstd
perf report --header-only -i "$TMP/zstd.data" 2>/dev/null | grep -q "compressed : Zstd"
ok $? "-z: the header says Zstd"
same_attribution zstd

# ---- endings: Ctrl-C, a killed target, a full disk -----------------------------------
"$PERFKIT" record -e cpu-clock -F 1000 -o "$TMP/int.data" -- "$W" --spin-ms 5000 2>"$TMP/int.err" &
rpid=$!
wait_target "$rpid" pk-workload >/dev/null
sleep 0.5
kill -INT "$rpid"
wait "$rpid"
st=$?
[ "$st" -ne 2 ]; ok $? "ctrl-c: record ends normally (status $st)"
grep -q "interrupted" "$TMP/int.err"; ok $? "ctrl-c: says it was interrupted"
all_samples_read int
"$PERFKIT" report -i "$TMP/int.data" --stdio >/dev/null 2>&1; ok $? "ctrl-c: perfkit reads the file"

"$PERFKIT" record -e cpu-clock -F 1000 -o "$TMP/kill.data" -- "$W" --spin-ms 5000 2>"$TMP/kill.err" &
rpid=$!
if tpid=$(wait_target "$rpid" pk-workload); then
	sleep 0.3
	kill -KILL "$tpid"
else
	note "the target did not start within 20 s"
fi
wait "$rpid"
st=$?
is "$st" "137" "killed target: status is 128 + SIGKILL"
grep -q "killed by signal 9" "$TMP/kill.err"; ok $? "killed target: says so"
all_samples_read kill
"$PERFKIT" report -i "$TMP/kill.data" --stdio >/dev/null 2>&1; ok $? "killed target: perfkit reads the file"

# A target killed before perfkit released it to exec (pk-slow-open.so holds
# perfkit 2 s where it reads /proc/modules, before the release): it ended as
# killed, and the file is complete, with no samples.
if [ -f "${PK_SLOW_OPEN_SO:-}" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$PK_SLOW_OPEN_SO" \
		PK_SLOW_OPEN_MATCH=/proc/modules PK_SLOW_OPEN_MS=2000 \
		"$PERFKIT" record -e cpu-clock -F 1000 -o "$TMP/early.data" -- "$W" --spin-ms 5000 \
		2>"$TMP/early.err" &
	rpid=$!
	# the child is still perfkit, waiting to be released
	if cpid=$(wait_target "$rpid" perfkit); then
		kill -KILL "$cpid"
	else
		note "perfkit's child did not appear within 20 s"
	fi
	wait "$rpid"
	is "$?" "137" "target killed before it started: status is 128 + SIGKILL"
	grep -q "killed by signal 9" "$TMP/early.err"; ok $? "target killed before it started: says so"
	perf script -i "$TMP/early.data" >"$TMP/early.perf" 2>&1
	ok $? "target killed before it started: perf script reads the file"
	[ ! -s "$TMP/early.perf" ]; ok $? "target killed before it started: no samples in it"
	"$PERFKIT" report -i "$TMP/early.data" --stdio >/dev/null 2>&1
	ok $? "target killed before it started: perfkit reads the file"
else
	skip "no pk-slow-open.so (\$PK_SLOW_OPEN_SO): a target killed before it started not tested"
fi

if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/full" && mount -t tmpfs -o size=256k tmpfs "$TMP/full" 2>/dev/null; then
	"$PERFKIT" record -e cpu-clock -F 20000 -g -a -o "$TMP/full/f.data" -- sleep 3 2>"$TMP/full.err"
	st=$?
	is "$st" "1" "full disk: record exits 1"
	grep -q "No space left on device" "$TMP/full.err"; ok $? "full disk: the error names the cause"
	grep -q "f.data" "$TMP/full.err"; ok $? "full disk: the error names the file"
	n=$(perf script -i "$TMP/full/f.data" -F tid 2>"$TMP/full.perf.err" | wc -l)
	[ "$n" -gt 0 ] && ! grep -qi "error\|corrupt\|truncat" "$TMP/full.perf.err"
	ok $? "full disk: perf script reads the complete rounds ($n samples)"
	"$PERFKIT" report -i "$TMP/full/f.data" --stdio >/dev/null 2>&1
	ok $? "full disk: perfkit report reads the file"
	umount "$TMP/full"
else
	skip "full disk: needs root to mount a small tmpfs"
fi

# ---- usage errors ----------------------------------------------------------------------
"$PERFKIT" record -o "$TMP/x.data" 2>/dev/null; is "$?" "2" "no target: status 2"
"$PERFKIT" record -e nosuchevent -o "$TMP/x.data" -- true 2>/dev/null; is "$?" "2" "bad event: status 2"
"$PERFKIT" record -m 3 -o "$TMP/x.data" -- true 2>/dev/null; is "$?" "2" "-m not a power of two: status 2"
done_testing
