#!/usr/bin/env bash
# perfkit oa report on the recordings of ../shared/data/i915-perf (PK_SHARED):
# `--json -c all` against IGT's saved i915-perf-reader output (segments, CPU
# and GPU times, contexts, every counter: integers exact, floats to 1e-6
# relative or %f's six decimals), the text output byte for byte with -r,
# the DG2 recording (no acmgt3 metric file) with -c none (decoding only),
# every edge_* file (a clear message and exit 2, or the documented result,
# never a crash), -c list against the reader's, the metric files installed
# beside the program, "did you mean" for mistyped names, `perfkit oa list`
# (two cards of two platforms, a broken metric file among good ones),
# usage errors (each option named as given), libxml2 loaded only when a
# metric file is read, records of unknown types, recordings and streams
# read from a pipe, a bare stream's device options (malformed values
# refused; the device variables they set, through a metric file that
# prints them), JSON escaping and non-finite values, and the uuid warning
# in the text as the reader's.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
"$PERFKIT" oa help >/dev/null 2>&1 || skip_all "this perfkit has no oa command"
perl -MJSON::PP -e 1 2>/dev/null || skip_all "perl JSON::PP is missing"
SHARED=${PK_SHARED:-../shared}
D=$SHARED/data/i915-perf
M=$SHARED/data/intel-oa
[ -d "$D" ] || skip_all "no recordings in $D (set PK_SHARED)"

# as_reader RECORDING PERFKIT-TEXT WHAT: PERFKIT-TEXT (perfkit's -c all -r
# output) is i915-perf-reader's -c all -r output byte for byte, where it is installed
as_reader() {
	if ! command -v i915-perf-reader >/dev/null 2>&1; then
		skip "i915-perf-reader not installed (intel-gpu-tools)"
		return
	fi
	i915-perf-reader -c all -r "$1" >"$TMP/as_reader.igt" 2>&1
	if cmp -s "$2" "$TMP/as_reader.igt"; then pass "$3: i915-perf-reader's output byte for byte"
	else fail "$3: i915-perf-reader's output byte for byte" "$(diff "$2" "$TMP/as_reader.igt" | head -4)"; fi
}

# compare JSON READER-OUTPUT: prints "ok" or the differences
compare() {
	perl -MJSON::PP -e '
		my ($json, $txt) = @ARGV;
		local $/; open my $j, "<", $json or die; my $r = decode_json(<$j>);
		open my $t, "<", $txt or die; my @l = split /\n/, <$t>;
		my (@seg, $cur, $reports, @bad);
		for (@l) {
			$reports = $1 if /^Reports: (\d+)/;
			if (/^Time: CPU=0x(\w+)-0x(\w+) GPU=0x(\w+)-0x(\w+)/) {
				push @seg, { cpu0 => hex $1, cpu1 => hex $2, gpu0 => hex $3, gpu1 => hex $4, c => [] };
				$cur = undef; next;
			}
			if (/^hw_id=0x(\w+)/) { $seg[-1]{hw} = hex $1; $cur = $seg[-1]{c}; next }
			if (/^ report/) { $cur = undef; next }
			push @$cur, [$1, $2] if $cur && /^   (\w+): (\S+)$/;
		}
		push @bad, "reports $r->{reports} vs $reports" if $r->{reports} != $reports;
		push @bad, "segments " . @{$r->{segments}} . " vs " . @seg if @{$r->{segments}} != @seg;
		for my $i (0 .. $#seg) {
			my ($s, $w) = ($r->{segments}[$i], $seg[$i]);
			next unless $s;
			push @bad, "segment $i times/context" unless $s->{ctx_id} == $w->{hw} &&
				$s->{cpu_ns_start} == $w->{cpu0} && $s->{cpu_ns_end} == $w->{cpu1} &&
				$s->{gpu_ts_start} == $w->{gpu0} && $s->{gpu_ts_end} == $w->{gpu1};
			my @names = keys %{$s->{counters}};
			push @bad, "segment $i: " . @names . " counters vs " . @{$w->{c}}
				if @names && @names != @{$w->{c}};
			for my $c (@{$w->{c}}) {
				my ($n, $v) = @$c;
				next unless @names;
				my $g = $s->{counters}{$n};
				if (!defined $g) { push @bad, "segment $i: no $n"; next }
				my $d = abs($g - $v);
				push @bad, "segment $i: $n $g vs $v"
					unless ($v =~ /\./ ? ($d <= 1e-6 * abs($v) || $d <= 5.0000001e-7) : "$g" eq $v);
			}
		}
		print @bad ? join("\n", @bad) . "\n" : "ok\n";
	' "$1" "$2"
}

for f in bdw_renderbasic bdw_testoa skl_renderbasic tgl_renderbasic hsw_renderbasic dg2_renderbasic; do
	c=all; [ $f = dg2_renderbasic ] && c=none
	"$PERFKIT" oa report "$D/$f.i915perf" --metrics-dir "$M" -c $c --json >"$TMP/$f.json" 2>"$TMP/$f.err"
	is "$?" 0 "$f: report --json -c $c exits 0"
	r=$(compare "$TMP/$f.json" "$D/$f.reader-output.txt" 2>&1)
	is "$r" ok "$f: segments and counters equal i915-perf-reader's"
	if [ $f != dg2_renderbasic ]; then
		"$PERFKIT" oa report "$D/$f.i915perf" --metrics-dir "$M" -c all -r >"$TMP/$f.txt" 2>&1
		if cmp -s "$TMP/$f.txt" "$D/$f.reader-output.txt"; then pass "$f: text -c all -r equals the reader's byte for byte"
		else fail "$f: text -c all -r equals the reader's byte for byte" "$(diff "$TMP/$f.txt" "$D/$f.reader-output.txt" | head -5)"; fi
	fi
