#!/usr/bin/env bash
# perfkit report --format folded|pprof|json|svg against oracles: folded
# stacks equal to folding `perf script` output of the same file by
# stackcollapse-perf.pl's rules (collapse-perf.pl here), pprof read by
# `go tool pprof` with perf report's top functions, JSON parsed by python,
# and the flame graph SVG well-formed, its frames matching the folded
# counts, and rendered by headless Chromium.
. "$(dirname "$0")/tap-lib.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
COLLAPSE="$HERE/collapse-perf.pl"
SHARED="${PK_SHARED:-$HERE/../../../shared}"
BUILD_DIR="${PK_BUILD:-$HERE/../../build}"
FG="$SHARED/data/perf.data/flamegraph-test"
command -v perl >/dev/null || skip_all "perl missing: no stack folder"

# ---- the folder itself, on input whose folded form is worked out by hand ----
cat > "$TMP/script.txt" <<'EOF'
# ========
# cmdline : /usr/bin/perf record -g ./prog
# ========
my prog  4242 [001]  100.000001:     250000 cpu-clock: 
	    7f0000001234 work(int)+0x14 (/usr/bin/prog)
	    7f0000001111 main+0x21 (/usr/bin/prog)
	    7f0000009999 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
	               0 [unknown] ([unknown])

my prog  4242 [001]  100.000002:     250000 cpu-clock: 
	ffffffff81000500 [unknown] ([kernel.kallsyms])
	    7f0000001100 (skipped) (/usr/bin/prog)
	    7f0000001111 main+0x21 (/usr/bin/prog)

java  77/78 [000]  100.000003:     100 cpu-clock: 
	    7f0000002222 Lorg/x/Y;.run(I)V+0x1 (/tmp/perf-77.map)
	    7f0000002223 a;b"c' (/tmp/perf-77.map)
	    7f0000002224 ns::(anonymous namespace)::f(int) (/usr/bin/java)

my prog  4242 [001]  100.000004:          1 page-faults: 
	    7f0000001234 work(int)+0x14 (/usr/bin/prog)

my prog  4242 [001]  100.000005:     250000 cpu-clock: 
	    7f0000001234 work(int)+0x1c (/usr/bin/prog)
	    7f0000001111 main+0x21 (/usr/bin/prog)
	    7f0000009999 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
	               0 [unknown] ([unknown])

EOF
want='java;ns::(anonymous namespace)::f;a:bc;org/x/Y:.run 1
my_prog;[unknown];[libc.so.6];main;work 2
my_prog;main;[[kernel.kallsyms]] 1'
is "$(perl "$COLLAPSE" "$TMP/script.txt")" "$want" "folder: comm root, tidy, [dso] for unknown symbols, first event only"
is "$(perl "$COLLAPSE" --period "$TMP/script.txt" | sed -n 2p)" "my_prog;[unknown];[libc.so.6];main;work 500000" \
	"folder --period: sums the periods"
# A module name with blanks: the script's frame regex /(.+) \((\S*)\)/ splits at the last
# " (" that non-blanks and a ')' follow, so "(/memfd:jit (deleted))" leaves "NAME+0x10 (/memfd:jit"
# as the name, which tidy cuts to "NAME+0x10 "; "(/opt/a dir/lib.so)" matches nowhere and the
# frame is dropped with a warning.
cat > "$TMP/blanks.txt" <<'EOF'
jit  500 [000]  200.000001:     1000 cpu-clock: 
	    7f0000003000 compiled+0x10 (/memfd:jit (deleted))
	    7f0000003100 [unknown] (/memfd:jit (deleted))
	    7f0000004000 helper+0x4 (/opt/a dir/lib.so)
	    7f0000001111 main+0x21 (/usr/bin/jit)

EOF
is "$(perl "$COLLAPSE" "$TMP/blanks.txt" 2>"$TMP/blanks.err")" 'jit;main;[unknown] ;compiled+0x10  1' \
	"folder: a module name with blanks splits as the script's regex does"
