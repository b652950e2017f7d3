#!/usr/bin/env bash
# DWARF-mode call chains (`perf record --call-graph dwarf`): perfkit unwinds
# the user stack copies itself (lib/unwind over libdw) and must print the
# call chains perf 6.1 prints. A 3-deep call chain main->a->b->spin built
# with -fomit-frame-pointer (frame pointers cannot help) is recorded here;
# perf script / perf report on the same file are the oracle. Corpus files
# whose binaries are not on this machine must still give the kernel part,
# and corrupt stack copies must not crash or hang.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
have_perf || skip_all "Linux perf not usable here: no oracle"
command -v gcc >/dev/null 2>&1 || skip_all "gcc not installed"
SHARED=${PK_SHARED:-../shared}

norm() { sed 's/[[:space:]]\+/ /g; s/ $//' "$@"; }
# A sample on a PLT stub: perf 6.1 names it after the zero-size symbol that
# its end fixup stretched over .plt before the name@plt symbols were added
# (_init, found first by its rb-tree descent); perfkit names the stub
# (clock_gettime@plt). Both become "<plt stub>" here, and the difference
# is named in the passing line.
plt() { norm "$@" | sed 's/[A-Za-z0-9_.]*@plt\b/<plt stub>/g; s/\b_init\b/<plt stub>/g'; }
same() { # same FILE_A FILE_B NAME
	if diff -q <(norm "$1") <(norm "$2") >/dev/null; then
		pass "$3"
	elif diff -q <(plt "$1") <(plt "$2") >/dev/null; then
		pass "$3 (but for $(diff <(norm "$1") <(norm "$2") | grep -c '^>') lines of a PLT stub: perf 6.1 says _init)"
	else
		fail "$3" "$(diff <(norm "$1") <(norm "$2") | head -8 | tr '\n' '|')"
		keep_files unwind "$1" "$2" "$TMP"/*.data
	fi
}

cat >"$TMP/prog.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void b(unsigned long n) { spin(n); sink++; }
__attribute__((noinline)) void a(unsigned long n) { b(n); sink++; }
int main(int argc, char **argv) { a(argc > 1 ? strtoul(argv[1], 0, 0) : 100000000UL); return 0; }
C
gcc -O1 -g -fomit-frame-pointer -o "$TMP/prog" "$TMP/prog.c" || skip_all "gcc failed"
T=$TMP/dwarf.data
perf record -q -e cpu-clock -F 2999 --call-graph dwarf -o "$T" -- "$TMP/prog" 150000000 >/dev/null 2>&1
[ -s "$T" ] || skip_all "perf record --call-graph dwarf failed here"

# perf script: every sample's call chain, leaf first
perf script --no-inline -F comm,tid,ip,sym -i "$T" >"$TMP/perf.txt" 2>/dev/null
"$PERFKIT" script --no-inline -F comm,tid,ip,sym -i "$T" >"$TMP/pk.txt" 2>"$TMP/pk.err"
is $? 0 "script on a dwarf file: exit 0"
same "$TMP/perf.txt" "$TMP/pk.txt" "script -F comm,tid,ip,sym: the same call chains as perf"
want=$(grep -c $'^\t.* main$' "$TMP/perf.txt")
got=$(grep -c $'^\t.* main$' "$TMP/pk.txt")
is "$got" "$want" "samples whose chain reaches main: $want as perf"
nsamp=$(grep -c '^prog' "$TMP/perf.txt")
ok $(( want * 10 >= nsamp * 9 ? 0 : 1 )) "perf unwound at least 90% of $nsamp samples to main (oracle sanity)"
# the chain spin <- b <- a <- main, with return addresses minus 1
awk '/^\t/ { s = s " " $2 } /^$/ { if (s ~ / spin b a main/) n++; s = "" } END { print n + 0 }' \
	"$TMP/pk.txt" >"$TMP/n"
ok $(( $(cat "$TMP/n") * 10 >= nsamp * 8 ? 0 : 1 )) "spin b a main in order in $(cat "$TMP/n") of $nsamp samples"
prog_ips=$(awk '/^\t/ && $2 == "b" { print $1; exit }' "$TMP/pk.txt")
addr=$(nm "$TMP/prog" | awk '$3 == "b" { print $1 }')
ret=$(objdump -d --no-show-raw-insn "$TMP/prog" | awk -v f="<b>:" '$0 ~ f { on = 1; next } on && /call/ { getline; sub(":", "", $1); print $1; exit }')
is "$prog_ips" "$(printf '%x' $(( 0x$ret - 1 )))" "frame in b is b's call return address - 1 ($addr + ...)"

# perf report: caller-order call graphs
perf report --no-inline --stdio --no-children --sort sym -g caller -i "$T" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/perf.rep"
"$PERFKIT" report --no-inline --stdio --no-children --sort sym -g caller -i "$T" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/pk.rep"
same "$TMP/perf.rep" "$TMP/pk.rep" "report --no-children --sort sym -g caller: the same call graphs as perf"
perf report --no-inline --stdio --children --sort sym -i "$T" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/perf.rep2"
"$PERFKIT" report --no-inline --stdio --children --sort sym -i "$T" 2>/dev/null | grep -v '^#' | grep -v '^$' >"$TMP/pk.rep2"
same "$TMP/perf.rep2" "$TMP/pk.rep2" "report --children --sort sym: the same children totals and graphs as perf"

# time, for information (perf unwinds with libunwind/libdw, re-reading files per sample)
t0=$(date +%s%N); perf script --no-inline -F ip,sym -i "$T" >/dev/null 2>&1; t1=$(date +%s%N)
"$PERFKIT" script --no-inline -F ip,sym -i "$T" >/dev/null 2>&1; t2=$(date +%s%N)
note "perf script $(( (t1 - t0) / 1000000 )) ms, perfkit script $(( (t2 - t1) / 1000000 )) ms for $nsamp dwarf samples"

# Samples inside the vDSO (clock_gettime): perfkit unwinds through its own vDSO image,
# perf through the copy it saved in ~/.debug; the chains must agree.
cat >"$TMP/vd.c" <<'C'
#include <time.h>
volatile long s;
__attribute__((noinline)) void tick(void) { struct timespec ts; for (int i = 0; i < 3000000; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec; } }
int main(void) { tick(); return 0; }
C
if gcc -O1 -g -fomit-frame-pointer -o "$TMP/vd" "$TMP/vd.c" &&
	perf record -q -e cpu-clock -F 2999 --call-graph dwarf -o "$TMP/vd.data" -- "$TMP/vd" >/dev/null 2>&1; then
	perf script --no-inline -F ip,sym,dso -i "$TMP/vd.data" >"$TMP/perf.vd" 2>/dev/null
	"$PERFKIT" script --no-inline -F ip,sym,dso -i "$TMP/vd.data" >"$TMP/pk.vd" 2>/dev/null
	n=$(grep -c '__vdso_clock_gettime' "$TMP/perf.vd")
	ok $(( n > 0 ? 0 : 1 )) "vdso program: perf shows $n frames in the vDSO (oracle sanity)"
	same "$TMP/perf.vd" "$TMP/pk.vd" "vdso program: the same call chains as perf (through [vdso])"
else
	skip "could not record the vdso program"
fi

# Corpus files with DWARF data whose binaries are not here: exit 0, the kernel part like perf.
# (perf prints the bare sampled ip as a user frame in processes with a [vdso] map and no
# [vdso] build-id, because it unwinds with its own vdso; perfkit prints no user frame when
# no file of the stack can be read. Only kernel frames are compared for those.)
kern() { grep -Ev $'^\t *[0-9a-f]{1,15}( |$)' "$1"; }
for f in hotspot/perf.data.true.v2 perfparser/vector_static_gcc_perf.data \
	perfparser/contentsize.data perfparser/parallel_static_gcc_perf.data.zstd \
	simpleperf/perf_g_fp.data simpleperf/perf_with_arm_regs.data; do
	p=$SHARED/data/perf.data/$f
	[ -r "$p" ] || { skip "$f not in the shared corpus"; continue; }
	perf script -F comm,tid,ip -i "$p" >"$TMP/perf.txt" 2>/dev/null
	timeout 60 "$PERFKIT" script -F comm,tid,ip -i "$p" >"$TMP/pk.txt" 2>"$TMP/pk.err"
	is $? 0 "$f: exit 0"
	kern "$TMP/perf.txt" >"$TMP/perf.k"; kern "$TMP/pk.txt" >"$TMP/pk.k"
	same "$TMP/perf.k" "$TMP/pk.k" "$f: samples and kernel frames like perf"
done

# Corrupt stack copies: random bytes over the samples (mostly stack copies); no crash, no hang.
size=$(stat -c %s "$T")
crashed=0
for round in 1 2 3 4 5; do
	cp "$T" "$TMP/bad.data"
	for i in $(seq 300); do
		off=$(( (RANDOM * 32768 + RANDOM) % (size - 4096) + 4096 ))
		printf "\\x$(printf %02x $((RANDOM % 256)))\\x$(printf %02x $((RANDOM % 256)))" |
			dd of="$TMP/bad.data" bs=1 seek=$off conv=notrunc status=none
	done
	timeout 60 "$PERFKIT" script -F ip,sym -i "$TMP/bad.data" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 2 ] || { crashed=1; note "round $round: exit $rc"; }
done
ok $crashed "5 files with 300 corrupted byte pairs each: exit 0 or 2, no crash or hang"

done_testing
