#!/usr/bin/env bash
# perfkit --inline (report and script) and --sort srcline against Linux perf
# 6.1 on a gcc -O2 -g program whose hot loop sits in two always_inline
# functions (mix inside hot inside the noinline work).
#
# perf 6.1 adds inline frames only to DWARF-unwound call chains; for
# frame-pointer chains (-g) it prints none, while perfkit expands those too
# (perf 6.4 did the same, through the same append_inlines()). So the oracle
# is perf's own output taken apart:
#  - script: perf script's frames on the -g file, each frame expanded with
#    the inline chain binutils addr2line -f -i gives (the resolver perf 6.1
#    uses), printed the way perf prints inline frames;
#  - that layout itself: perf script --inline on a --call-graph dwarf
#    recording of the same program, for the addresses both files sampled;
#  - report: folded call paths and Children totals computed from those
#    expanded stacks with perf script's periods.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
have_perf || skip_all "Linux perf not usable here"
command -v gcc >/dev/null 2>&1 || skip_all "gcc not installed"
command -v addr2line >/dev/null 2>&1 || skip_all "addr2line (binutils) not installed"

norm() { sed 's/[[:space:]]\+/ /g; s/^ //; s/ $//' "$@"; }

cat >"$TMP/prog.c" <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul;
}
static inline __attribute__((always_inline)) unsigned long hot(unsigned long x)
{
	unsigned long r = x;
	for (int i = 0; i < 64; i++)
		r = mix(r) ^ (r >> 7);
	return r;
}
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	unsigned long acc = 0;
	for (unsigned long i = 0; i < n; i++)
		acc += hot(i);
	return acc;
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 2000000;
	sink = work(n);
	return 0;
}
EOF
gcc -O2 -g -fno-omit-frame-pointer -o "$TMP/prog" "$TMP/prog.c" || skip_all "gcc could not build the test program"
PROG="$TMP/prog"
perf record -q -e cpu-clock -F 4999 -g -o "$TMP/T" -- "$PROG" >/dev/null 2>&1 ||
	skip_all "perf record -e cpu-clock -g failed here"

# ---- script ------------------------------------------------------------------
perf script -i "$TMP/T" -F period,ip,sym,symoff,dso >"$TMP/perf.txt" 2>/dev/null
"$PERFKIT" script -i "$TMP/T" -F period,ip,sym,symoff,dso --inline >"$TMP/pk.txt" 2>"$TMP/pk.err"
ok $? "perfkit script --inline runs"

# addr2line's inline chains for every address perf printed in the program
awk -v p="($PROG)" '$1 ~ /^[0-9a-f]+$/ && $NF == p { print "0x" $1 }' "$TMP/perf.txt" | sort -u >"$TMP/addrs"
[ -s "$TMP/addrs" ] || skip_all "no sample landed in the test program"
addr2line -a -f -i -e "$PROG" $(cat "$TMP/addrs") >"$TMP/a2l.txt"
# a2l.txt: 0xADDR, then (function, file:line) pairs, innermost first -> "ADDR f1 f2 ... fn"
awk '/^0x/ { if (a != "") print a, names; a = $1; sub(/^0x0*/, "", a); if (a == "") a = "0"; names = ""; n = 0; next }
     { if (n++ % 2 == 0) names = names " " $1 }
     END { if (a != "") print a, names }' "$TMP/a2l.txt" >"$TMP/chains"

# perf's frames, each program frame preceded by its inline frames as perf prints them
awk -v p="($PROG)" 'NR == FNR { a = $1; $1 = ""; ch[a] = substr($0, 2); next }
     $1 ~ /^[0-9a-f]+$/ && NF >= 3 && $NF == p && ($1 in ch) {
	off = $2; sub(/^[^+]*/, "", off)
	n = split(ch[$1], f, " ")
	for (i = 1; i < n; i++) printf "\t%16s %s%s (inlined)\n", $1, f[i], off
     }
     { print }' "$TMP/chains" "$TMP/perf.txt" >"$TMP/want.txt"
grep -q '(inlined)' "$TMP/want.txt" || skip_all "addr2line found no inline frame in the test program"

# perfkit's output with inline frames kept only for the program's frames (other DSOs'
# debug info may be read differently by binutils and libdw)
keep_prog() {
	awk -v p="($PROG)" '/ \(inlined\)$/ { buf = buf $0 "\n"; next }
	     { if ($NF == p) printf "%s", buf; buf = ""; print }' "$1"
}
keep_prog "$TMP/pk.txt" >"$TMP/pk.prog.txt"
if diff -q <(norm "$TMP/want.txt") <(norm "$TMP/pk.prog.txt") >/dev/null; then
	pass "script --inline: perf's frames with addr2line's inline chains, perf's layout"
