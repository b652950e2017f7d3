#!/usr/bin/env bash
# Corrupt and truncated perf.data: every input either reads (exit 0) or stops
# with exit status 2 and "perfkit: 'FILE': ... at offset N" on stderr; never a
# crash (signal), never a hang (timeout), never unbounded memory (ulimit -v).
# Inputs: the deliberately corrupt corpus files, plus, for every corpus file,
# truncations at spread-out points and single bit flips at random places
# (seeded, so a failure reproduces).
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
CORPUS="${PK_SHARED:-../shared}/data/perf.data"
[ -d "$CORPUS" ] || skip_all "no perf.data corpus at $CORPUS"

# Under ASan the virtual size is huge by design; bound time only.
if "$PERFKIT" --version >/dev/null 2>&1 && ldd "$PERFKIT" 2>/dev/null | grep -q asan; then
	MEMLIMIT=unlimited
else
	MEMLIMIT=$((1024 * 1024))   # 1 GiB of address space, in KiB
fi

# run_one FILE CMD...: exit status of perfkit on FILE (124 = hang), stderr in $TMP/err
run_one() {
	local f=$1; shift
	( ulimit -v "$MEMLIMIT"; timeout 20 "$PERFKIT" "$@" -i "$f" >/dev/null 2>"$TMP/err" )
}

# check FILE LABEL [NEED]: report and script both exit 0 or 2, and 2 names the file
# and the offset (NEED=offset) or at least the file (NEED=file: a flipped bit can
# make a well-formed file that cannot be shown, e.g. a sample_type without IP)
check() {
	local f=$1 label=$2 need=${3:-offset} rc bad="" want
	if [ "$need" = offset ]; then want="'$f'.*offset [0-9]"; else want="'$f'"; fi
	for cmd in "report --stdio" "script"; do
		# shellcheck disable=SC2086
		run_one "$f" $cmd
		rc=$?
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
			bad="$bad $cmd: exit $rc ($(head -c 300 "$TMP/err"));"
		elif [ "$rc" -eq 2 ] && ! grep -q "$want" "$TMP/err"; then
			bad="$bad $cmd: exit 2 without naming the $need ($(head -c 300 "$TMP/err"));"
		fi
	done
	if [ -z "$bad" ]; then pass "$label"; else fail "$label" "$bad"; fi
}

# The corpus's own bad inputs must fail cleanly with exit 2.
for f in simpleperf/invalid_perf.data hotspot/perf.data.broken.gz; do
	run_one "$CORPUS/$f" report --stdio
	is $? 2 "$f is rejected with exit 2"
	grep -q "'$CORPUS/$f'.*offset [0-9]" "$TMP/err"; ok $? "$f: the message names the file and offset"
done
run_one "$CORPUS/quipper/perf.data.piped.corrupted.zero_size_sample-3.2" script
is $? 2 "a record of size 0 stops with exit 2"
grep -q "offset 49104" "$TMP/err"; ok $? "and names its offset (49104)"

RANDOM=4242
files=$(find "$CORPUS" -type f -name '*data*' ! -name '*.md' ! -name '*.txt' | sort)
declare -A tried    # the truncations checked, by checksum: most files begin alike
for f in $files; do
	name=${f#"$CORPUS"/}
	size=$(stat -c %s "$f")
	# truncations: a few header-sized cuts and spread-out points
	for cut in 8 16 100 $((size / 7)) $((size / 3)) $((size / 2)) $((size - 1)); do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$f" > "$TMP/cut"
		sum=$(cksum <"$TMP/cut")
		[ -z "${tried[$sum]:-}" ] || continue
		tried[$sum]=1
		check "$TMP/cut" "$name truncated to $cut bytes"
	done
	# bit flips: in the header and anywhere in the file
	for i in 1 2 3 4 5 6; do
		if [ "$i" -le 2 ]; then pos=$((RANDOM % (size < 256 ? size : 256))); else pos=$(( (RANDOM * 32768 + RANDOM) % size )); fi
		bit=$((RANDOM % 8))
		cp "$f" "$TMP/flip"
		byte=$(od -An -tu1 -j "$pos" -N1 "$f" | tr -d ' ')
		printf "$(printf '\\%03o' $(( byte ^ (1 << bit) )))" |
			dd of="$TMP/flip" bs=1 seek="$pos" conv=notrunc status=none
		check "$TMP/flip" "$name with bit $bit of byte $pos flipped" file
	done
done

done_testing
