#!/usr/bin/env bash
# Benchmark: one `perfkit gpu` scan (pk_gpu_scanner_refresh) over a generated
# /proc tree of 2,000 processes x 24 fds, 4 of them DRM (8,000 fdinfo files in
# i915, xe and amdgpu styles), against the bare system calls a minimal loop
# needs to find and read the same fdinfo files (getdents64, one fstatat per fd,
# open/read/close per DRM fd; no parsing), timed alternately in one process by
# build/bench/gpu_scan (see bench/gpu_scan.c), medians of 15 runs.
# Targets: the first refresh costs <= 1.3x the bare loop (wall time), and a
# refresh where nothing changed costs less than the first. Figures are also
# given per process and per DRM fd. A missed target prints MISSED and does not
# fail; a broken run (the two sides disagree, a crash) does.
set -euo pipefail
: "${PK_BUILD:=build}"
BIN=$PK_BUILD/bench/gpu_scan
NPROC=${BENCH_GPU_NPROC:-2000}
NFD=${BENCH_GPU_NFD:-24}
NDRM=${BENCH_GPU_NDRM:-4}
REPS=${BENCH_GPU_REPS:-15}
[ -x "$BIN" ] || { echo "bench: $BIN is not built (make bench builds it)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "gpu refresh: $NPROC processes x $NFD fds ($NDRM DRM) = $((NPROC * NDRM)) fdinfo files"
"$BIN" gen "$TMP/tree" "$NPROC" "$NFD" "$NDRM" >"$TMP/gen.txt" || {
	cat "$TMP/gen.txt"; echo "bench: gpu_scan gen failed"; exit 1; }
grep -v '^  tree:' "$TMP/gen.txt" || true
echo "  load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
if ! "$BIN" run "$TMP/tree" "$REPS" >"$TMP/run.txt" 2>&1; then
	cat "$TMP/run.txt"
	echo "bench: gpu_scan run failed"
	exit 1
fi
grep -v '^RESULT ' "$TMP/run.txt" || true
grep '^RESULT ' "$TMP/run.txt" | awk '
	{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		ok1 = v["first_ratio"] <= 1.3
		ok2 = v["unchanged_ms"] < v["first_ms"]
		printf "  target first refresh <= 1.3x bare: %.2fx (CPU time %.2fx) %s\n",
			v["first_ratio"], v["first_cpu_ratio"], ok1 ? "met" : "MISSED"
		printf "  target unchanged < first: %.1f ms vs %.1f ms (%.2fx of bare) %s\n",
			v["unchanged_ms"], v["first_ms"], v["unchanged_ratio"], ok2 ? "met" : "MISSED"
		found = 1
	}
	END { if (!found) { print "bench: no RESULT line from gpu_scan run"; exit 1 } }'