else
	fail "script --inline: perf's frames with addr2line's inline chains, perf's layout" \
		"$(diff <(norm "$TMP/want.txt") <(norm "$TMP/pk.prog.txt") | head -8 | tr '\n' '|')"
fi
n_mix=$(grep -c ' mix+0x[0-9a-f]* (inlined)$' "$TMP/pk.txt")
n_hot=$(grep -c ' hot+0x[0-9a-f]* (inlined)$' "$TMP/pk.txt")
[ "$n_mix" -gt 0 ] && [ "$n_hot" -ge "$n_mix" ]; ok $? "script --inline: mix and hot inline frames ($n_mix, $n_hot)"
"$PERFKIT" script -i "$TMP/T" -F period,ip,sym,symoff,dso --no-inline >"$TMP/pk0.txt" 2>/dev/null
if diff -q <(norm "$TMP/perf.txt") <(norm "$TMP/pk0.txt") >/dev/null; then pass "script --no-inline: perf's frames"
else fail "script --no-inline: perf's frames" "$(diff <(norm "$TMP/perf.txt") <(norm "$TMP/pk0.txt") | head -4 | tr '\n' '|')"; fi

# perf's own inline frames (DWARF unwinding) for the leaf addresses both recordings hit
# groups: "ADDR<TAB>line|line|..." of the inline lines and the program frame at one leaf address
groups() {
	awk -v p="($PROG)" '/ \(inlined\)$/ { if (buf == "") a = $1; buf = buf $0 "|"; next }
	     { if (buf != "" && $NF == p && $1 == a) print a "\t" buf $0; buf = "" }' "$1" |
		sed 's/[[:space:]]\+/ /g; s/^\([0-9a-f]*\) /\1\t/' | sort -u
}
if perf record -q -e cpu-clock -F 4999 --call-graph dwarf,4096 -o "$TMP/D" -- "$PROG" >/dev/null 2>&1; then
	perf script -i "$TMP/D" -F ip,sym,symoff,dso --inline >"$TMP/perfD.txt" 2>/dev/null
	groups "$TMP/perfD.txt" >"$TMP/gD"
	groups "$TMP/pk.txt" >"$TMP/gT"
	join -t "$(printf '\t')" "$TMP/gD" "$TMP/gT" >"$TMP/gJ"
	common=$(wc -l <"$TMP/gJ")
	if [ "$common" -gt 0 ]; then
		bad=$(awk -F '\t' '$2 != $3' "$TMP/gJ" | head -3)
		[ -z "$bad" ]; ok $? "script --inline: same inline frames as perf --inline (dwarf) at $common common addresses"
		[ -n "$bad" ] && note "$bad"
	else
		skip "no inline address common to the -g and dwarf recordings"
	fi
else
	skip "perf record --call-graph dwarf failed here"
fi

# ---- report ------------------------------------------------------------------
# Expanded stacks with periods from want.txt: "PERIOD<TAB>entry<TAB>path;path;..."
awk -v p="($PROG)" '
	function flush() { if (per != "") print per "\t" ent "\t" path; per = "" }
	/^ *[0-9]+ *$/ || (NF == 1 && $1 ~ /^[0-9]+$/) { flush(); per = $1; ent = ""; path = ""; next }
	NF == 0 { flush(); next }
	{
		name = $2; sub(/\+0x[0-9a-f]+$/, "", name)
		if ($NF == "(inlined)") name = name " (inlined)"
		else if (ent == "") ent = name
		path = path (path == "" ? "" : ";") name
	}
	END { flush() }' "$TMP/want.txt" >"$TMP/stacks"
total=$(awk -F '\t' '{ s += $1 } END { print s }' "$TMP/stacks")
# folded lines of entry work: percent of the total period per distinct path (>= 0.5%)
awk -F '\t' -v t="$total" '$2 == "work" { s[$3] += $1 }
	END { for (k in s) if (s[k] >= t * 0.005) printf "%.2f%% %s\n", s[k] * 100 / t, k }' \
	"$TMP/stacks" | sort >"$TMP/fold.want"
"$PERFKIT" report -i "$TMP/T" --stdio --no-children --inline --sort sym -g folded >"$TMP/rep.txt" 2>"$TMP/rep.err"
ok $? "perfkit report --inline runs"
# (an unresolved frame: perf script says [unknown], perf report its address)
awk '/\[\.\] work$/ { on = 1; next } on && /^ *[0-9.]+%  / { on = 0 } on && /;/ { print }' "$TMP/rep.txt" |
	sed 's/;0x[0-9a-f]*;/;[unknown];/g' | sort >"$TMP/fold.got"
