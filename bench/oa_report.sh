#!/usr/bin/env bash
# Benchmark: `perfkit oa report -c all` against IGT's `i915-perf-reader -c all`
# on a generated 1,000,000-report Broadwell GT2 RenderBasic recording
# (build/bench/oa_report gen: 40-bit counters near their wrap, five contexts
# changing every 64 reports (BENCH_OA_CTX_EVERY), a correlation point every
# 10,000 reports), both writing to /dev/null, medians of 9 runs (5 with every
# report pair); then the same reports in one context (one timeline: decoding
# without per-timeline output). First both on a 20,000-report file whose
# outputs must be identical (a broken run fails); each timed 1,000,000-report
# file's -c all outputs must be identical too. Then raw decoding +
# accumulation in-process (pk_oa_accumulate_run, one core): reports per
# second over the whole recording and over 4,096 in-cache reports. The
# floor line: what a process that only maps the one-context file and reads
# each cache line once takes, on one thread or two, so the best ratio any
# reader of every report could reach; and one that maps it and reads only
# each record's header, the best ratio even a reader that, like
# i915-perf-reader, takes one delta a segment could reach.
# After each of the first two files: where perfkit's time goes inside its
# process (oa_report phases, medians of 5 in-process runs): reading the
# file with its segments, the metric set, printing, freeing; process start
# and exit make up the rest.
# After the first file's, the same file with the values of every report
# pair as well (--per-report against -r: a million blocks of values, 1.4 GB
# of text; the 20,000-report check compares both tools' -r outputs too).
# Then the same reports with a context every 4 reports (250,000 short
# segments), with both tools' peak memory.
# Before the big file: both tools on the 20,000-report file, where starting,
# loading the metric set and exiting take most of the time (no target).
# Targets: perfkit >= 10x faster than the reader; >= 20 M reports/s.
# A missed target prints MISSED and does not fail.
set -euo pipefail
: "${PK_BUILD:=build}"
: "${PERFKIT:=$PK_BUILD/perfkit}"
BIN=$PK_BUILD/bench/oa_report
N=${BENCH_OA_REPORTS:-1000000}
[ -x "$BIN" ] || { echo "bench: $BIN is not built (make bench builds it)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SHARED=${PK_SHARED:-../shared}
M=$SHARED/data/intel-oa
[ -f "$M/oa-bdw.xml" ] || { echo "bench: oa report: SKIP no $M/oa-bdw.xml (set PK_SHARED)"; exit 0; }

echo "oa report: $N reports, Broadwell RenderBasic, -c all"
"$BIN" gen "$TMP/small.i915perf" 20000 >/dev/null
"$BIN" gen "$TMP/big.i915perf" "$N"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timeit CMD...: seconds of one run, read from bash's clock (a `date` process
# on each side would add its own start, 3 ms here, to every run)
timeit() {
	local t0 t1
	t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; t1=$EPOCHREALTIME
	awk -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN { printf "%.4f\n", b - a }'
}
# phases FILE: perfkit's time inside its process on FILE, by phase.
phases() {
	"$BIN" phases "$1" "$M" 5 | awk '/^PHASES/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "    perfkit in-process: reading + segments %.1f ms, metric set %.1f, printing %.1f, freeing %.1f\n",
			v["read"], v["metrics"], v["print"], v["free"] }'
}
# same_output WHAT PERFKIT_FLAG READER_FLAG: both tools' outputs on the
# 20,000-report file are identical, or the bench fails.
same_output() {
	# shellcheck disable=SC2086 # an empty flag is no argument
	"$PERFKIT" oa report -c all $2 --metrics-dir "$M" "$TMP/small.i915perf" >"$TMP/pk.txt"
	# shellcheck disable=SC2086
	i915-perf-reader -c all $3 "$TMP/small.i915perf" >"$TMP/igt.txt" 2>&1 || true
	if ! cmp -s "$TMP/pk.txt" "$TMP/igt.txt"; then
		diff "$TMP/pk.txt" "$TMP/igt.txt" | head -10
		echo "bench: perfkit and i915-perf-reader disagree on the 20,000-report file$1"
		exit 1
	fi
	echo "  20,000-report check$1: outputs identical ($(grep -c '^   ' "$TMP/pk.txt") counter values)"
	rm -f "$TMP/pk.txt" "$TMP/igt.txt"
}
# same_values FILE WHAT: both tools' -c all outputs on a timed FILE are
# identical, streamed through md5sum (the file with a context every 4
# reports prints 16 million values), or the bench fails.
same_values() {
	local pk igt values
	pk=$("$PERFKIT" oa report -c all --metrics-dir "$M" "$1" | md5sum)
	igt=$(i915-perf-reader -c all "$1" 2>&1 | md5sum || true)
	if [ "$pk" != "$igt" ]; then
		echo "bench: perfkit and i915-perf-reader disagree on the file with $2"
		exit 1
	fi
	values=$("$PERFKIT" oa report -c all --metrics-dir "$M" "$1" | grep -c '^   ')
	echo "  $2: outputs identical ($values counter values)"
}
# compare FILE WHAT [-r|--no-target]: medians of 9 runs of both tools on FILE,
# and the ratio; with -r, the values of every report pair too (--per-report,
# -r), for which the issue sets no target, nor for --no-target's file, and
# 5 runs (the reader takes seconds a run). Nine, because on a shared VM
# another process sometimes takes a CPU for tens of milliseconds (seen in a
# sched trace: the sandbox's own agent, 18 ms of a 33 ms reading), which
# costs perfkit's two threads more than the reader's one; the median of 9
# stands through 4 such runs.
# The runs alternate, so that both tools meet the file's pages as they are
# then: how they sit in the page cache (folio sizes, what reclaim took and
# gave back) changes the time to map them, by up to twice for the same file.
compare() {
	local pk igt pk_r=() igt_r=() target="(target >= 10x)" runs=9
	if [ "${3:-}" = -r ]; then pk_r=(--per-report); igt_r=(-r); target="(no target)"; runs=5; fi
	if [ "${3:-}" = --no-target ]; then target="(no target)"; fi
	for _ in $(seq "$runs"); do
		timeit "$PERFKIT" oa report -c all "${pk_r[@]}" --metrics-dir "$M" "$1" >>"$TMP/pk.times"
		timeit i915-perf-reader -c all "${igt_r[@]}" "$1" >>"$TMP/igt.times"
	done
	pk=$(median <"$TMP/pk.times")
	igt=$(median <"$TMP/igt.times")
	rm -f "$TMP/pk.times" "$TMP/igt.times"
	READER_S=$igt
	awk -v p="$pk" -v r="$igt" -v w="$2" -v t="$target" 'BEGIN {
		x = r / p
		printf "  %s: perfkit oa report %.3f s, i915-perf-reader %.3f s: %.1fx %s %s%s\n",
			w, p, r, x, (x >= 1 ? "faster" : "as fast, i.e. slower"), t,
			(t ~ /10x/ ? (x >= 10 ? " met" : " MISSED") : "") }'
}
if command -v i915-perf-reader >/dev/null 2>&1; then
	same_output "" "" ""
	same_output ", with every report pair" --per-report -r
	# a recording of a few seconds: the time to start, load the metric set and exit counts most
	compare "$TMP/small.i915perf" "20,000 reports (a recording of seconds)" --no-target
	compare "$TMP/big.i915perf" "contexts every ${BENCH_OA_CTX_EVERY:-64} reports"
	same_values "$TMP/big.i915perf" "contexts every ${BENCH_OA_CTX_EVERY:-64} reports"
	phases "$TMP/big.i915perf"
	compare "$TMP/big.i915perf" "the same with every report pair (--per-report, -r)" -r
	if [ -z "${BENCH_OA_CTX_EVERY:-}" ]; then
		# the same reports in one context: one timeline, no per-timeline output
		BENCH_OA_CTX_EVERY=$N "$BIN" gen "$TMP/one.i915perf" "$N" >/dev/null
		compare "$TMP/one.i915perf" "one context (one timeline)"
		same_values "$TMP/one.i915perf" "one context"
		phases "$TMP/one.i915perf"
		# the floor: a process that only maps the file and reads each line once;
		# and one that maps it and reads only each record's header
		"$BIN" floor "$TMP/one.i915perf" 5 | awk -v r="$READER_S" '/^FLOOR/ {
			split($2, kv, "="); f = kv[2]; split($3, k1, "="); split($4, k2, "="); split($5, kh, "=")
			printf "  floor: mapping the file and reading it once takes %.1f ms (one thread %.1f, two %.1f); 10x the reader (one context) is %.1f ms: at most %.1fx is possible here\n",
				f, k1[2], k2[2], r * 100, r * 1000 / f
			printf "  floor of a tool that reads only each record'"'"'s header, as the reader does (one delta a segment): %.1f ms, at most %.1fx\n",
				kh[2], r * 1000 / kh[2] }'
		rm -f "$TMP/one.i915perf"
		# short segments: the cost per segment, and the memory it takes
		BENCH_OA_CTX_EVERY=4 "$BIN" gen "$TMP/short.i915perf" "$N" >/dev/null
		compare "$TMP/short.i915perf" "contexts every 4 reports (short segments)"
		same_values "$TMP/short.i915perf" "contexts every 4 reports"
		pk_kb=$("$BIN" peak "$PERFKIT" oa report -c all --metrics-dir "$M" "$TMP/short.i915perf" |
			sed -n 's/^PEAK kb=//p')
		igt_kb=$("$BIN" peak i915-perf-reader -c all "$TMP/short.i915perf" | sed -n 's/^PEAK kb=//p')
		echo "  peak memory there: perfkit $((pk_kb / 1024)) MB, i915-perf-reader $((igt_kb / 1024)) MB (both map the $(($(stat -c %s "$TMP/short.i915perf") >> 20)) MB file)"
		rm -f "$TMP/short.i915perf"
	fi
else
	pk=$(for _ in 1 2 3 4 5; do timeit "$PERFKIT" oa report -c all --metrics-dir "$M" "$TMP/big.i915perf"; done | median)
	echo "  perfkit oa report $pk s; i915-perf-reader not installed (intel-gpu-tools): no ratio"
fi
"$BIN" decode "$TMP/big.i915perf" 9 | awk '
	/^CACHED/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] } }
	/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } found = 1 }
	END {
		if (!found) { print "bench: no RESULT line from oa_report decode"; exit 1 }
		printf "  decode + accumulate, one core: %.1f M reports/s over the file, %.1f M/s in cache (target >= 20 M/s) %s\n",
			v["rate"] / 1e6, c["rate"] / 1e6, (v["rate"] >= 20e6 ? "met" : "MISSED")
	}'