done
PERFKIT_OA_METRICS=$M "$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --json >"$TMP/env.json" 2>&1
is "$(compare "$TMP/env.json" "$D/bdw_renderbasic.reader-output.txt")" ok "\$PERFKIT_OA_METRICS directory, every counter by default"
PERFKIT_OA_METRICS=$M/oa-bdw.xml "$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --json >"$TMP/env2.json" 2>&1
is "$(compare "$TMP/env2.json" "$D/bdw_renderbasic.reader-output.txt")" ok "\$PERFKIT_OA_METRICS file"
# -c list: the reader's -c list byte for byte (where it is installed), and
# as JSON the same counters with their details from the metric file
for f in bdw_renderbasic hsw_renderbasic tgl_renderbasic; do
	"$PERFKIT" oa report "$D/$f.i915perf" --metrics-dir "$M" -c list >"$TMP/$f.list" 2>&1
	is "$?" 0 "$f: -c list exits 0"
	if command -v i915-perf-reader >/dev/null 2>&1; then
		i915-perf-reader -c list "$D/$f.i915perf" >"$TMP/$f.rlist" 2>&1
		if cmp -s "$TMP/$f.list" "$TMP/$f.rlist"; then pass "$f: -c list equals i915-perf-reader -c list byte for byte"
		else fail "$f: -c list equals i915-perf-reader -c list byte for byte" "$(diff "$TMP/$f.list" "$TMP/$f.rlist" | head -5)"; fi
	else
		skip "i915-perf-reader not installed (intel-gpu-tools)"
	fi
done
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c list --json >"$TMP/list.json" 2>&1
is "$(perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my ($b) = grep { $_->{symbol_name} eq "GpuBusy" } @{$r->{counters}};
	print join(" ", $r->{metric_set}, scalar @{$r->{counters}}, map { $b->{$_} } qw(name units semantic_type data_type))' <"$TMP/list.json")" \
	"RenderBasic $(($(wc -l <"$TMP/bdw_renderbasic.list") - 1)) GPU Busy percent duration float" \
	"-c list --json: the set, as many counters as the text lists, GpuBusy's details from the XML"
is "$(perl -MJSON::PP -e 'local $/; print join("\n", map { $_->{symbol_name} } @{decode_json(<STDIN>)->{counters}}), "\n"' <"$TMP/list.json")" \
	"$(sed -n 's/^\([A-Za-z0-9_]*\):.*/\1/p' "$TMP/bdw_renderbasic.list")" "-c list --json: the same counters in the same order as the text"

# Installed: PREFIX/bin/perfkit finds Intel's files in PREFIX/share/perfkit/oa
# (where make install puts them) with no flag and no $PERFKIT_OA_METRICS;
# moved elsewhere, it looks in /usr/share/perfkit/oa and says so.
mkdir -p "$TMP/prefix/bin" "$TMP/prefix/share/perfkit/oa" "$TMP/bare/bin"
cp "$PERFKIT" "$TMP/prefix/bin/perfkit"; cp "$PERFKIT" "$TMP/bare/bin/perfkit"
ln -s "$(realpath "$M/oa-bdw.xml")" "$TMP/prefix/share/perfkit/oa/oa-bdw.xml"
ln -s "$TMP/prefix/bin/perfkit" "$TMP/perfkit-link"
env -u PERFKIT_OA_METRICS "$TMP/perfkit-link" oa report "$D/bdw_renderbasic.i915perf" --json >"$TMP/inst.json" 2>&1
is "$(compare "$TMP/inst.json" "$D/bdw_renderbasic.reader-output.txt")" ok \
	"installed: the metric file in PREFIX/share/perfkit/oa, run through a link to PREFIX/bin/perfkit"
env -u PERFKIT_OA_METRICS "$TMP/prefix/bin/perfkit" oa list >"$TMP/inst-list.txt" 2>&1
grep -q "^$TMP/prefix/share/perfkit/oa/oa-bdw.xml: 24 metric sets$" "$TMP/inst-list.txt" &&
	pass "installed: oa list lists PREFIX/share/perfkit/oa" || fail "installed: oa list lists PREFIX/share/perfkit/oa" "$(head -3 "$TMP/inst-list.txt")"
if [ -e /usr/share/perfkit/oa ]; then
	skip "/usr/share/perfkit/oa exists here: no message to check"
else
	env -u PERFKIT_OA_METRICS "$TMP/bare/bin/perfkit" oa report "$D/bdw_renderbasic.i915perf" >"$TMP/bare.txt" 2>&1
	is "$?:$(cat "$TMP/bare.txt")" "2:perfkit: '/usr/share/perfkit/oa': no metric file for platform 'bdw' (looked for oa-bdw.xml): No such file or directory
