#!/usr/bin/env bash
# Benchmark: wall time of `perfkit stat -e task-clock -- true` against
# `perf stat -e task-clock -- true`, measured side by side in one hyperfine run
# (no shell, warm-up runs first), as the ratio of medians.
set -euo pipefail
: "${PERFKIT:=build/perfkit}"
RUNS=${BENCH_RUNS:-30}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is not installed (scripts/install-deps)"; exit 1; }
command -v perf >/dev/null || { echo "bench: Linux perf is not installed"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
hyperfine -N --warmup 5 --runs "$RUNS" --export-csv "$out" \
	-n perf "perf stat -e task-clock -- true" \
	-n perfkit "$PERFKIT stat -e task-clock -- true" >/dev/null 2>&1
awk -F, -v runs="$RUNS" '
	NR > 1 { med[$1] = $4 }
	END {
		printf "stat startup: perf stat -e task-clock -- true vs perfkit (median of %d runs each)\n", runs
		printf "  perf     %8.3f ms\n", med["perf"] * 1000
		printf "  perfkit  %8.3f ms\n", med["perfkit"] * 1000
		printf "  ratio    perfkit/perf = %.3f (target <= 0.5)\n", med["perfkit"] / med["perf"]
	}' "$out"