if [ -s "$TMP/fold.want" ] && diff -q "$TMP/fold.want" "$TMP/fold.got" >/dev/null; then
	pass "report --inline -g folded: work's call paths with inline frames ($(wc -l <"$TMP/fold.want") paths)"
else
	fail "report --inline -g folded: work's call paths with inline frames" \
		"$(diff "$TMP/fold.want" "$TMP/fold.got" | head -6 | tr '\n' '|')"
fi
# graph: the entries are perf's (inline frames do not change --no-children entries),
# the chains carry perf's " (inlined)" marker
perf report -i "$TMP/T" --stdio --no-children --inline --sort sym 2>/dev/null | grep -E '^ +[0-9.]+%  ' >"$TMP/ent.perf"
"$PERFKIT" report -i "$TMP/T" --stdio --no-children --inline --sort sym 2>/dev/null >"$TMP/graph.txt"
grep -E '^ +[0-9.]+%  ' "$TMP/graph.txt" >"$TMP/ent.pk"
if diff -q <(norm "$TMP/ent.perf") <(norm "$TMP/ent.pk") >/dev/null; then pass "report --inline: perf's entries"
else fail "report --inline: perf's entries" "$(diff <(norm "$TMP/ent.perf") <(norm "$TMP/ent.pk") | head -4 | tr '\n' '|')"; fi
grep -Eq -- '--[0-9.]+%--mix \(inlined\)$' "$TMP/graph.txt" && grep -Eq '^ +\|? +hot \(inlined\)$' "$TMP/graph.txt"
ok $? "report --inline graph: 'mix (inlined)' branch followed by 'hot (inlined)'"
# folded and graph agree: the branch percentage of mix equals the folded path's
want_mix=$(grep -m1 '% mix (inlined);' "$TMP/fold.want" | cut -d' ' -f1)
got_mix=$(grep -Eo -- '--[0-9.]+%--mix \(inlined\)$' "$TMP/graph.txt" | head -1 | sed 's/^--//; s/--.*//')
is "$got_mix" "$want_mix" "report --inline graph: mix (inlined) branch percentage"
# without --inline perfkit's graph is perf's
perf report -i "$TMP/T" --stdio --no-children --sort sym 2>/dev/null | grep -v '^#' >"$TMP/g.perf"
"$PERFKIT" report -i "$TMP/T" --stdio --no-children --no-inline --sort sym 2>/dev/null | grep -v '^#' >"$TMP/g.pk"
if diff -q <(norm "$TMP/g.perf") <(norm "$TMP/g.pk") >/dev/null; then pass "report --no-inline: perf's call graph"
else fail "report --no-inline: perf's call graph" "$(diff <(norm "$TMP/g.perf") <(norm "$TMP/g.pk") | head -4 | tr '\n' '|')"; fi

# children: an inline function is an entry of its own, "hot (inlined)", with the period
# of every stack it is in
for f in mix hot; do
	want=$(awk -F '\t' -v t="$total" -v f="$f (inlined)" '
		{ n = split($3, a, ";"); for (i = 1; i <= n; i++) if (a[i] == f) { s += $1; break } }
		END { printf "%.2f%%", s * 100 / t }' "$TMP/stacks")
	got=$("$PERFKIT" report -i "$TMP/T" --stdio --children --inline --sort sym -g none 2>/dev/null |
		awk -v f="$f" '$NF == "(inlined)" && $(NF - 1) == f { print $1; exit }')
	is "$got" "$want" "report --children --inline: '$f (inlined)' entry has the stacks' period"
done

# ---- srcline -------------------------------------------------------------------
perf report -i "$TMP/T" --stdio --no-children --sort srcline -g none 2>/dev/null |
	grep -E '^ +[0-9.]+%  prog\.c:' >"$TMP/src.perf"
"$PERFKIT" report -i "$TMP/T" --stdio --no-children --sort srcline -g none 2>/dev/null |
	grep -E '^ +[0-9.]+%  prog\.c:' >"$TMP/src.pk"
if [ -s "$TMP/src.perf" ] && diff -q "$TMP/src.perf" "$TMP/src.pk" >/dev/null; then
	pass "report --sort srcline: perf's file:line entries ($(wc -l <"$TMP/src.perf") lines)"
else
	fail "report --sort srcline: perf's file:line entries" "$(diff "$TMP/src.perf" "$TMP/src.pk" | head -6 | tr '\n' '|')"
fi

done_testing