hint: give the metric file with --metrics FILE (Intel's oa-bdw.xml, as IGT and Mesa ship it), or -c none for the segments without counters" \
		"nothing installed beside the program: exit 2, naming /usr/share/perfkit/oa, with a hint"
fi
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics "$M/oa-bdw.xml" -r --json >"$TMP/pr.json" 2>&1
gt=$(awk '/^   GpuTime: /{print $2; exit}' "$D/tgl_renderbasic.reader-output.txt")
is "$(perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); print scalar(@{$r->{segments}[0]{per_report}}), " ", $r->{segments}[0]{per_report}[0]{counters}{GpuTime}, " ", $r->{segments}[0]{per_report}[0]{reason}' <"$TMP/pr.json")" \
	"3 1000000 timer" "--per-report --json: 3 pairs in the first segment, GpuTime 1000000 each"

# counter names longer than the 32 bytes a label is copied in (GpuTime, 47
# bytes), and one longer than the output buffer (GpuBusy, 300,007 bytes:
# written in pieces): the output is the same as with the names they
# lengthen, once the names are put back (a suffix keeps the counters'
# order; equations name them too, as "$GpuBusy")
mkdir -p "$TMP/long" "$TMP/huge"
perl -pe 's/\bGpuTime\b/GpuTime${\("x" x 40)}/g' "$M/oa-bdw.xml" >"$TMP/long/oa-bdw.xml"
perl -pe 's/\bGpuBusy\b/GpuBusy${\("y" x 300000)}/g' "$M/oa-bdw.xml" >"$TMP/huge/oa-bdw.xml"
for j in "" --json; do
	# shellcheck disable=SC2086 # an empty flag is no argument
	"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics "$M/oa-bdw.xml" -c all -r $j >"$TMP/short.txt" 2>&1
	for m in long huge; do
		# shellcheck disable=SC2086
		"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics "$TMP/$m/oa-bdw.xml" -c all -r $j 2>&1 |
			perl -pe 's/GpuTimex{40}\b/GpuTime/g; s/GpuBusy(?:y{1000}){300}\b/GpuBusy/g' >"$TMP/$m.txt"
		if [ "$(grep -o GpuBusy "$TMP/short.txt" | wc -l)" -ge 6 ] && cmp -s "$TMP/$m.txt" "$TMP/short.txt"; then
			pass "$m counter name prints as the short one does ${j:-(text)}"
		else
			fail "$m counter name prints as the short one does ${j:-(text)}" "$(diff "$TMP/$m.txt" "$TMP/short.txt" | head -4 | cut -c1-200)"
		fi
	done
done

# JSON strings escaped, and a value that is not finite as null: a counter
# named Gpu"Bu\sy<TAB>x (&quot; and &#9; in the XML) whose equation
# overflows a double (10^19 to the 21st); the text prints it as %f does, inf
mkdir -p "$TMP/odd"
perl -pe 'BEGIN { $eq = "10000000000000000000" . " 10000000000000000000 FMUL" x 20 }
	if (/symbol_name="GpuBusy"/ .. /^\s+equation=/) {
		s/symbol_name="GpuBusy"/symbol_name="Gpu&quot;Bu\\sy&#9;x"/; s/^(\s+)equation="[^"]*"/$1equation="$eq"/ }' \
	"$M/oa-bdw.xml" >"$TMP/odd/oa-bdw.xml"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics "$TMP/odd/oa-bdw.xml" -c all --json >"$TMP/odd.json" 2>&1
is "$(perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my @s = @{$r->{segments}};
	print scalar(grep { exists $_->{counters}{"Gpu\"Bu\\sy\tx"} && !defined $_->{counters}{"Gpu\"Bu\\sy\tx"} } @s), "/", scalar(@s)' \
	<"$TMP/odd.json" 2>&1)" "2/2" "--json: a name with a quote, a backslash and a tab escaped, an infinite value null"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics "$TMP/odd/oa-bdw.xml" -c all >"$TMP/odd.txt" 2>&1
is "$(grep -c "^   Gpu\"Bu\\\\sy	x: inf\$" "$TMP/odd.txt")" 2 "text: the name as it is, the infinite value as %f prints it (inf)"

# edge cases: exit status and message, never a crash
edge() { # edge NAME WANT-STATUS WANT-STDERR-OR-STDOUT-PATTERN
	"$PERFKIT" oa report "$D/$1.i915perf" --metrics-dir "$M" -c GpuTime,GpuBusy --json >"$TMP/$1.out" 2>"$TMP/$1.err"
	local st=$?
	if [ $st = "$2" ] && grep -q -- "$3" "$TMP/$1.out" "$TMP/$1.err"; then pass "$1: exit $2, '$3'"
	else fail "$1: exit $2, '$3'" "exit $st: $(cat "$TMP/$1.err" "$TMP/$1.out" | head -3)"; fi
}
edge edge_badversion 2 "edge_badversion.i915perf': unsupported recording version 2 (expected 1)"
edge edge_notopo 2 "edge_notopo.i915perf': invalid file, missing"
edge edge_unknownmetric 2 "edge_unknownmetric.i915perf': metric set 'NoSuchSet' not found in .*oa-bdw.xml"
edge edge_zero_reports 0 '"reports":0,"lost":0,"segments":\[\]'
edge edge_lost 0 '"lost":2,.*"counters":{"GpuTime":2000000,"GpuBusy":75}'
edge edge_ctx_invalid 0 '"ctx_id":4294967295,'
edge edge_noversion_reordered 0 '"cpu_ns_start":1000000000000,'
# one correlation point: CPU times at the timestamp frequency (12.5 MHz: 80 ns a tick) from it
edge edge_onecorr 0 '"segments":\[{"ctx_id":32,"gpu_ts_start":268447956,"gpu_ts_end":268472956,"cpu_ns_start":1000001000000,"cpu_ns_end":1000003000000,'
# past the last point: extrapolated from the last two
edge edge_ts_past_last_corr 0 '"cpu_ns_end":1000003000000,'
for f in edge_zero_reports edge_onecorr edge_ts_past_last_corr; do
	"$PERFKIT" oa report "$D/$f.i915perf" --metrics-dir "$M" -c GpuTime,GpuBusy >/dev/null 2>&1
	is "$?" 0 "$f: text output exits 0 (the reader crashes)"
done

