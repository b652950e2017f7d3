#!/usr/bin/env bash
# Out of memory at every allocation: pk-fail-alloc.so, preloaded into perfkit,
# makes the Nth allocation perfkit's own code asks for fail (NULL, ENOMEM). For
# each command below, a first run counts its allocations, then the command is
# run once per allocation with that one failing. Every run must end by itself
# (no signal: no crash, no double free, no abort; no hang); a run that fails
# must say why on stderr, and exit 1 if it says it ran out of memory (DESIGN.md:
# 1 is a run-time error, 2 a usage error or input that cannot be read) and never
# word its error as errno 0 ("Success"); one that exits 0 may have warned but not
# reported an error. Beyond that, by the command's mode:
#   exact   exit 0: the output is what the run without failures printed (the
#           failure was worked around, not papered over);
#   honest  exit 0: the same output, or a warning that says what is missing
#           (a feature section, a DSO's symbols, a process's maps, a GPU's
#           name from the PCI database);
#   shape   exit 0: the same output once every number is replaced by N (a
#           counter row left out shows; counts differ from run to run);
#   loose   no more (the number of intervals differs too; JSON carries the
#           time).
# $SWEEP_LIBS (see pk-fail-alloc.c's $PK_FAIL_ALLOC_LIBS) counts the
# allocations of those libraries too: a library that runs out of memory
# must not make perfkit print less in silence. $SWEEP_STRIDE N fails only
# every Nth allocation, for a sweep of thousands whose few sites repeat (a
# metric set's XML: the same attribute and node allocations for each
# counter); PK_FAIL_ALLOC_FULL=1 sweeps every one. $SWEEP_FILE names the
# file the command writes its output to (stat -o) instead of stdout.
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
# (numbers as N: digits with their grouping commas and decimal points)
shape_of() { printf '%s' "$1" | sed -E 's/[0-9][0-9,.]*/N/g; s/ +/ /g'; }
# errors_name_memory TEXT: a line of TEXT (stderr) other than a warning speaks of memory
errors_name_memory() {
	local line
	while IFS= read -r line; do
		[[ $line != *"warning:"* && $line == *memory* ]] && return 0
	done <<<"$1"
	return 1
}

sweep() {
	local mode=$1 name=$2 n i rc refrc bad=0 first="" t0=$SECONDS
	local stride=${SWEEP_STRIDE:-1}
	shift 2
	[ -z "${PK_FAIL_ALLOC_FULL:-}" ] || stride=1
	export PK_FAIL_ALLOC_LIBS=${SWEEP_LIBS:-}
	"$@" >"$TMP/ref.out" 2>"$TMP/ref.err"
	refrc=$?
	[ -z "${SWEEP_FILE:-}" ] || cp "$SWEEP_FILE" "$TMP/ref.out"
	PK_FAIL_ALLOC_COUNT=$TMP/count LD_PRELOAD=$SO "$@" >/dev/null 2>&1
	n=$(cat "$TMP/count" 2>/dev/null)
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		fail "$name: allocations counted" "no count from $SO"
		return
	fi
	# (the loop runs thousands of times: its tests are bash's own, without a process each)
	local out err where ref shape refshape
	IFS= read -r -d '' ref <"$TMP/ref.out"
	[ "$mode" != shape ] || refshape=$(shape_of "$ref")
	for i in $(seq 1 "$stride" "$n"); do
		: >"$TMP/where"
		[ -z "${SWEEP_FILE:-}" ] || : >"$SWEEP_FILE"
		PK_FAIL_ALLOC=$i PK_FAIL_ALLOC_WHERE=$TMP/where LD_PRELOAD=$SO timeout 30 "$@" \
			>"$TMP/out" 2>"$TMP/err"
		rc=$?
		out="" err=""
		{ IFS= read -r -d '' out <"${SWEEP_FILE:-$TMP/out}"; } 2>/dev/null   # (a file it removed: "")
		IFS= read -r -d '' err <"$TMP/err"
		if [ "$rc" -ge 124 ]; then
			why="allocation $i: status $rc: ${err: -200}"
		elif [ "$rc" -ne 0 ] && [ "$rc" -ne "$refrc" ] && [ -z "$err" ]; then
			why="allocation $i: status $rc and no message"
		elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] &&
			[[ ${err,,} == *"out of memory"* || ${err,,} == *"cannot allocate memory"* ]]; then
			why="allocation $i: out of memory, status $rc, not 1: ${err:0:200}"
		elif [[ $err == *": Success"* ]]; then
			why="allocation $i: an error worded as errno 0: ${err:0:200}"
		elif [ "$rc" -eq 0 ] && errors_name_memory "$err"; then
			why="allocation $i: status 0 after an error: ${err:0:200}"
		elif { [ "$mode" = exact ] || [ "$mode" = honest ]; } && [ "$rc" -eq 0 ] &&
			[ "$out" != "$ref" ] &&
			{ [ "$mode" = exact ] || [[ $err != *"warning:"* ]]; }; then
			why="allocation $i: status 0 and another output, ${err:0:200}"
		elif [ "$mode" = shape ] && [ "$rc" -eq 0 ] && [[ $err != *"warning:"* ]] &&
			shape=$(shape_of "$out") && [ "$shape" != "$refshape" ]; then
			why="allocation $i: status 0 and output of another shape, ${err:0:200}"
		else
			continue
		fi
		IFS= read -r -d '' where <"$TMP/where"
		why="$why (failed: $where)"
		bad=$((bad + 1))
		[ -n "$first" ] || first=$why
	done
	[ -z "${PK_FAIL_ALLOC_TIMES:-}" ] || note "$name: $((SECONDS - t0)) s" >&2
	unset PK_FAIL_ALLOC_LIBS
	local what="each of $n allocations"
	[ "$stride" -eq 1 ] || what="every ${stride}th of $n allocations"
	if [ "$bad" -eq 0 ]; then
		pass "$name: $what failing"
	else
		fail "$name: $what failing" "$bad bad, first: $first"
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
	# correlation points out of GPU time order (the last first): their sorted copy's allocation too
	python3 - "$R/bdw_renderbasic.i915perf" "$TMP/reversed.i915perf" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos, recs = 0, []
