#!/usr/bin/env bash
# Out of memory at every allocation: pk-fail-alloc.so, preloaded into perfkit,
# makes the Nth allocation perfkit's own code asks for fail (NULL, ENOMEM). For
# each command below, a first run counts its allocations, then the command is
# run once per allocation with that one failing. Every run must end by itself
# (no signal: no crash, no double free, no abort; no hang); a run that fails
# must say why on stderr; one that exits 0 may have warned but not reported an
# error. Beyond that, by the command's mode:
#   exact   exit 0: the output is what the run without failures printed (the
#           failure was worked around, not papered over);
#   honest  exit 0: the same output, or a warning that says what is missing
#           (a feature section, a DSO's symbols, a process's maps);
#   loose   no more (counts that differ from run to run, a GPU's name from
#           the PCI database left out).
# (Not under a sanitizer build: the sanitizer replaces the allocator itself.)
. "$(dirname "$0")/tap-lib.bash"
. "$(dirname "$0")/gpu-lib.bash"
: "${PK_FAIL_ALLOC_SO:=build/tests/pk-fail-alloc.so}"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
[ -f "$PK_FAIL_ALLOC_SO" ] || skip_all "$PK_FAIL_ALLOC_SO not built"
grep -q __asan_init "$PERFKIT" && skip_all "perfkit is built with AddressSanitizer, which owns the allocator"
SO=$(cd "$(dirname "$PK_FAIL_ALLOC_SO")" && pwd)/$(basename "$PK_FAIL_ALLOC_SO")
SHARED=${PK_SHARED:-../shared}

# sweep exact|honest|loose NAME CMD...: CMD run with each of its allocations failing in turn
sweep() {
	local mode=$1 name=$2 n i rc refrc bad=0 first="" t0=$SECONDS
	shift 2
	"$@" >"$TMP/ref.out" 2>"$TMP/ref.err"
	refrc=$?
	PK_FAIL_ALLOC_COUNT=$TMP/count LD_PRELOAD=$SO "$@" >/dev/null 2>&1
	n=$(cat "$TMP/count" 2>/dev/null)
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		fail "$name: allocations counted" "no count from $SO"
		return
	fi
	for i in $(seq 1 "$n"); do
		PK_FAIL_ALLOC=$i LD_PRELOAD=$SO timeout 30 "$@" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ "$rc" -ge 124 ]; then
			why="allocation $i: status $rc: $(tail -c 200 "$TMP/err")"
		elif [ "$rc" -ne 0 ] && [ "$rc" -ne "$refrc" ] && [ ! -s "$TMP/err" ]; then
			why="allocation $i: status $rc and no message"
		elif [ "$rc" -eq 0 ] && grep -v "warning:" "$TMP/err" | grep -q "memory"; then
			why="allocation $i: status 0 after an error: $(head -c 200 "$TMP/err")"
		elif [ "$mode" != loose ] && [ "$rc" -eq 0 ] && ! cmp -s "$TMP/out" "$TMP/ref.out" &&
			{ [ "$mode" = exact ] || ! grep -q "warning:" "$TMP/err"; }; then
			why="allocation $i: status 0 and another output, $(head -c 200 "$TMP/err")"
		else
			continue
		fi
		bad=$((bad + 1))
		[ -n "$first" ] || first=$why
	done
	[ -z "${PK_FAIL_ALLOC_TIMES:-}" ] || note "$name: $((SECONDS - t0)) s" >&2
	if [ "$bad" -eq 0 ]; then
		pass "$name: each of $n allocations failing"
	else
		fail "$name: each of $n allocations failing" "$bad bad, first: $first"
	fi
}

# ---- oa report: every form, on recordings of three generations ---------------------
R=$SHARED/data/i915-perf
M=$SHARED/data/intel-oa
if [ -f "$R/bdw_renderbasic.i915perf" ] && [ -f "$M/oa-bdw.xml" ]; then
	sweep exact "oa report" "$PERFKIT" oa report -c all --metrics-dir "$M" "$R/bdw_renderbasic.i915perf"
	sweep exact "oa report --json" "$PERFKIT" oa report --json -c all --metrics-dir "$M" \
		"$R/tgl_renderbasic.i915perf"
	sweep exact "oa report --per-report" "$PERFKIT" oa report --per-report -c all --metrics-dir "$M" \
		"$R/hsw_renderbasic.i915perf"
	sweep exact "oa report --per-report --json" "$PERFKIT" oa report --per-report --json -c all \
		--metrics-dir "$M" "$R/skl_renderbasic.i915perf"
	sweep exact "oa report (lost reports, invalid contexts)" "$PERFKIT" oa report -c all \
		--metrics-dir "$M" "$R/edge_lost.i915perf"
	sweep exact "oa list" "$PERFKIT" oa list --metrics-dir "$M"