# the uuid warning, on stderr with --json
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -m TestOa --json >/dev/null 2>"$TMP/w.err"
grep -q "warning: .*recorded with metric set uuid 'b541bd57" "$TMP/w.err" && pass "-m TestOa: uuid mismatch warned" || fail "-m TestOa: uuid mismatch warned" "$(cat "$TMP/w.err")"
# and in the text, a recording whose uuid is not its set's (its first digit
# changed): the two WARNING lines, byte for byte as the reader prints them
python3 - "$D/bdw_renderbasic.i915perf" "$TMP/uuid.i915perf" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
pos = 0
while struct.unpack_from("<I", data, pos)[0] != 0x10001:
    pos += struct.unpack_from("<IHH", data, pos)[2]
data[pos + 8 + 292] = ord("c")           # metric_set_uuid: b541bd57-... -> c541bd57-...
open(sys.argv[2], "wb").write(data)
PY
"$PERFKIT" oa report "$TMP/uuid.i915perf" --metrics-dir "$M" -c all -r >"$TMP/uuid.txt" 2>&1
is "$(grep -c '^WARNING: ' "$TMP/uuid.txt")" 2 "another uuid: the text warns in two lines"
as_reader "$TMP/uuid.i915perf" "$TMP/uuid.txt" "another uuid"

# records of a type no reader knows (0 and 200), one among the samples and
# one at the end: skipped, as i915-perf-reader skips them (the output is the
# file's without them, and the reader's), and named on stderr with the first
# one's byte, found here by walking the records
python3 - "$D/bdw_renderbasic.i915perf" "$TMP/unknown.i915perf" <<'PY' >"$TMP/unknown.at"
import struct, sys
data = open(sys.argv[1], "rb").read()
pos, n, out = 0, 0, b""
while pos < len(data):
    size = struct.unpack_from("<IHH", data, pos)[2]
    out += data[pos:pos + size]
    pos += size
    n += 1
    if n == 6:
        print(len(out))
        out += struct.pack("<IHH", 200, 0, 24) + bytes(16)
open(sys.argv[2], "wb").write(out + struct.pack("<IHH", 0, 0, 8))
PY
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c all -r >"$TMP/known.txt" 2>&1
"$PERFKIT" oa report "$TMP/unknown.i915perf" --metrics-dir "$M" -c all -r >"$TMP/unknown.txt" 2>"$TMP/unknown.err"
is "$?:$(cat "$TMP/unknown.err")" \
	"0:perfkit: warning: '$TMP/unknown.i915perf': 2 records of a type perfkit does not know skipped (the first: type 200 at byte $(cat "$TMP/unknown.at"))" \
	"records of unknown types: exit 0, their number, the first one's type and byte"
if cmp -s "$TMP/unknown.txt" "$TMP/known.txt"; then pass "records of unknown types: the output of the file without them"
else fail "records of unknown types: the output of the file without them" "$(diff "$TMP/unknown.txt" "$TMP/known.txt" | head -4)"; fi
as_reader "$TMP/unknown.i915perf" "$TMP/unknown.txt" "records of unknown types"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" >/dev/null 2>"$TMP/known.err"
is "$?:$(cat "$TMP/known.err")" "0:" "a recording without them: no warning"

# usage and input errors
"$PERFKIT" oa report >/dev/null 2>"$TMP/u.err"; is "$?" 2 "no recording: exit 2"
"$PERFKIT" oa report "$TMP/none.i915perf" 2>"$TMP/u.err"; is "$?" 2 "missing recording: exit 2"
grep -q "none.i915perf" "$TMP/u.err" && pass "missing recording named" || fail "missing recording named" "$(cat "$TMP/u.err")"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c NoSuch 2>"$TMP/u.err" >/dev/null; is "$?" 2 "unknown counter: exit 2"
grep -q "counter 'NoSuch' not in metric set 'RenderBasic'" "$TMP/u.err" && pass "unknown counter named" || fail "unknown counter named" "$(cat "$TMP/u.err")"
for list in GpuTime,,GpuBusy GpuTime, ,GpuTime; do
	"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c "$list" 2>"$TMP/u.err" >/dev/null
	is "$?:$(cat "$TMP/u.err")" "2:perfkit: '$D/bdw_renderbasic.i915perf': invalid counter list '$list'" \
		"-c $list: an empty name, exit 2, the list named"
done
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c GpuBusy,gputime 2>"$TMP/u.err" >/dev/null
is "$?:$(tail -1 "$TMP/u.err")" "2:hint: did you mean 'GpuTime'?" "a mistyped counter: exit 2, the closest name as a hint"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -m RenderBasik 2>"$TMP/u.err" >/dev/null
is "$?:$(tail -1 "$TMP/u.err")" "2:hint: did you mean 'RenderBasic'?" "a mistyped metric set: exit 2, the closest name as a hint"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -m renderbasic --json >"$TMP/case.json" 2>&1
is "$(compare "$TMP/case.json" "$D/bdw_renderbasic.reader-output.txt")" ok "-m renderbasic: the set, ignoring case (as i915-perf-recorder -m)"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$TMP" 2>"$TMP/u.err" >/dev/null; is "$?" 2 "no metric file: exit 2"
grep -q "no metric file for platform 'bdw'" "$TMP/u.err" && pass "missing metric file named" || fail "missing metric file named" "$(cat "$TMP/u.err")"
is "$(tail -1 "$TMP/u.err")" "hint: give the metric file with --metrics FILE (Intel's oa-bdw.xml, as IGT and Mesa ship it), or -c none for the segments without counters" \
	"no metric file: the hint names it, --metrics and -c none"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$TMP" -c none >"$TMP/none.txt" 2>&1