grep -q 'unrecognized line:.*helper' "$TMP/blanks.err"; ok $? "folder: a frame that regex cannot read is dropped, with a warning"
if [ -r "$FG/perf-dd-stacks-01.txt" ]; then
	perl "$COLLAPSE" "$FG/perf-dd-stacks-01.txt" > "$TMP/dd.folded" 2>"$TMP/dd.err"
	# the first sample of the file, folded by hand
	grep -qxF 'dd;[unknown];read;system_call;sys_read;vfs_read;fsnotify 1' "$TMP/dd.folded"
	ok $? "folder: FlameGraph's dd sample, first stack"
	is "$(awk '{ s += $NF } END { print s }' "$TMP/dd.folded")" "$(grep -c 'cpu-clock:' "$FG/perf-dd-stacks-01.txt")" \
		"folder: dd sample counts add up to the samples in the file"
	is "$(wc -c < "$TMP/dd.err")" 0 "folder: every dd line recognized"
else
	skip "FlameGraph test inputs not found under $FG"
fi

# ---- perfkit on a recording ---------------------------------------------------
[ -x "$PERFKIT" ] || { note "$PERFKIT not built"; done_testing; exit; }
# a recording without samples folds to nothing (sorting no lines was undefined behaviour,
# caught under UBSan)
"$PERFKIT" record -q -e page-faults -c 1000000000 -o "$TMP/empty.data" -- true >/dev/null 2>&1
"$PERFKIT" report --format folded -i "$TMP/empty.data" >"$TMP/empty.folded" 2>"$TMP/empty.err"
is "$?" 0 "report --format folded on a recording without samples exits 0"
is "$(wc -c <"$TMP/empty.folded")" 0 "... and prints no stacks"
have_perf || { skip "Linux perf not usable here: no recording to export"; done_testing; exit; }
DATA="$TMP/a.data"
perf record -q -e cpu-clock -F 4999 -g -o "$DATA" -- "$PK_WORKLOAD" --spin-ms 300 --threads 2 >/dev/null 2>&1 ||
	{ skip "perf record failed"; done_testing; exit; }
"$PERFKIT" report --format folded -i "$DATA" -o "$TMP/pk.folded" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "perfkit report --format folded runs" "$(head -3 "$TMP/err")"
	done_testing
	exit
fi
pass "perfkit report --format folded runs"
perf script -i "$DATA" 2>/dev/null | perl "$COLLAPSE" 2>/dev/null | LC_ALL=C sort > "$TMP/perf.folded"
LC_ALL=C sort "$TMP/pk.folded" > "$TMP/pk.sorted"
nsamples=$(perf script -i "$DATA" -F event 2>/dev/null | grep -c .)
is "$(awk '{ s += $NF } END { print s }' "$TMP/pk.folded")" "$nsamples" "folded counts add up to perf's $nsamples samples"
if diff "$TMP/perf.folded" "$TMP/pk.sorted" > "$TMP/folded.diff"; then
	pass "folded stacks identical to perf script | stackcollapse rules ($(wc -l < "$TMP/pk.sorted") lines)"
else
	fail "folded stacks identical to perf script | stackcollapse rules" "$(head -6 "$TMP/folded.diff" | cut -c1-300)"
fi
cmp -s "$TMP/pk.folded" "$TMP/pk.sorted"; ok $? "folded output is already sorted"

# The same for programs whose paths have blanks (the bench's system-wide recording had memfd
# mappings, "/memfd:NAME (deleted)"): frames of "wl (deleted)" keep "work+0x<off> " as their
# name, frames of "a dir/wl" are dropped, in perf script | stackcollapse and in perfkit alike
mkdir -p "$TMP/a dir"
for prog in "wl (deleted)" "wl"; do
	cp "$PK_WORKLOAD" "$TMP/a dir/$prog"
	if ! perf record -q -e cpu-clock -F 4999 -g -o "$TMP/b.data" -- "$TMP/a dir/$prog" --spin-ms 150 \
		>/dev/null 2>&1; then
		skip "perf record of 'a dir/$prog' failed"
		continue
	fi
	perf script -i "$TMP/b.data" 2>/dev/null | perl "$COLLAPSE" 2>/dev/null | LC_ALL=C sort >"$TMP/perf.b"
	"$PERFKIT" report --format folded -i "$TMP/b.data" 2>/dev/null | LC_ALL=C sort >"$TMP/pk.b"
	if [ -s "$TMP/perf.b" ] && diff "$TMP/perf.b" "$TMP/pk.b" >"$TMP/b.diff"; then
		pass "folded stacks of 'a dir/$prog' identical to perf script | stackcollapse rules"
	else
		fail "folded stacks of 'a dir/$prog' identical to perf script | stackcollapse rules" \
			"$(head -6 "$TMP/b.diff" | cut -c1-300)"
	fi
	if [ "$prog" = wl ]; then
		# whole frame names: a kernel frame can begin with 'work' too (workingset_refault,
		# in a page fault's stack), and CI under ASan once found ';work' in this output
		! grep -qE ';(work|run_worker|main)[; ]' "$TMP/pk.b"; ok $? "... no frame of 'a dir/wl' is kept"
	else
		grep -q ';work+0x[0-9a-f]* ' "$TMP/pk.b"; ok $? "... frames of 'a dir/wl (deleted)' are 'work+0x<off> '"
	fi
