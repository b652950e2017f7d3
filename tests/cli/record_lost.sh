#!/usr/bin/env bash
# Samples the kernel drops, as perf 6.1 records and reports them. The recorder
# is stopped (SIGSTOP) for 0.4 s while every CPU samples into one-page rings,
# so the rings fill and the kernel drops samples. Checked with perf as the
# oracle: perfkit's events carry read_format ID|LOST as perf's do; the file
# ends with one LOST_SAMPLES record per fd that dropped any (its id in the
# trailer), whose sum is at least what the LOST records tell; perf report's
# "Total Lost Samples" and --stats read that sum, and perfkit report gives
# the same lines on perfkit's file and on perf's; report and script warn.
# On a kernel without PERF_FORMAT_LOST (before 6.0, faked) perfkit records
# without it, as perf does.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/tap-lib.bash

need_recording
: "${PK_FAKE_PMU:=build/tests/pk-fake-pmu.so}"
W=$PK_WORKLOAD
NCPU=$(getconf _NPROCESSORS_ONLN)

# stalled TOOL NAME ARGS...: TOOL record -a into $TMP/NAME.data while every CPU
# spins, the recorder stopped for 0.4 s in the middle; its stderr in $TMP/NAME.err
stalled() {
	local tool=$1 name=$2 rpid
	shift 2
	"$tool" record -a -m 1 -c 20000 -o "$TMP/$name.data" "$@" -- \
		"$W" --spin-ms 1200 --threads "$NCPU" 2>"$TMP/$name.err" &
	rpid=$!
	sleep 0.4
	kill -STOP "$rpid"
	sleep 0.4
	kill -CONT "$rpid"
	wait "$rpid"
}
# dump_sum FILE TYPE: the sum of the counts perf -D prints for LOST or LOST_SAMPLES records
dump_sum() {
	perf report -D -i "$1" 2>/dev/null |
		awk -v t="PERF_RECORD_$2:" '$0 ~ t { n = split($0, f, ":"); s += f[n] } END { print s + 0 }'
}
# lost_ids FILE: the ids of the LOST_SAMPLES records, sorted
lost_ids() {
	perf report -D -i "$1" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_LOST_SAMPLES: id:\([0-9]*\):.*/\1/p' | sort -n | tr '\n' ' '
}
# event_ids FILE EVENT: the ids perf's header gives EVENT
event_ids() {
	perf report --header-only -i "$1" 2>/dev/null |
		sed -n "s/^# event : name = $2, .* id = { \([0-9, ]*\) }.*/\1/p" | tr -d ' ' | tr ',' '\n' | sort -n
}
# read_formats FILE: each event's read_format as perf evlist prints it
read_formats() { perf evlist -v -i "$1" 2>/dev/null | sed -n 's/^\([^:]*\): .*read_format: \([A-Z|]*\),.*/\1 \2/p'; }
# total_lost TOOL FILE: the "# Total Lost Samples" line of TOOL report
total_lost() { "$1" report -i "$2" --stdio 2>/dev/null | grep '^# Total Lost Samples:'; }
# same_stats NAME FILE: perf report --stats and perfkit report --stats print the same
same_stats() {
	perf report --stats -i "$2" >"$TMP/stats.perf" 2>/dev/null
	"$PERFKIT" report --stats -i "$2" >"$TMP/stats.pk" 2>/dev/null
	if grep -q 'LOST_SAMPLES events' "$TMP/stats.perf" && cmp -s "$TMP/stats.perf" "$TMP/stats.pk"; then
		pass "$1: report --stats prints perf's lines, LOST_SAMPLES per event included"
	else
		fail "$1: report --stats prints perf's lines" "$(diff "$TMP/stats.perf" "$TMP/stats.pk" | head -8)"
	fi
}

# has NAME PATTERN FILE: FILE has a line matching PATTERN (FILE shown when not)
has() {
	if grep -q "$2" "$3"; then pass "$1"; else fail "$1" "$(head -5 "$3")"; fi
}

# ---- one event --------------------------------------------------------------------
stalled perf perf1 -e cpu-clock
stalled "$PERFKIT" pk1 -e cpu-clock
ok $? "a stalled record exits 0"
is "$(read_formats "$TMP/pk1.data")" "$(read_formats "$TMP/perf1.data" | grep -v '^dummy')" \
	"read_format ID|LOST, as perf 6.1 sets it"
lost_samples=$(dump_sum "$TMP/pk1.data" LOST_SAMPLES)
lost_records=$(dump_sum "$TMP/pk1.data" LOST)
note "LOST_SAMPLES sum $lost_samples, LOST sum $lost_records"
[ "$lost_samples" -gt 0 ]; ok $? "the file ends with LOST_SAMPLES records ($lost_samples samples)"
[ "$lost_samples" -ge "$lost_records" ]
ok $? "their sum is at least what the LOST records tell ($lost_samples >= $lost_records)"
n=$(perf report -D -i "$TMP/pk1.data" 2>/dev/null | grep -c 'PERF_RECORD_LOST_SAMPLES:')
[ "$n" -ge 1 ] && [ "$n" -le "$NCPU" ]; ok $? "one LOST_SAMPLES record per CPU that dropped any ($n)"
has "the summary line gives the kernel's count" ", [0-9]* samples, $lost_samples lost \]" "$TMP/pk1.err"
is "$(total_lost perf "$TMP/pk1.data")" "# Total Lost Samples: $lost_samples" \
	"perf report reads the count perfkit wrote"