is "$?:$(grep -c '^Time: ' "$TMP/none.txt"):$(grep -c '^   ' "$TMP/none.txt")" \
	"0:$(grep -c '^Time: ' "$D/bdw_renderbasic.reader-output.txt"):0" "and -c none then gives the segments, no counters"
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --bogus 2>/dev/null; is "$?" 2 "unknown option: exit 2"
# a full disk: the write error is said, exit 1 (text and JSON, with per-report lines)
for j in "" --json; do
	"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c all --per-report $j >/dev/full 2>"$TMP/full.err"
	is "$?" 1 "report ${j:-text} to a full disk: exit 1"
	grep -q "cannot write the report: No space left on device" "$TMP/full.err" && pass "report ${j:-text} to a full disk says so" ||
		fail "report ${j:-text} to a full disk says so" "$(cat "$TMP/full.err")"
	"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c list $j >/dev/full 2>"$TMP/full.err"
	is "$?:$(cat "$TMP/full.err")" "1:perfkit: cannot write the counter list: No space left on device" \
		"-c list ${j:-text} to a full disk: exit 1, in words"
done
"$PERFKIT" oa frobnicate 2>/dev/null; is "$?" 2 "unknown oa command: exit 2"
head -c 100 "$D/bdw_renderbasic.i915perf" >"$TMP/trunc.i915perf"
"$PERFKIT" oa report "$TMP/trunc.i915perf" --metrics-dir "$M" 2>"$TMP/u.err" >/dev/null; is "$?" 2 "truncated recording: exit 2"

# bare kernel streams: each recording's SAMPLE and LOST records alone, the
# device given on the command line; every counter, context and GPU time must
# equal what the reader printed for the whole recording (CPU times and
# correlation lines are not known without correlation points)
strip_igt() { # strip_igt IN OUT: keep the kernel's records (types 1-3)
	perl -e 'local $/; open my $i, "<:raw", $ARGV[0] or die; my $d = <$i>; my ($p, $o) = (0, "");
		while ($p + 8 <= length $d) { my ($t, $pad, $s) = unpack "VvV", substr($d, $p, 8); $s = unpack "v", substr($d, $p + 6, 2);
			last if $s < 8; $o .= substr($d, $p, $s) if $t >= 1 && $t <= 3; $p += $s }
		open my $w, ">:raw", $ARGV[1] or die; print $w $o' "$1" "$2"
}
for x in "hsw_renderbasic 0x0416 1,2,10 200,1200" "bdw_renderbasic 0x1616 1,3,8 300,1000" \
	 "skl_renderbasic 0x1916 1,3,8 300,1050" "tgl_renderbasic 9a49 1,6,16 100,1300"; do
	set -- $x
	strip_igt "$D/$1.i915perf" "$TMP/$1.stream"
	"$PERFKIT" oa report "$TMP/$1.stream" --pci-id $2 --topology $3 --gt-frequency $4 -m RenderBasic \
		--metrics-dir "$M" -c all -r >"$TMP/$1.stream.txt" 2>&1
	is "$?" 0 "$1 as a bare stream (--pci-id $2 --topology $3): exit 0"
	if diff <(grep -v 'Time: \|correlation' "$TMP/$1.stream.txt") <(grep -v 'Time: \|correlation' "$D/$1.reader-output.txt") >"$TMP/$1.diff"; then
		pass "$1 as a bare stream: every line but CPU times equals the reader's for the recording"
	else fail "$1 as a bare stream: every line but CPU times equals the reader's" "$(head -5 "$TMP/$1.diff")"; fi
done
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 0x9a49 --topology 1,6,16 -m RenderBasic --metrics-dir "$M" \
	-c GpuTime --json >"$TMP/st.json" 2>"$TMP/st.err"
is "$(perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my $s = $r->{segments}[0];
	print "$r->{reports} ", scalar(@{$r->{segments}}), " $s->{ctx_id} $s->{cpu_ns_start} $s->{cpu_ns_end} $s->{counters}{GpuTime}"' <"$TMP/st.json")" \
	"5 2 32 0 0 $gt" "bare stream --json: 5 reports, 2 segments, context 0x20, no CPU times, the reader's first GpuTime ($gt ns)"
[ -s "$TMP/st.err" ] && fail "bare stream with -m: no uuid warning" "$(cat "$TMP/st.err")" || pass "bare stream with -m: no uuid warning"
# from a pipe, as from the file: a recording through process substitution
# and through "-" (a pipe and a redirect), a bare stream through "-" (as
# `cat /dev/... |` gives it); an empty pipe and a directory are refused
"$PERFKIT" oa report "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" -c all -r >"$TMP/file.txt" 2>&1
"$PERFKIT" oa report <(cat "$D/bdw_renderbasic.i915perf") --metrics-dir "$M" -c all -r >"$TMP/pipe.txt" 2>&1
is "$?:$(cmp "$TMP/pipe.txt" "$TMP/file.txt" 2>&1)" 0: "a recording from a pipe (<(cat FILE)): the file's output"
cat "$D/bdw_renderbasic.i915perf" | "$PERFKIT" oa report - --metrics-dir "$M" -c all -r >"$TMP/pipe.txt" 2>&1
is "$?:$(cmp "$TMP/pipe.txt" "$TMP/file.txt" 2>&1)" 0: "a recording from standard input, a pipe (-)"
"$PERFKIT" oa report - --metrics-dir "$M" -c all -r <"$D/bdw_renderbasic.i915perf" >"$TMP/pipe.txt" 2>&1
is "$?:$(cmp "$TMP/pipe.txt" "$TMP/file.txt" 2>&1)" 0: "a recording from standard input, a redirect (-)"
cat "$TMP/tgl_renderbasic.stream" | "$PERFKIT" oa report - --pci-id 9a49 --topology 1,6,16 --gt-frequency 100,1300 \
	-m RenderBasic --metrics-dir "$M" -c all -r >"$TMP/pipe.txt" 2>&1