done

# ---- svg -----------------------------------------------------------------------
if "$PERFKIT" report --format svg -i "$DATA" -o "$TMP/fg.svg" 2>"$TMP/err"; then
	pass "perfkit report --format svg runs"
	if command -v python3 >/dev/null; then
		python3 - "$TMP/fg.svg" "$TMP/pk.folded" > "$TMP/svgcheck" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = {'s': 'http://www.w3.org/2000/svg'}
root = ET.parse(sys.argv[1]).getroot()          # raises if not well-formed
W, XPAD = float(root.get('width')), float(root.get('data-xpad'))
frames = []
for g in root.iter('{http://www.w3.org/2000/svg}g'):
    if g.get('class') != 'f':
        continue
    t = g.find('s:title', ns).text
    frames.append((int(g.get('data-d')), int(g.get('data-s')), int(g.get('data-c')), t[:t.rfind(' (')],
                   float(g.find('s:rect', ns).get('width'))))
frames.sort()
total = frames[0][2]
# inclusive counts from the folded file, keyed by path
want = {(): 0}
for line in open(sys.argv[2]):
    stack, n = line.rstrip('\n').rsplit(' ', 1)
    parts = tuple(stack.split(';'))
    for i in range(len(parts) + 1):
        want[parts[:i]] = want.get(parts[:i], 0) + int(n)
# rebuild each frame's path from depth and containment
path_at = {}
bad = 0
for d, s, c, name, w in frames:
    if d == 0:
        path = ()
    else:
        parent = [pp for (pd, ps, pc), pp in path_at.items() if pd == d - 1 and ps <= s and s + c <= ps + pc]
        path = parent[0] + (name,) if parent and parent[0] is not None else None
    path_at[(d, s, c)] = path
    if path is None or want.get(path) != c:
        bad += 1
        print('frame mismatch:', d, name, c, want.get(path))
    if abs(w - c * (W - 2 * XPAD) / total) > 0.01:
        bad += 1
        print('width mismatch:', name, w)
