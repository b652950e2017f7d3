#!/usr/bin/env bash
# Benchmark: perfkit record against perf record in the same run.
#  1. start-up and shut-down: `record -o X -- true`, wall time by hyperfine
#     (no shell, 2 warm-ups, 10 runs); target: perfkit <= 1/10 of perf.
#  2. sustained sampling: `record -a -g -F 20000 -- sleep 10` while two busy
#     processes keep both CPUs loaded; the recorder's own CPU time (user +
#     sys of the record process and its children, from /usr/bin/time) and
#     the samples lost, both read the same way for both tools (lost from
#     `perf report`'s "Total Lost Samples"); target: perfkit's CPU time <=
#     perf's and no more lost samples. No assertions: figures only.
set -euo pipefail
: "${PERFKIT:=build/perfkit}"
PERFKIT=$(readlink -f "$PERFKIT")
SECS=${BENCH_RECORD_SECS:-10}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is not installed (scripts/install-deps)"; exit 1; }
command -v perf >/dev/null || { echo "bench: Linux perf is not installed"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

hyperfine -N --warmup 2 --runs 10 --export-csv "$TMP/t.csv" \
	-n perf "perf record -q -o $TMP/p.data -- true" \
	-n perfkit "$PERFKIT record -q -o $TMP/k.data -- true" >/dev/null 2>&1
awk -F, '
	NR > 1 { med[$1] = $4 }
	END {
		printf "record -- true (start and stop; target: perfkit <= 0.1 of perf)\n"
		printf "  perf     %8.1f ms\n", med["perf"] * 1000
		printf "  perfkit  %8.1f ms\n", med["perfkit"] * 1000
		printf "  ratio    %.3f of perf'"'"'s time (%.1fx faster)\n", med["perfkit"] / med["perf"], med["perf"] / med["perfkit"]
	}' "$TMP/t.csv"

busy() { # two CPU-bound processes for $1 seconds
	local end=$((SECONDS + $1))
	for _ in 1 2; do
		( while [ $SECONDS -lt $end ]; do :; done ) &
	done
}

# sustained NAME CMD...: CPU seconds of the recorder, samples, lost samples
sustained() {
	local name=$1 f="$TMP/$1.data"
	shift
	busy $((SECS + 1))
	/usr/bin/time -f "%U %S" -o "$TMP/$name.time" "$@" -o "$f" -- sleep "$SECS" >/dev/null 2>&1
	wait
	local cpu samples lost
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$TMP/$name.time")
	samples=$(perf report --stats -i "$f" 2>/dev/null | awk '/SAMPLE events/ && !v { v = $3 } END { print v }')
	lost=$(perf report --stdio -i "$f" 2>/dev/null | awk '/Total Lost Samples/ && v == "" { v = $NF } END { print v }')
	echo "$name $cpu ${samples:-0} ${lost:-0} $(stat -c %s "$f")"
}
{
	sustained perf perf record -q -a -g -F 20000
	sustained perfkit "$PERFKIT" record -q -a -g -F 20000
} >"$TMP/sus.txt"
awk -v secs="$SECS" '
	{ cpu[$1] = $2; n[$1] = $3; lost[$1] = $4; size[$1] = $5 }
	END {
		printf "record -a -g -F 20000 for %d s, both CPUs busy (target: CPU time <= perf, lost <= perf)\n", secs
		for (t = 0; t < 2; t++) {
			k = t ? "perfkit" : "perf"
			printf "  %-8s CPU %6.2f s  samples %8d  lost %6d  file %7.1f MiB\n", k, cpu[k], n[k], lost[k], size[k] / 1048576
		}
		printf "  CPU time ratio %.2f of perf'"'"'s; lost %d vs %d\n", cpu["perf"] ? cpu["perfkit"] / cpu["perf"] : 0, lost["perfkit"], lost["perf"]
	}' "$TMP/sus.txt"