is "$?:$(cmp "$TMP/pipe.txt" "$TMP/tgl_renderbasic.stream.txt" 2>&1)" 0: "a bare stream from standard input: the file's output"
"$PERFKIT" oa report - --metrics-dir "$M" </dev/null >/dev/null 2>"$TMP/pipe.err"
is "$?:$(head -1 "$TMP/pipe.err")" "2:perfkit: '/dev/stdin': invalid file, missing device and topology info" "nothing on standard input: exit 2"
"$PERFKIT" oa report "$TMP" --metrics-dir "$M" >/dev/null 2>"$TMP/pipe.err"
is "$?:$(cat "$TMP/pipe.err")" "2:perfkit: '$TMP': cannot read: Is a directory" "a directory: exit 2, in words"

strip_igt "$D/dg2_renderbasic.i915perf" "$TMP/dg2.stream"
"$PERFKIT" oa report "$TMP/dg2.stream" --pci-id 0x56a0 -c none --json >"$TMP/dg2s.json" 2>&1
is "$?" 0 "DG2 bare stream -c none: decodes without topology or metric file"
grep -q '"reports":5,' "$TMP/dg2s.json" && pass "DG2 bare stream: 5 reports" || fail "DG2 bare stream: 5 reports" "$(head -c 300 "$TMP/dg2s.json")"
stream_err() { # stream_err PATTERN DESCRIPTION ARGS...
	local want=$1 what=$2; shift 2
	"$PERFKIT" oa report "$@" >/dev/null 2>"$TMP/se.err"
	local st=$?
	if [ $st = 2 ] && grep -q -- "$want" "$TMP/se.err"; then pass "$what: exit 2, '$want'"
	else fail "$what: exit 2, '$want'" "exit $st: $(head -3 "$TMP/se.err")"; fi
}
stream_err "hint: a bare kernel stream is read when its device is given" "a stream without its device" "$TMP/tgl_renderbasic.stream" --metrics-dir "$M"
stream_err "stream does not name its metric set: give one by name or GUID (-m SET)" "a stream without -m" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 --metrics-dir "$M"
stream_err "needs --topology" "a stream without --topology" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 -m RenderBasic --metrics-dir "$M"
stream_err "give --pci-id too" "--topology alone" "$TMP/tgl_renderbasic.stream" --topology 1,6,16
stream_err "PCI id 0x1234 is not an i915 device perfkit knows" "an unknown PCI id" "$TMP/tgl_renderbasic.stream" --pci-id 1234 -c none
stream_err "invalid value 'zz' for --pci-id" "a bad PCI id" "$TMP/tgl_renderbasic.stream" --pci-id zz -c none
stream_err "invalid value '1,0,16' for --topology" "a zero count" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,0,16
stream_err "invalid value '1,6' for --topology" "two counts" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6
stream_err "invalid value '+1,6,16' for --topology" "a sign before a count" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology +1,6,16
stream_err "invalid value '1x6x16' for --topology" "counts not split by commas" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1x6x16
stream_err "invalid value '1,6,16,4' for --topology" "four counts" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16,4
stream_err "invalid value '4294967297,6,16' for --topology" "a count that 32 bits would wrap to 1" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 4294967297,6,16
stream_err "invalid value '0x19a49' for --pci-id" "a PCI id above 0xffff" "$TMP/tgl_renderbasic.stream" --pci-id 0x19a49 -c none
stream_err "invalid value '-9a49' for --pci-id" "a negative PCI id" "$TMP/tgl_renderbasic.stream" --pci-id -9a49 -c none
for opt in "--timestamp-frequency 19200000" "--oa-format 10" "--revision 3" "--gt-frequency 100,1300"; do
	# shellcheck disable=SC2086
	stream_err "give --pci-id too" "${opt%% *} alone" "$TMP/tgl_renderbasic.stream" $opt -c none
done
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --oa-format A99 -c none >/dev/null 2>"$TMP/se.err"
is "$?:$(cat "$TMP/se.err")" "2:perfkit: unknown OA format 'A99' (known: A45_B8_C8, A32u40_A4u32_B8_C8, OAR_A32u40_A4u32_B8_C8, A24u40_A14u32_B8_C8, or their i915 numbers)" \
	"an unknown format: exit 2, one message naming the known ones"
stream_err "invalid value '900,100' for --gt-frequency" "min above max" "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --gt-frequency 900,100 -c none
stream_err "tgl_renderbasic.i915perf': a version record: this is an IGT recording, not a bare kernel stream.* at offset 0" \
	"an IGT recording given a device" "$D/tgl_renderbasic.i915perf" --pci-id 9a49 -c none
# the format by name and by number, the frequency given: the same values as the platform's defaults
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 -m RenderBasic --metrics-dir "$M" \
	-c all --oa-format A32u40_A4u32_B8_C8 --timestamp-frequency 19200000 --gt-frequency 100,1300 >"$TMP/st2.txt" 2>&1
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 -m RenderBasic --metrics-dir "$M" \
	-c all --oa-format 10 --gt-frequency 100,1300 >"$TMP/st3.txt" 2>&1
cmp -s "$TMP/st2.txt" "$TMP/st3.txt" && pass "--oa-format by name or number, --timestamp-frequency: the defaults' output" || fail "--oa-format by name or number" "$(diff "$TMP/st2.txt" "$TMP/st3.txt" | head -4)"
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 -m RenderBasic --metrics-dir "$M" \
	-c all --oa-format a32u40_a4u32_b8_c8 --gt-frequency 100,1300 >"$TMP/st5.txt" 2>&1