is "$(total_lost "$PERFKIT" "$TMP/pk1.data")" "# Total Lost Samples: $lost_samples" \
	"perfkit report gives the same line"
is "$(total_lost "$PERFKIT" "$TMP/perf1.data")" "$(total_lost perf "$TMP/perf1.data")" \
	"on perf's stalled recording perfkit report gives perf's line"
same_stats "perfkit's file" "$TMP/pk1.data"
same_stats "perf's file" "$TMP/perf1.data"
"$PERFKIT" report -i "$TMP/pk1.data" --stdio >/dev/null 2>"$TMP/report.err"
ok $? "report exits 0"
has "report warns with the count, as perf report does" \
	"^perfkit: warning: '$TMP/pk1.data': the kernel dropped $lost_samples samples ([0-9.]*% of [0-9]*) in [0-9]* chunks*: the ring buffers were full" \
	"$TMP/report.err"
"$PERFKIT" report -D -i "$TMP/pk1.data" >/dev/null 2>"$TMP/dump.err"
has "report -D warns too, as perf's does" "the kernel dropped $lost_samples samples" "$TMP/dump.err"
"$PERFKIT" report --stats -i "$TMP/pk1.data" >/dev/null 2>"$TMP/stats.err"
is "$(cat "$TMP/stats.err")" "" "report --stats gives the counts and no warning, as perf's"
"$PERFKIT" script -i "$TMP/pk1.data" >/dev/null 2>"$TMP/script.err"
has "script warns too" "^perfkit: warning: '$TMP/pk1.data': the kernel dropped $lost_samples samples" \
	"$TMP/script.err"
perf script -i "$TMP/pk1.data" 2>&1 >/dev/null | grep -q 'lost [0-9]* chunks'
ok $? "perf script warns about the same file"

# ---- two events: each record's id is its event's -------------------------------------
stalled "$PERFKIT" pk2 -e cpu-clock,task-clock
ids=$(lost_ids "$TMP/pk2.data")
owned=$( (event_ids "$TMP/pk2.data" cpu-clock; event_ids "$TMP/pk2.data" task-clock) | tr '\n' ' ')
bad=
for id in $ids; do
	case " $owned " in *" $id "*) ;; *) bad="$bad $id" ;; esac
done
if [ -n "$ids" ] && [ -z "$bad" ]; then
	pass "two events: every LOST_SAMPLES id is one of the events' ids ($ids)"
else
	fail "two events: every LOST_SAMPLES id is one of the events' ids" "ids '$ids', events' '$owned'"
fi
same_stats "two events" "$TMP/pk2.data"

# ---- a recording that lost nothing: no records, no warning ------------------------------
"$PERFKIT" record -q -e cpu-clock -F 1000 -o "$TMP/calm.data" -- "$W" --spin-ms 100 2>/dev/null
is "$(dump_sum "$TMP/calm.data" LOST_SAMPLES)" 0 "nothing lost: no LOST_SAMPLES record"
"$PERFKIT" report -i "$TMP/calm.data" --stdio >/dev/null 2>"$TMP/calm.err"
is "$(cat "$TMP/calm.err")" "" "nothing lost: report warns about nothing"

# ---- a kernel without PERF_FORMAT_LOST (faked): record without it, as perf does -------
if [ -f "$PK_FAKE_PMU" ]; then
	old() {
		PK_FAKE_PMU_NO_READ_LOST=1 LD_PRELOAD=$(cd "$(dirname "$PK_FAKE_PMU")" && pwd)/$(basename "$PK_FAKE_PMU") \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
	}
	old perf record -q -e cpu-clock -o "$TMP/old.perf.data" -- "$W" --spin-ms 50 >/dev/null 2>&1
	old "$PERFKIT" record -q -e cpu-clock -o "$TMP/old.data" -- "$W" --spin-ms 50 2>"$TMP/old.err"
	is "$?" 0 "old kernel: record exits 0"
	is "$(read_formats "$TMP/old.data")" "$(read_formats "$TMP/old.perf.data")" \
		"old kernel: read_format without LOST, as perf falls back to"
	old stalled "$PERFKIT" oldlost -e cpu-clock
	lost_records=$(dump_sum "$TMP/oldlost.data" LOST)
	is "$(dump_sum "$TMP/oldlost.data" LOST_SAMPLES)" 0 "old kernel: no LOST_SAMPLES record"
	has "old kernel: the summary gives the LOST records' sum ($lost_records)" \
		", [0-9]* samples, $lost_records lost \]" "$TMP/oldlost.err"
	"$PERFKIT" report -i "$TMP/oldlost.data" --stdio >/dev/null 2>"$TMP/oldlost.report.err"
	has "old kernel: report warns with the LOST records' sum" "the kernel dropped $lost_records samples" \
		"$TMP/oldlost.report.err"
else
	skip "old kernel: $PK_FAKE_PMU not built"
fi
done_testing