shown = sum(1 for p in want if p and want[p] * (W - 2 * XPAD) / total >= 0.1)
print('frames', len(frames), 'expected', shown + 1, 'bad', bad, 'total', total, 'folded', want[()])
EOF
		ok $? "svg is well-formed XML (python xml.etree)"
		grep -q 'bad 0 ' "$TMP/svgcheck"; ok $? "every svg frame's count and width match the folded stacks"
		read -r _ nf _ ne _ _ _ tot _ fol < <(grep '^frames' "$TMP/svgcheck")
		is "$nf" "$ne" "svg draws every stack prefix at least 0.1 px wide"
		is "$tot" "$fol" "svg root holds all folded samples"
		[ "$(grep -c '^frame mismatch\|^width mismatch' "$TMP/svgcheck")" -eq 0 ] || note "$(head -3 "$TMP/svgcheck")"
	else
		skip "python3 missing: svg not checked"
	fi
	if command -v xmllint >/dev/null; then
		xmllint --noout "$TMP/fg.svg" 2>/dev/null; ok $? "svg well-formed (xmllint)"
	fi
	grep -Eq '(href|src)="(https?:)?//' "$TMP/fg.svg"; ok $((!$?)) "svg refers to no external resource"
	grep -q '<script' "$TMP/fg.svg" && grep -q 'function zoom' "$TMP/fg.svg" && grep -q 'function search' "$TMP/fg.svg"
	ok $? "svg embeds its zoom and search script"
	CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
	if [ -n "$CHROME" ] && command -v python3 >/dev/null; then
		# the whole graph: as tall as the SVG (at least 800, at most 8000 pixels)
		svgh=$(grep -o '<svg [^>]*' "$TMP/fg.svg" | grep -o ' height="[0-9]*"' | tr -dc 0-9)
		svgh=$(( ${svgh:-800} < 800 ? 800 : ${svgh:-800} > 8000 ? 8000 : ${svgh:-800} ))
		timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
			--user-data-dir="$TMP/chrome" --screenshot="$TMP/fg.png" --window-size=1200,$svgh \
			"file://$TMP/fg.svg" >/dev/null 2>&1
		if [ -s "$TMP/fg.png" ]; then
			colours=$(python3 - "$TMP/fg.png" <<'EOF'
import sys, struct, zlib
data = open(sys.argv[1], 'rb').read()
pos, chunks, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        chunks += body
    pos += 12 + n
bpp = {2: 3, 6: 4}.get(ctype)
if depth != 8 or not bpp:
    print(0, 0); sys.exit()
raw, stride, prev, seen, i, flame = zlib.decompress(chunks), w * bpp, bytearray(w * bpp), set(), 0, 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for k in range(0, stride, bpp):
        r, g, b = line[k], line[k + 1], line[k + 2]
        if r >= 195 and b <= 70 and g <= 235:      # the flame palette, not the background
            seen.add((r, g, b)); flame += 1
    prev = line
print(len(seen), flame)
EOF
)
			read -r ncol npix <<< "$colours"
			[ "${ncol:-0}" -gt 10 ] && [ "${npix:-0}" -gt 20000 ]
			ok $? "headless chromium renders the flame graph (${ncol:-0} flame colours over ${npix:-0} pixels)"
			mkdir -p "$BUILD_DIR" 2>/dev/null && cp "$TMP/fg.png" "$BUILD_DIR/export-flamegraph.png" 2>/dev/null &&
				cp "$TMP/fg.svg" "$BUILD_DIR/export-flamegraph.svg" 2>/dev/null &&
				note "screenshot saved as $BUILD_DIR/export-flamegraph.png"
			# drive the embedded script: zoom into the widest process frame, search "^work$"
			{ sed '$d' "$TMP/fg.svg"; cat <<'EOF'
<script type="text/ecmascript"><![CDATA[ setTimeout(function () {
var g = frames.filter(function (x) { return num(x, "d") === 1; }).sort(function (a, b) { return num(b, "c") - num(a, "c"); })[0];
zoom(g); var m = search("^work$");
document.getElementById("title").textContent = "CHECK w=" + g.querySelector("rect").getAttribute("width") +
 " hidden=" + frames.filter(function (x) { return x.style.display === "none"; }).length +
 " matched=" + m + " " + matchedtxt.textContent; }, 100); ]]></script>
</svg>
EOF
			} > "$TMP/fg-js.svg"
			timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
				--virtual-time-budget=3000 --dump-dom "file://$TMP/fg-js.svg" 2>/dev/null |
				grep -o 'CHECK w=[0-9][^<]*' > "$TMP/js.out"
			grep -q 'CHECK w=1180.00 ' "$TMP/js.out"; ok $? "script: click-to-zoom widens the frame to the full graph"
			work=$(awk '/;work( |;)/ { s += $NF } END { print s + 0 }' "$TMP/pk.folded")
			grep -q "matched=$work Matched: " "$TMP/js.out"
			ok $? "script: search finds the $work samples under 'work'"
			[ -s "$TMP/js.out" ] && note "$(cat "$TMP/js.out")"
		else
			skip "headless chromium did not start: no screenshot"
		fi
	else
		skip "chromium or python3 missing: no screenshot"
	fi
else
	fail "perfkit report --format svg runs" "$(head -3 "$TMP/err")"
fi