cmp -s "$TMP/st5.txt" "$TMP/st3.txt" && pass "--oa-format's name in any case (a32u40_a4u32_b8_c8)" || fail "--oa-format's name in any case" "$(diff "$TMP/st5.txt" "$TMP/st3.txt" | head -4)"
# the device variables the options give, through a metric file whose GpuBusy is
# $GpuMinFrequency + $GpuMaxFrequency / 1000 + $SkuRevisionId: 300 MHz, 1300 MHz, revision 3
mkdir -p "$TMP/devvars"
perl -pe 'if (/symbol_name="GpuBusy"/ .. /^\s+equation=/) {
		s/^(\s+)equation="[^"]*"/$1equation="\$GpuMinFrequency \$GpuMaxFrequency 1000 UDIV UADD \$SkuRevisionId UADD"/ }' \
	"$M/oa-tglgt2.xml" >"$TMP/devvars/oa-tglgt2.xml"
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 -m RenderBasic \
	--metrics "$TMP/devvars/oa-tglgt2.xml" -c GpuBusy --gt-frequency 300,1300 --revision 3 --json >"$TMP/devvars.json" 2>&1
is "$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{segments}[0]{counters}{GpuBusy}' <"$TMP/devvars.json" 2>&1)" \
	301300003 "--gt-frequency 300,1300 --revision 3: \$GpuMinFrequency 300000000, \$GpuMaxFrequency 1300000000, \$SkuRevisionId 3"
"$PERFKIT" oa report "$TMP/tgl_renderbasic.stream" --pci-id 9a49 --topology 1,6,16 -m RenderBasic --metrics-dir "$M" \
	-c GpuTime --timestamp-frequency 38400000 --json >"$TMP/st4.json" 2>&1
grep -q "\"GpuTime\":$((gt / 2))}" "$TMP/st4.json" && pass "--timestamp-frequency doubled: GpuTime halved ($((gt / 2)) ns)" || fail "--timestamp-frequency doubled: GpuTime halved" "$(head -c 400 "$TMP/st4.json")"

# list
"$PERFKIT" oa list --metrics-dir "$M" >"$TMP/list.txt" 2>&1; is "$?" 0 "oa list --metrics-dir exits 0"
grep -q "RenderBasic *b541bd57-0e0f-4154-b4c0-5858010a2bf7 *52 counters" "$TMP/list.txt" && pass "list: BDW RenderBasic, GUID and 52 counters" || fail "list: BDW RenderBasic" "$(head -5 "$TMP/list.txt")"
grep -q "oa-hsw.xml: 6 metric sets" "$TMP/list.txt" && pass "list: every file of the directory" || fail "list: every file" "$(grep xml "$TMP/list.txt")"
if ! ls /sys/class/drm/card*/device/driver 2>/dev/null | grep -q .; then
	grep -q "no i915 device on this machine" "$TMP/list.txt" && pass "list: no device said plainly" || fail "list: no device said plainly"
fi
# a fixture sysfs: card0 an i915 Tigerlake offering 3 sets (one unknown to
# the metric file), card1 another driver, card0-DP-1 a connector
S=$TMP/sys
mkdir -p "$S/class/drm/card0/device" "$S/class/drm/card1/device" "$S/class/drm/card0-DP-1" "$S/bus/pci/drivers/i915" "$S/bus/pci/drivers/amdgpu"
ln -s ../../../../bus/pci/drivers/i915 "$S/class/drm/card0/device/driver"
ln -s ../../../../bus/pci/drivers/amdgpu "$S/class/drm/card1/device/driver"
echo 0x9a49 >"$S/class/drm/card0/device/device"
echo 0x73bf >"$S/class/drm/card1/device/device"
for x in "0fc397c0-4833-492c-9ccd-4929d574d5b8 7" "397a46d9-03dd-4696-8196-270362e1c575 12" "11111111-2222-3333-4444-555555555555 3"; do
	set -- $x; mkdir -p "$S/class/drm/card0/metrics/$1"; echo "$2" >"$S/class/drm/card0/metrics/$1/id"
done
"$PERFKIT" oa list --sys-root "$S" --metrics-dir "$M" >"$TMP/list3.txt" 2>&1; is "$?" 0 "oa list --sys-root: exit 0"
is "$(grep -c '^card' "$TMP/list3.txt")" 1 "oa list --sys-root: one i915 card (not the amdgpu card, not the connector)"
grep -q '^card0: i915 device 0x9a49 (tigerlake, metric file oa-tglgt2.xml), 3 metric sets in the kernel$' "$TMP/list3.txt" && pass "oa list: card0, its PCI id, platform and set count" || fail "oa list: card0 line" "$(head -3 "$TMP/list3.txt")"
is "$(grep '^  id ' "$TMP/list3.txt" | awk '{print $2, $3, $4}' | tr '\n' ';')" \
	"3 11111111-2222-3333-4444-555555555555 -;7 0fc397c0-4833-492c-9ccd-4929d574d5b8 RenderBasic;12 397a46d9-03dd-4696-8196-270362e1c575 ComputeBasic;" \
	"oa list: the kernel's sets by id, named from the metric file by GUID ('-' when it has none)"
