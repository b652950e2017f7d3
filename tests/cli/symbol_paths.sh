#!/usr/bin/env bash
# Where report and script take symbols from, against Linux perf 6.1 on the
# same recording: --symfs DIR (binaries looked up under DIR, and no local
# kernel symbols), --kallsyms FILE (the kernel's symbols from FILE) and
# --no-demangle / --demangle. The program is built here with a tag that makes
# its build-id new on every run and recorded with perf record -N (no build-id
# cache), then moved under a symfs directory, so that only --symfs finds it.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
need_recording
command -v gcc >/dev/null 2>&1 || skip_all "gcc not installed"

# ns::spin(long) under its C++ name (an asm label), so that demangling shows
cat >"$TMP/prog.c" <<EOF
static const char tag[] = "$$-$(date +%s%N)";
__attribute__((noinline)) double spin(long n) __asm__("_ZN2ns4spinEl");
__attribute__((noinline)) double spin(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += i * 0.5;
	return x + tag[0];
}
int main(void)
{
	double s = 0;
	for (int k = 0; k < 30; k++)
		s += spin(3000000);
	return s < 0;
}
EOF
mkdir -p "$TMP/bin"
gcc -O1 -g -fno-omit-frame-pointer -o "$TMP/bin/prog" "$TMP/prog.c" || skip_all "gcc could not build the test program"
perf record -q -N -e cpu-clock -F 999 -g -o "$TMP/s.data" -- "$TMP/bin/prog" >/dev/null 2>&1 ||
	skip_all "perf record -N -g failed here"
SYMFS=$TMP/symfs
mkdir -p "$SYMFS$TMP/bin" && mv "$TMP/bin/prog" "$SYMFS$TMP/bin/prog"

# same NAME CMD ARGS...: perfkit CMD and perf CMD print the same text on $F (report's tip aside)
F=$TMP/s.data
same() {
	local name=$1 cmd=$2; shift 2
	"$PERFKIT" "$cmd" "$@" -i "$F" 2>/dev/null | grep -v '^# (Tip:' >"$TMP/pk.out"
	perf "$cmd" "$@" -i "$F" 2>/dev/null | grep -v -e '^# (Tip:' -e '^# (Cannot load tips' >"$TMP/perf.out"
	if [ -s "$TMP/perf.out" ] && diff "$TMP/perf.out" "$TMP/pk.out" >"$TMP/diff"; then
		pass "$name"
	else
		fail "$name" "$(head -20 "$TMP/diff")"
		keep_files symbol_paths "$F" "$TMP/diff"
	fi
}

# ---- --symfs ------------------------------------------------------------------
same "report without --symfs: the moved binary's addresses unresolved" report --stdio --no-children -g none
grep -q '\[\.\] 0x0000' "$TMP/pk.out"; ok $? "report without --symfs: an unresolved row"
same "report --symfs DIR: the binary found under DIR, no local kernel symbols" report --stdio --symfs "$SYMFS"
grep -q '\[\.\] ns::spin' "$TMP/pk.out"; ok $? "report --symfs DIR: ns::spin resolved and demangled"
same "report --symfs=DIR/ -g caller --no-children" report --stdio "--symfs=$SYMFS/" -g caller --no-children
same "script --symfs DIR" script --symfs "$SYMFS"
grep -q 'ns::spin+0x' "$TMP/pk.out"; ok $? "script --symfs DIR: frames in ns::spin"

# the build-id cache is SYMFS/.debug under --symfs, as in perf: a copy of the program in
# $HOME/.debug is not used (the ld.so rows of CI's recordings resolved from it before)
bid=$(readelf -n "$SYMFS$TMP/bin/prog" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$bid" ]; then
	mkdir -p "$TMP/home/.debug/.build-id/${bid:0:2}/${bid:2}" "$TMP/empty"
	cp "$SYMFS$TMP/bin/prog" "$TMP/home/.debug/.build-id/${bid:0:2}/${bid:2}/elf"
	HOME=$TMP/home same "script --symfs EMPTY with the program in \$HOME/.debug: not resolved" \
		script --symfs "$TMP/empty"
	! grep -q 'ns::spin' "$TMP/pk.out"; ok $? "... no ns::spin frame, as perf"
	HOME=$TMP/home same "the same without --symfs: resolved from \$HOME/.debug" script
	grep -q 'ns::spin' "$TMP/pk.out"; ok $? "... ns::spin frames, as perf"
else
	skip "no build-id in the test program"
fi

# ---- --no-demangle -------------------------------------------------------------
same "report --no-demangle: the C++ name as in the binary" report --stdio --symfs "$SYMFS" --no-demangle
grep -q '\[\.\] _ZN2ns4spinEl' "$TMP/pk.out"; ok $? "report --no-demangle: _ZN2ns4spinEl"
same "report --demangle (the default)" report --stdio --symfs "$SYMFS" --demangle --no-children
same "script --no-demangle" script --symfs "$SYMFS" --no-demangle
grep -q '_ZN2ns4spinEl+0x' "$TMP/pk.out"; ok $? "script --no-demangle: _ZN2ns4spinEl"

# ---- --kallsyms -----------------------------------------------------------------
# this kernel's symbols with the hottest kernel function renamed: only --kallsyms FILE knows the
# name. The workload's clock_gettime calls give kernel samples.
F=$TMP/k.data
perf record -q -e cpu-clock -F 999 -g -o "$F" -- "$PK_WORKLOAD" --spin-ms 200 >/dev/null 2>&1
ksym=$("$PERFKIT" report --stdio --no-children --sort sym -i "$F" 2>/dev/null |
	awk '$2 == "[k]" && $3 !~ /^0x/ { print $3; exit }')
if [ -z "$ksym" ] || ! awk 'NR == 1 { exit !($1 != "0000000000000000") }' /proc/kallsyms; then
	skip "no kernel symbol sampled, or /proc/kallsyms hides addresses"
else
	awk -v s="$ksym" '$3 == s { $3 = "renamed_" s } 1' /proc/kallsyms >"$TMP/kallsyms"
	same "report --kallsyms FILE: the kernel's names from FILE" report --stdio --kallsyms "$TMP/kallsyms"
	grep -q "\[k\] renamed_$ksym" "$TMP/pk.out"; ok $? "report --kallsyms FILE: renamed_$ksym"
	same "script --kallsyms FILE" script --kallsyms "$TMP/kallsyms"
	grep -q "renamed_$ksym+0x" "$TMP/pk.out"; ok $? "script --kallsyms FILE: renamed_$ksym"
fi

"$PERFKIT" report --stdio --symfs -i "$TMP/s.data" >/dev/null 2>"$TMP/e"
is "$?" 2 "report --symfs without a directory: exit status 2"
done_testing