# ---- pprof -------------------------------------------------------------------------
# top functions by self time: perf report's (the oracle), then perfkit's, then go tool pprof's
top_report() { # top_report CMD...: "name percent" lines of --no-children --sort sym
	"$@" --no-children --sort sym --stdio -g none 2>/dev/null |
		awk '/^ +[0-9.]+%/ { p = $1; sub(/%/, "", p); $1 = ""; sub(/^ +/, ""); print $0 "\t" p }'
}
if "$PERFKIT" report --format pprof -i "$DATA" -o "$TMP/a.pprof" 2>"$TMP/err"; then
	pass "perfkit report --format pprof runs"
	is "$(head -c2 "$TMP/a.pprof" | od -An -tx1 | tr -d ' ')" "1f8b" "pprof output is gzipped"
	top_report perf report -i "$DATA" > "$TMP/perf.top"
	top_report "$PERFKIT" report -i "$DATA" > "$TMP/pk.top"
	if command -v go >/dev/null && mkdir -p "$TMP/home" &&
		HOME="$TMP/home" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOFLAGS= GOTOOLCHAIN=local \
		PPROF_TMPDIR="$TMP" go tool pprof -top -nodecount=20 "$TMP/a.pprof" > "$TMP/pprof.top" 2>"$TMP/pprof.err"; then
		pass "go tool pprof reads it"
		grep -q '^Type: cpu-clock' "$TMP/pprof.top"; ok $? "pprof sample type is the event (cpu-clock)"
		# rows: flat flat% sum% cum cum% name
		awk 'f && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; p = $2; sub(/%/, "", p); print n "\t" p }
		     /flat%/ { f = 1 }' "$TMP/pprof.top" | head -3 > "$TMP/pprof.rows"
		cmp_top() { # cmp_top ORACLE NAME: each of pprof's top 3 within 0.1% of the oracle's share
			local bad=0 name pct want
			while IFS=$'\t' read -r name pct; do
				want=$(awk -F'\t' -v n="$name" '$1 == "[.] " n || $1 == "[k] " n { print $2; exit }' "$1")
				awk -v a="$pct" -v b="${want:--1}" 'BEGIN { d = a - b; exit !(b >= 0 && d < 0.11 && d > -0.11) }' ||
					{ bad=1; note "$name: pprof $pct%, $2 ${want:-missing}%"; }
			done < "$TMP/pprof.rows"
			[ -s "$TMP/pprof.rows" ] && [ $bad -eq 0 ]
		}
		cmp_top "$TMP/perf.top" "perf report"; ok $? "pprof's top 3 functions (flat) have perf report's shares"
		if [ -s "$TMP/pk.top" ]; then
			cmp_top "$TMP/pk.top" "perfkit report"; ok $? "and perfkit report --no-children --sort sym's"
		else
			skip "perfkit report --sort sym printed nothing"
		fi
		is "$(head -1 "$TMP/pprof.rows" | cut -f1)" "$(head -1 "$TMP/perf.top" | cut -f1 | sed 's/^\[.\] //')" \
			"pprof's top function is perf report's"
	else
		skip "go tool pprof unavailable or failed: $(head -2 "$TMP/pprof.err" 2>/dev/null)"
	fi
else
	fail "perfkit report --format pprof runs" "$(head -3 "$TMP/err")"
fi

# ---- json --------------------------------------------------------------------------
if "$PERFKIT" report --format json -i "$DATA" -o "$TMP/a.json" 2>"$TMP/err"; then
	pass "perfkit report --format json runs"
	python3 -m json.tool "$TMP/a.json" >/dev/null 2>&1; ok $? "json output is valid (python3 -m json.tool)"
	read -r ev_samples stack_sum top_leaf < <(python3 - "$TMP/a.json" <<'EOF'
import json, sys, collections
d = json.load(open(sys.argv[1]))
leaf = collections.Counter()
for s in d['stacks']:
    f = s['frames'][-1] if s['frames'] else {'sym': None}
    leaf[f['sym']] += s['count']
print(d['events'][0]['samples'], sum(s['count'] for s in d['stacks']), leaf.most_common(1)[0][0])
EOF
)
	is "$ev_samples" "$nsamples" "json events[0].samples is perf's sample count"
	is "$stack_sum" "$nsamples" "json stack counts add up to it"
	is "$top_leaf" "$(head -1 "$TMP/perf.top" | cut -f1 | sed 's/^\[.\] //')" "json's hottest leaf symbol is perf report's top symbol"
else
	fail "perfkit report --format json runs" "$(head -3 "$TMP/err")"
fi
done_testing
