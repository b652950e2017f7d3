#!/usr/bin/env bash
# perf's build-id cache, against perf 6.1 as the oracle: perfkit record leaves
# the same cache perf record leaves (the same paths, files and links, for the
# workload, libc, ld.so and their debug files, the kernel's kallsyms and the
# vdso; perf adds an empty SDT 'probes' file, which perfkit does not write),
# leaves it alone with -N, and a recording whose binary was rebuilt since is
# still symbolized from it by perf report and perfkit report alike. perfkit
# report also takes another kernel's kallsyms from the cache, as perf does.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/tap-lib.bash

need_recording
W=$PK_WORKLOAD

# cache_listing HOME: every path of HOME/.debug, perf's 'probes' files left out
cache_listing() { (cd "$1/.debug" 2>/dev/null && find . | grep -v '/probes$' | sort); }
# differing A B PATH...: the PATHs of A's cache whose bytes (files) or targets (links) differ in B's
differing() {
	local a=$1 b=$2 f bad=
	shift 2
	for f in "$@"; do
		if [ -L "$a/.debug/$f" ]; then
			[ "$(readlink "$a/.debug/$f")" = "$(readlink "$b/.debug/$f")" ] || bad="$bad $f"
		elif [ -f "$a/.debug/$f" ]; then
			cmp -s "$a/.debug/$f" "$b/.debug/$f" || bad="$bad $f"
		fi
	done
	echo "$bad"
}
# kernel_rows TOOL HOME FILE: the [k] rows of TOOL report --sort sym on FILE
kernel_rows() {
	HOME=$2 "$1" report -i "$3" --stdio --no-children --sort sym -g none 2>/dev/null | grep '\[k\] '
}

# ---- the cache perf record leaves ---------------------------------------------------
mkdir -p "$TMP/perf" "$TMP/pk"
HOME=$TMP/perf perf record -q -e cpu-clock -F 4000 -o "$TMP/perf.data" -- "$W" --spin-ms 300 >/dev/null 2>&1
HOME=$TMP/pk "$PERFKIT" record -q -e cpu-clock -F 4000 -o "$TMP/pk.data" -- "$W" --spin-ms 300 2>"$TMP/pk.err"
is "$?" 0 "record exits 0"
is "$(cat "$TMP/pk.err")" "" "record says nothing about the cache"
want=$(cache_listing "$TMP/perf")
got=$(cache_listing "$TMP/pk")
# the DSOs sampled may differ between two runs (a [vdso] sample or not): compare those both hit
both=$(comm -12 <(perf buildid-list -i "$TMP/perf.data" 2>/dev/null | sort) \
	<(perf buildid-list -i "$TMP/pk.data" 2>/dev/null | sort) | awk '{ print $1 }')
for bid in $both; do
	short=${bid:2}
	w=$(echo "$want" | grep -e "$bid" -e "$short")
	g=$(echo "$got" | grep -e "$bid" -e "$short")
	name=$(perf buildid-list -i "$TMP/pk.data" 2>/dev/null | awk -v b="$bid" '$1 == b { print $2 }')
	if [ -n "$w" ] && [ "$w" = "$g" ]; then
		pass "$name: the paths perf caches ($(echo "$g" | grep -c /) entries)"
	else
		fail "$name: the paths perf caches" "$(diff <(echo "$w") <(echo "$g") | head -6 | tr '\n' '|')"
	fi
	# shellcheck disable=SC2086
	is "$(differing "$TMP/pk" "$TMP/perf" $g)" "" "$name: each cached file has perf's bytes, each link perf's target"
done
if perf buildid-list -i "$TMP/pk.data" 2>/dev/null | grep -q ' \[kernel\.kallsyms\]$'; then
	echo "$got" | grep -q '/\[kernel\.kallsyms\]/.*/kallsyms$'; ok $? "the kernel's kallsyms are cached"
else
	skip "no kernel sample this time: no kallsyms to cache"
fi
echo "$got" | grep -q 'pk-workload/[0-9a-f]*/elf$'; ok $? "the workload's binary is cached"
is "$(stat -c %i "$TMP/pk/.debug$(realpath "$W")"/*/elf)" "$(stat -c %i "$(realpath "$W")")" \
	"on the binary's file system the cached elf is a hard link"