else
	skip "no OA recordings or metric files under $SHARED/data"
fi

# ---- report and script on recordings of this machine ------------------------------
# (user-space samples, zstd-compressed records, in file and pipe mode)
"$PERFKIT" record -q -z -g -e cpu-clock:u -F 2000 -o "$TMP/pk.data" -- "$PK_WORKLOAD" --spin-ms 100 \
	>/dev/null 2>&1
"$PERFKIT" record -q -z -g -e cpu-clock:u -F 2000 -o - -- "$PK_WORKLOAD" --spin-ms 100 \
	>"$TMP/pipe.data" 2>/dev/null
if [ -s "$TMP/pk.data" ] && [ -s "$TMP/pipe.data" ]; then
	sweep honest "report" "$PERFKIT" report --stdio -i "$TMP/pk.data"
	sweep honest "report --children --sort dso,sym (pipe mode)" "$PERFKIT" report --stdio --children \
		--sort dso,sym -i "$TMP/pipe.data"
	sweep honest "report --format folded" "$PERFKIT" report --format folded -i "$TMP/pk.data"
	sweep honest "script" "$PERFKIT" script -i "$TMP/pk.data"
	sweep honest "report --header-only" "$PERFKIT" report --header-only -i "$TMP/pk.data"
	"$PERFKIT" record -q -e page-faults -c 1000000000 -o "$TMP/empty.data" -- true >/dev/null 2>&1
	sweep honest "report --format folded (no samples)" "$PERFKIT" report --format folded \
		-i "$TMP/empty.data"
else
	fail "perfkit record wrote recordings to sweep" "$(ls -l "$TMP"/*.data 2>&1)"
fi

# ---- stat and record: the counts differ from run to run ------------------------------
sweep loose "stat" "$PERFKIT" stat -e task-clock,page-faults -- true
sweep loose "stat -x, -r 2 (a group)" "$PERFKIT" stat -x, -e '{cpu-clock,task-clock}' -r 2 -- true
sweep loose "stat -I" "$PERFKIT" stat -I 10 -e cpu-clock -- sleep 0.03
sleep 30 &
IDLE=$!
sweep loose "stat -p" "$PERFKIT" stat -e cpu-clock -p "$IDLE" -- sleep 0.02
sweep loose "top on an idle process" "$PERFKIT" top --stdio -n 1 -d 0.05 -e cpu-clock -p "$IDLE"
kill "$IDLE" 2>/dev/null
wait "$IDLE" 2>/dev/null
sweep loose "record" "$PERFKIT" record -q -g -F 999 -o "$TMP/r.data" -- "$PK_WORKLOAD" --spin-ms 20

# ---- gpu: a fixture tree with two devices and three clients ---------------------------
T=$TMP/gpu
gpu_tree "$T"
gpu_pci_dev "$T" 0000:00:02.0 i915 0x8086 0x46a6 card0 renderD128
gpu_pci_dev "$T" 0000:03:00.0 xe 0x8086 0x56a0 card1 renderD129
gpu_proc "$T" 100 glxgears
gpu_other_fds "$T" 100 3
printf 'drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t1000000000 ns\ndrm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\ndrm-total-system0:\t4 MiB\ndrm-resident-system0:\t2048 KiB\n' |
	gpu_fd "$T" 100 5 /dev/dri/renderD128
gpu_proc "$T" 200 worker
printf 'drm-driver:\ti915\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t5000000000 ns\n' |
	gpu_fd "$T" 200 4 /dev/dri/renderD128
gpu_proc "$T" 300 xe-app
printf 'drm-driver:\txe\ndrm-client-id:\t3\ndrm-pdev:\t0000:03:00.0\ndrm-cycles-rcs:\t100\ndrm-total-cycles-rcs:\t1000\ndrm-total-vram0:\t1 MiB\n' |
	gpu_fd "$T" 300 6 /dev/dri/renderD129
ROOTS=(--proc-root "$T/proc" --sys-root "$T/sys")
# (a device's name from the PCI database is left out when there is no memory for it: loose)
sweep loose "gpu --stdio" "$PERFKIT" gpu -n 1 --stdio "${ROOTS[@]}"
sweep loose "gpu --json" "$PERFKIT" gpu -n 1 --json "${ROOTS[@]}"
sweep loose "gpu record" "$PERFKIT" gpu record -n 2 -d 0.01 -o "$TMP/g.rec" "${ROOTS[@]}"
"$PERFKIT" gpu record -n 3 -d 0.01 -o "$TMP/g.rec" "${ROOTS[@]}" >/dev/null 2>&1
sweep exact "gpu report" "$PERFKIT" gpu report "$TMP/g.rec"
sweep exact "gpu report --json" "$PERFKIT" gpu report --json "$TMP/g.rec"

done_testing