while pos < len(data):
    size = struct.unpack_from("<IHH", data, pos)[2]
    recs.append(data[pos:pos + size])
    pos += size
corr = [i for i, r in enumerate(recs) if struct.unpack_from("<I", r)[0] == 0x10003]
bodies = [recs[i] for i in corr][::-1]
for i, r in zip(corr, bodies):
    recs[i] = r
open(sys.argv[2], "wb").write(b"".join(recs))
PY
	sweep exact "oa report (correlation points out of order)" "$PERFKIT" oa report -c all \
		--metrics-dir "$M" "$TMP/reversed.i915perf"
	sweep exact "oa list" "$PERFKIT" oa list --metrics-dir "$M"
	# libxml2 running out of memory while it parses a set: the document it returns without
	# the attribute it could not copy must not be used (a uuid left out became a warning
	# about another HW configuration, exit 0)
	SWEEP_LIBS=libxml2 SWEEP_STRIDE=7 sweep exact "oa report, libxml2's allocations too" \
		"$PERFKIT" oa report -c all --metrics-dir "$M" "$R/hsw_renderbasic.i915perf"
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
	sweep honest "report --hierarchy -n" "$PERFKIT" report --stdio --hierarchy -n -i "$TMP/pk.data"
	sweep honest "script" "$PERFKIT" script -i "$TMP/pk.data"
	sweep honest "report --header-only" "$PERFKIT" report --header-only -i "$TMP/pk.data"
	# (libelf running out of memory on the vdso image left its symbols out in silence)
	SWEEP_LIBS=libelf:libdw:libzstd sweep honest "report, libelf's, libdw's and libzstd's allocations too" \
		"$PERFKIT" report --stdio -i "$TMP/pk.data"
	SWEEP_LIBS=libelf:libdw:libzstd sweep honest "script, libelf's, libdw's and libzstd's allocations too" \
		"$PERFKIT" script -i "$TMP/pk.data"
	"$PERFKIT" record -q -e page-faults -c 1000000000 -o "$TMP/empty.data" -- true >/dev/null 2>&1
	sweep honest "report --format folded (no samples)" "$PERFKIT" report --format folded \
		-i "$TMP/empty.data"
else
	fail "perfkit record wrote recordings to sweep" "$(ls -l "$TMP"/*.data 2>&1)"
fi

# ---- stat and record: the counts differ from run to run ------------------------------
# (stat printed its header and footer without a counter's row when the rows' table could
# not be allocated)
S=$TMP/stat.txt
SWEEP_FILE=$S sweep shape "stat" "$PERFKIT" stat -o "$S" -e task-clock,page-faults -- true
SWEEP_FILE=$S sweep shape "stat -x, -r 2 (a group)" "$PERFKIT" stat -o "$S" -x, \
	-e '{cpu-clock,task-clock}' -r 2 -- true
sweep loose "stat -I" "$PERFKIT" stat -I 10 -e cpu-clock -- sleep 0.03
sleep 30 &
IDLE=$!
SWEEP_FILE=$S sweep shape "stat -p" "$PERFKIT" stat -o "$S" -e cpu-clock -p "$IDLE" -- sleep 0.02
sweep shape "top on an idle process" "$PERFKIT" top --stdio -n 1 -d 0.05 -e cpu-clock -p "$IDLE"
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
# (a device's name from the PCI database was left out in silence when there was no memory
# to read its ids from sysfs; libpci's own allocations are not failed here: libpci 3.9
# crashes when one fails in pci_load_name_list)
sweep honest "gpu --stdio" "$PERFKIT" gpu -n 1 --stdio "${ROOTS[@]}"
sweep loose "gpu --json" "$PERFKIT" gpu -n 1 --json "${ROOTS[@]}"
sweep loose "gpu record" "$PERFKIT" gpu record -n 2 -d 0.01 -o "$TMP/g.rec" "${ROOTS[@]}"
"$PERFKIT" gpu record -n 3 -d 0.01 -o "$TMP/g.rec" "${ROOTS[@]}" >/dev/null 2>&1
sweep exact "gpu report" "$PERFKIT" gpu report "$TMP/g.rec"
sweep exact "gpu report --json" "$PERFKIT" gpu report --json "$TMP/g.rec"

done_testing