# file_states HOME PATH...: each file and link among the PATHs of HOME's cache with its
# inode and modification time (directories change as entries are added beside)
file_states() {
	local h=$1 f
	shift
	for f in "$@"; do
		[ -d "$h/.debug/$f" ] && [ ! -L "$h/.debug/$f" ] && continue
		stat -c '%n %i %Y' "$h/.debug/$f" 2>&1
	done
}
# shellcheck disable=SC2086
states=$(file_states "$TMP/pk" $got)
sleep 1.1   # a rewrite would show in the modification time
HOME=$TMP/pk "$PERFKIT" record -q -e cpu-clock -F 4000 -o "$TMP/pk2.data" -- "$W" --spin-ms 100 2>/dev/null
# shellcheck disable=SC2086
is "$(file_states "$TMP/pk" $got)" "$states" "a second recording leaves every cached entry as it was"

# ---- -N ---------------------------------------------------------------------------------
mkdir -p "$TMP/none"
HOME=$TMP/none "$PERFKIT" record -q -N -e cpu-clock -o "$TMP/none.data" -- "$W" --spin-ms 50 2>/dev/null
ok $? "-N: record exits 0"
[ ! -e "$TMP/none/.debug" ]; ok $? "-N: no cache is written"

# ---- a cache that cannot be written ------------------------------------------------------
touch "$TMP/afile"
HOME=$TMP/afile "$PERFKIT" record -q -e cpu-clock -o "$TMP/ro.data" -- "$W" --spin-ms 50 2>"$TMP/ro.err"
is "$?" 0 "an unwritable cache: record still exits 0"
grep -q "^perfkit: warning: .*cannot add it to the build-id cache '$TMP/afile/.debug'" "$TMP/ro.err"
ok $? "and warns, naming the cache"
perf script -i "$TMP/ro.data" >/dev/null 2>&1; ok $? "and perf reads the file"

# ---- a binary rebuilt since: its symbols come from the cache -------------------------------
mkdir -p "$TMP/bin" "$TMP/rb" "$TMP/empty"
cp "$W" "$TMP/bin/wl"
HOME=$TMP/rb "$PERFKIT" record -q -e cpu-clock -F 2000 -o "$TMP/rb.data" -- "$TMP/bin/wl" --spin-ms 300 2>/dev/null
# rebuilt as a linker does: a new file (another ELF, another build-id) in place of the old one
rm -f "$TMP/bin/wl"
cp "$(dirname "$W")/pk-fake-pmu.so" "$TMP/bin/wl"
for t in perf "$PERFKIT"; do
	HOME=$TMP/rb "$t" report -i "$TMP/rb.data" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$TMP/rb.$(basename "$t")"
done
grep -q ' wl  *\[\.\] work$' "$TMP/rb.perfkit"; ok $? "rebuilt binary: perfkit report finds work in the cached copy"
if cmp -s "$TMP/rb.perf" "$TMP/rb.perfkit"; then
	pass "rebuilt binary: perfkit report prints what perf report prints"
else
	fail "rebuilt binary: perfkit report prints what perf report prints" \
		"$(diff "$TMP/rb.perf" "$TMP/rb.perfkit" | head -6 | tr '\n' '|')"
fi
HOME=$TMP/empty "$PERFKIT" report -i "$TMP/rb.data" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
	grep -q ' wl  *\[\.\] work$'
[ $? -ne 0 ]; ok $? "rebuilt binary, no cache: work is not found (the cache made the difference)"

# ---- another kernel's kallsyms from the cache (report) ----------------------------------------
# the fixture was recorded on another kernel; a kallsyms filed under its build-id stands for it
F=tests/fixtures/perfdata/sample-read-backwards.data
kbid=$(perf buildid-list -i "$F" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
mkdir -p "$TMP/k/.debug/[kernel.kallsyms]/$kbid" "$TMP/k0"
cp /proc/kallsyms "$TMP/k/.debug/[kernel.kallsyms]/$kbid/kallsyms"
want=$(kernel_rows perf "$TMP/k" "$F")
got=$(kernel_rows "$PERFKIT" "$TMP/k" "$F")
if [ -n "$want" ] && [ "$want" = "$got" ] && ! echo "$got" | grep -q '\[k\] 0x'; then
	pass "another kernel's cached kallsyms: the kernel rows perf prints ($(echo "$got" | wc -l))"
else
	fail "another kernel's cached kallsyms: the kernel rows perf prints" \
		"$(diff <(echo "$want") <(echo "$got") | head -6 | tr '\n' '|')"
fi
kernel_rows "$PERFKIT" "$TMP/k0" "$F" | grep -q '\[k\] [a-z_]'
[ $? -ne 0 ]; ok $? "without the cache the other kernel's addresses stay unresolved, as in perf"
done_testing