grep -q "oa-tglgt2.xml: 26 metric sets" "$TMP/list3.txt" && pass "oa list --sys-root: the metric files follow" || fail "oa list --sys-root: the metric files follow"
"$PERFKIT" oa list --sys-root "$TMP/nosys" --metrics-dir "$M" 2>&1 | grep -q "no i915 device on this machine" && pass "oa list: an empty sysfs says no i915 device" || fail "oa list: an empty sysfs says no i915 device"
"$PERFKIT" oa report "$D/tgl_renderbasic.i915perf" --metrics-dir "$M" --sys-root "$S" >/dev/null 2>"$TMP/u.err"
is "$?:$(cat "$TMP/u.err")" "2:perfkit: option '--sys-root' is for 'perfkit oa list' and 'perfkit oa record'" "--sys-root is not a report option: exit 2, in words"
# named as given, whatever follows it: its value, after a space or '=', or joined to it
for x in "--json|--json" "--per-report|--per-report" "-r|-r" "--pci-id 9a49|--pci-id" "--pci-id=9a49|--pci-id" \
	 "-c all|-c" "-call|-c"; do
	# shellcheck disable=SC2086
	"$PERFKIT" oa list --metrics-dir "$M" ${x%|*} >/dev/null 2>"$TMP/u.err"
	is "$?:$(cat "$TMP/u.err")" "2:perfkit: option '${x#*|}' is for 'perfkit oa report'" "oa list ${x%|*}: a report option, exit 2, named ${x#*|}"
done
"$PERFKIT" oa report "$D/tgl_renderbasic.i915perf" "$D/bdw_renderbasic.i915perf" --metrics-dir "$M" >/dev/null 2>"$TMP/u.err"
is "$?:$(cat "$TMP/u.err")" "2:perfkit: unexpected argument '$D/bdw_renderbasic.i915perf'" "oa report of two files: exit 2, the second named"
# two cards of different platforms: each named from its own metric file
cp -a "$S" "$TMP/sys2"
mkdir -p "$TMP/sys2/class/drm/card2/device/" "$TMP/sys2/class/drm/card2/metrics/b541bd57-0e0f-4154-b4c0-5858010a2bf7"
ln -s ../../../../bus/pci/drivers/i915 "$TMP/sys2/class/drm/card2/device/driver"
echo 0x1616 >"$TMP/sys2/class/drm/card2/device/device"
echo 5 >"$TMP/sys2/class/drm/card2/metrics/b541bd57-0e0f-4154-b4c0-5858010a2bf7/id"
"$PERFKIT" oa list --sys-root "$TMP/sys2" --metrics-dir "$M" >"$TMP/list4.txt" 2>&1
is "$(grep -E '^card|^  id ' "$TMP/list4.txt" | awk '{ print ($1 == "id" ? $2 " " $4 : $1 " " $5) }' | tr '\n' ';')" \
	"card0: (tigerlake,;3 -;7 RenderBasic;12 ComputeBasic;card2: (broadwell,;5 RenderBasic;" \
	"oa list: a Tigerlake and a Broadwell card, each set named from its platform's metric file"
# a folder whose first metric file is broken: the others are listed, and the exit status is 2
mkdir -p "$TMP/some-broken"
printf '<metrics><set' >"$TMP/some-broken/oa-a.xml"
cp "$M/oa-hsw.xml" "$TMP/some-broken/oa-hsw.xml"
"$PERFKIT" oa list --sys-root "$TMP/nosys" --metrics-dir "$TMP/some-broken" >"$TMP/broken.txt" 2>"$TMP/broken.err"
is "$?" 2 "oa list with a broken metric file first: exit 2, though the last file reads"
grep -q "oa-hsw.xml: 6 metric sets" "$TMP/broken.txt" && grep -q "oa-a.xml" "$TMP/broken.err" &&
	pass "oa list: the broken file named, the good one listed" || fail "oa list: the broken file named, the good one listed" "$(cat "$TMP/broken.err")"
"$PERFKIT" oa list --metrics "$M/oa-tglgt2.xml" >"$TMP/list2.txt" 2>&1; is "$?" 0 "oa list --metrics FILE exits 0"
grep -q "oa-tglgt2.xml: 26 metric sets" "$TMP/list2.txt" && pass "list --metrics: 26 TGL sets" || fail "list --metrics: 26 TGL sets" "$(cat "$TMP/list2.txt")"
"$PERFKIT" oa list --metrics "$TMP/none.xml" >/dev/null 2>&1; is "$?" 2 "oa list --metrics missing: exit 2"
# libxml2 is opened when a metric file is read, not when perfkit starts (ld.so's own account)
LD_DEBUG=files "$PERFKIT" stat -e task-clock -- true 2>"$TMP/ld.txt" >/dev/null
grep -q "file=libjson-c" "$TMP/ld.txt" && ! grep -q "file=libxml2" "$TMP/ld.txt" &&
	pass "perfkit stat does not load libxml2" || fail "perfkit stat does not load libxml2" "$(grep "file=libxml2" "$TMP/ld.txt")"
LD_DEBUG=files "$PERFKIT" oa list --metrics "$M/oa-tglgt2.xml" 2>"$TMP/ld.txt" >/dev/null
grep -q "file=libxml2.* dynamically loaded by" "$TMP/ld.txt" &&
	pass "perfkit oa list loads libxml2 when it reads a metric file" || fail "perfkit oa list loads libxml2 when it reads a metric file"
# a folder without metric files (sorting no names was undefined behaviour, caught under UBSan)
mkdir -p "$TMP/no-metrics"
"$PERFKIT" oa list --sys-root "$TMP/nosys" --metrics-dir "$TMP/no-metrics" >"$TMP/none.txt" 2>&1
is "$?" 0 "oa list with an empty metrics folder exits 0"
grep -q "no metric files (oa-\*.xml) in $TMP/no-metrics" "$TMP/none.txt" &&
	pass "oa list says the metrics folder has no metric files" ||
	fail "oa list says the metrics folder has no metric files" "$(cat "$TMP/none.txt")"
done_testing
