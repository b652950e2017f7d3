#!/usr/bin/env bash
# perfkit gpu on fixture /proc and /sys trees (gpu-lib.bash): an i915 and an
# xe PCI device and five clients whose counters change between two scans.
# The JSON of `gpu --json -n 2` is checked against numbers computed by hand
# from the fixture: engine ns over the client's measured interval and
# capacity (2 for i915 video), xe cycles over total cycles (capacity 4, no
# wall clock), cycles over maxfreq (MHz, KHz, Hz), memory in bytes from
# KiB/MiB/GiB, a client shared by two processes counted once, one client id
# on two devices being two clients, and a counter dip (busy 0, the larger
# value kept). Then `gpu record` with the same change and `gpu report
# --json` against the recorded per-fd read times; CSV, plain text, the
# ncurses view under script(1), an empty tree, unreadable processes (as
# nobody), a corrupt recording, usage errors and `gpu record -- CMD`.
. "$(dirname "$0")/tap-lib.bash"
. "$(dirname "$0")/gpu-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
"$PERFKIT" gpu --help >/dev/null 2>&1 || skip_all "this perfkit has no gpu command"
perl -MJSON::PP -e 1 2>/dev/null || skip_all "perl JSON::PP is missing"
chmod 755 "$TMP"   # the unreadable-process test runs perfkit as nobody

T=$TMP/t
MiB=1048576

# fdinfo_set DIR PID FD: replace an fdinfo text (stdin) at once, so that a scan
# never reads half a file
fdinfo_set() {
	cat >"$1/proc/$2/fdinfo/$3.new" && mv -f "$1/proc/$2/fdinfo/$3.new" "$1/proc/$2/fdinfo/$3"
}

# scan1 DIR / scan2 DIR: the fdinfo texts of the two scans
scan1() {
	local d=$1
	# glxgears: i915 client 7; render ns, video with capacity 2, memory in MiB and KiB
	printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1045\ndrm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t1000000000 ns\ndrm-engine-copy:\t0 ns\ndrm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\ndrm-total-system0:\t4 MiB\ndrm-resident-system0:\t2048 KiB\n' |
		fdinfo_set "$d" 100 5
	# worker and its child share i915 client 9 (fork); render dips in scan 2
	for p in 200 201; do
		printf 'drm-driver:\ti915\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t5000000000 ns\ndrm-engine-copy:\t0 ns\n' |
			fdinfo_set "$d" "$p" 4
	done
	# xe-app: xe client 7 (the same id as glxgears' on the other device)
	printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\txe\ndrm-client-id:\t7\ndrm-pdev:\t0000:03:00.0\ndrm-cycles-rcs:\t1000\ndrm-total-cycles-rcs:\t1000000\ndrm-cycles-ccs:\t0\ndrm-total-cycles-ccs:\t1000000\ndrm-engine-capacity-ccs:\t4\ndrm-total-vram0:\t256 MiB\ndrm-resident-vram0:\t1048576\ndrm-total-gtt:\t64 KiB\n' |
		fdinfo_set "$d" 300 6
	# panfrost and msm (platform devices, no pdev): cycles and maxfreq only
	printf 'drm-driver:\tpanfrost\ndrm-client-id:\t1\ndrm-cycles-fragment:\t0\ndrm-maxfreq-fragment:\t800 MHz\ndrm-cycles-vertex-tiler:\t0\ndrm-maxfreq-vertex-tiler:\t500000 KHz\n' |
		fdinfo_set "$d" 400 3
	printf 'drm-driver:\tmsm\ndrm-client-id:\t2\ndrm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t600000000 Hz\n' |
		fdinfo_set "$d" 500 3
}
scan2() {
	local d=$1
	printf 'pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1045\ndrm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t1250000000 ns\ndrm-engine-copy:\t0 ns\ndrm-engine-video:\t600000000 ns\ndrm-engine-capacity-video:\t2\ndrm-total-system0:\t8 MiB\ndrm-resident-system0:\t1 GiB\n' |
		fdinfo_set "$d" 100 5
	for p in 200 201; do
		printf 'drm-driver:\ti915\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\ndrm-engine-render:\t4000000000 ns\ndrm-engine-copy:\t100000000 ns\n' |
			fdinfo_set "$d" "$p" 4
	done
	printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\txe\ndrm-client-id:\t7\ndrm-pdev:\t0000:03:00.0\ndrm-cycles-rcs:\t301000\ndrm-total-cycles-rcs:\t2000000\ndrm-cycles-ccs:\t2000000\ndrm-total-cycles-ccs:\t2000000\ndrm-engine-capacity-ccs:\t4\ndrm-total-vram0:\t256 MiB\ndrm-resident-vram0:\t1048576\ndrm-total-gtt:\t64 KiB\n' |
		fdinfo_set "$d" 300 6
	printf 'drm-driver:\tpanfrost\ndrm-client-id:\t1\ndrm-cycles-fragment:\t200000000\ndrm-maxfreq-fragment:\t800 MHz\ndrm-cycles-vertex-tiler:\t50000000\ndrm-maxfreq-vertex-tiler:\t500000 KHz\n' |
		fdinfo_set "$d" 400 3
	printf 'drm-driver:\tmsm\ndrm-client-id:\t2\ndrm-cycles-gpu:\t300000000\ndrm-maxfreq-gpu:\t600000000 Hz\n' |
		fdinfo_set "$d" 500 3
}

# make_tree DIR: the devices, the processes and their fds, in the scan-1 state
make_tree() {
	local d=$1
	gpu_tree "$d"
	gpu_pci_dev "$d" 0000:00:02.0 i915 0x8086 0x46a6 card0 renderD128
	gpu_pci_dev "$d" 0000:03:00.0 xe 0x8086 0x56a0 card1 renderD129
	gpu_proc "$d" 1 init 0
	gpu_other_fds "$d" 1 3
	gpu_proc "$d" 100 glxgears
	gpu_other_fds "$d" 100 3
	gpu_fd "$d" 100 5 /dev/dri/renderD128 </dev/null
	gpu_proc "$d" 200 worker
	gpu_fd "$d" 200 4 /dev/dri/renderD128 </dev/null
	gpu_proc "$d" 201 worker-child 200
	gpu_fd "$d" 201 4 /dev/dri/renderD128 </dev/null
	gpu_proc "$d" 300 xe-app
	gpu_fd "$d" 300 6 /dev/dri/renderD129 </dev/null
	gpu_proc "$d" 400 panfrost-app
	gpu_fd "$d" 400 3 /dev/dri/renderD130 </dev/null
	gpu_proc "$d" 500 msm-app
	gpu_fd "$d" 500 3 /dev/dri/renderD131 </dev/null
	scan1 "$d"
}

# jcheck FILE N EXPR NAME: perl EXPR is true for the N-th JSON line of FILE
# ($j is that object; client(DRIVER, ID) and proc(PID) find a client or process;
# near(A, B) compares floating values)
jperl() {
	perl -MJSON::PP -e '
		my ($file, $n, $expr) = @ARGV;
		open my $fh, "<", $file or die "$file: $!";
		my @lines = grep { /\S/ } <$fh>;
		die "no line $n in $file\n" unless defined $lines[$n - 1];
		our $j = JSON::PP->new->decode($lines[$n - 1]);
		sub client { my ($drv, $id) = @_;
			my @c = grep { $_->{driver} eq $drv && defined $_->{client_id} && $_->{client_id} == $id } @{$j->{clients}};
			return @c == 1 ? $c[0] : undef; }
		sub proc { my ($pid) = @_; my @p = grep { $_->{pid} == $pid } @{$j->{processes}}; return $p[0]; }
		sub near { my ($a, $b) = @_; return defined $a && defined $b && abs($a - $b) <= 1e-6 * (abs($b) > 1 ? abs($b) : 1); }
		my $v = eval $expr;
		die "$expr: $@" if $@;
		print defined $v ? $v : "null";
	' "$@"
}
jcheck() {
	local got
	got=$(jperl "$1" "$2" "$3" 2>&1)
	if [ "$got" = 1 ]; then pass "$4"; else fail "$4" "$3 -> '$got'"; fi
}
# jval FILE N EXPR: the value of EXPR (null when undefined)
jval() { jperl "$@" 2>&1; }

# wait_lines FILE N: wait (up to 10 s) until FILE has N lines
wait_lines() {
	local i
	for i in $(seq 200); do
		[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

make_tree "$T"
ROOTS=(--proc-root "$T/proc" --sys-root "$T/sys")

# ---- gpu --json: two scans with the change in between ---------------------------------
"$PERFKIT" gpu -n 2 -d 1 --json "${ROOTS[@]}" >"$TMP/top.json" 2>"$TMP/top.err" &
P=$!
if wait_lines "$TMP/top.json" 1; then
	scan2 "$T"
else
	note "no first JSON line within 10 s"
fi
wait $P
is "$?" 0 "gpu --json -n 2 exits 0"
is "$(grep -c . "$TMP/top.json")" 2 "two JSON lines, one per refresh"
[ -s "$TMP/top.err" ] && note "stderr: $(head -3 "$TMP/top.err")"

F=$TMP/top.json
jcheck "$F" 1 '$j->{seq} == 1 && $j->{interval_ns} == 0' "scan 1: seq 1, no interval"
jcheck "$F" 1 'scalar(@{$j->{devices}}) >= 2 && (grep { $_->{pdev} eq "0000:00:02.0" && $_->{driver} eq "i915" } @{$j->{devices}}) && (grep { $_->{pdev} eq "0000:03:00.0" && $_->{driver} eq "xe" } @{$j->{devices}})' \
	"scan 1: the i915 and xe devices from sysfs"
is "$(jval "$F" 1 'scalar @{$j->{clients}}')" 5 "scan 1: five clients"
jcheck "$F" 1 'my $c = client("i915", 7); $c->{new} && !defined $c->{engines}{render}{busy_pct} && $c->{engines}{render}{ns} == 1000000000' \
	"scan 1: a new client has busy null and its ns"
jcheck "$F" 1 'my $m = client("i915", 7)->{memory}{system0}; $m->{total} == 4194304 && $m->{resident} == 2097152' \
	"scan 1: memory 4 MiB total, 2048 KiB resident in bytes"

is "$(jval "$F" 2 'scalar @{$j->{clients}}')" 5 "scan 2: five clients"
# the interval is measured (CLOCK_MONOTONIC at each read), not the -d asked for:
# it follows the scans' own times (-d 1 apart unless a loaded machine runs one late)
gap=$(( $(jval "$F" 2 '$j->{time_ns}') - $(jval "$F" 1 '$j->{time_ns}') ))
ival=$(jval "$F" 2 'client("i915", 7)->{interval_ns}')
within "$ival" "$gap" 5 "scan 2: the client's interval is the time between the scans ($gap ns)"
jcheck "$F" 2 'my $c = client("i915", 7); !$c->{new} && near($c->{engines}{render}{busy_pct}, 250000000 / $c->{interval_ns} * 100)' \
	"i915 render busy = 250 ms / measured interval"
jcheck "$F" 2 'my $c = client("i915", 7); near($c->{engines}{video}{busy_pct}, 600000000 / $c->{interval_ns} / 2 * 100) && $c->{engines}{video}{capacity} == 2' \
	"i915 video busy = 600 ms / interval / capacity 2"
jcheck "$F" 2 'my $c = client("i915", 7); $c->{engines}{copy}{busy_pct} == 0 && $c->{engines}{render}{basis} eq "ns" && $c->{engines}{render}{ns} == 1250000000' \
	"i915 copy idle: 0 %, basis ns, render ns 1.25 s"
jcheck "$F" 2 'my $m = client("i915", 7)->{memory}{system0}; $m->{total} == 8 * 1048576 && $m->{resident} == 1073741824' \
	"memory 8 MiB and 1 GiB in bytes"
jcheck "$F" 2 'my $c = client("xe", 7); $c->{engines}{rcs}{busy_pct} == 30 && $c->{engines}{rcs}{basis} eq "total-cycles" && $c->{engines}{rcs}{cycles} == 301000 && $c->{engines}{rcs}{total_cycles} == 2000000' \
	"xe rcs busy = 300000 / 1000000 cycles = 30 % exactly"
jcheck "$F" 2 'my $c = client("xe", 7); $c->{engines}{ccs}{busy_pct} == 50 && $c->{engines}{ccs}{capacity} == 4' \
	"xe ccs busy = 2000000 / 1000000 / capacity 4 = 50 % exactly"
jcheck "$F" 2 'my $m = client("xe", 7)->{memory}; $m->{vram0}{total} == 268435456 && $m->{vram0}{resident} == 1048576 && $m->{gtt}{total} == 65536' \
	"xe memory: 256 MiB, bytes, 64 KiB"
jcheck "$F" 2 'my $c = client("panfrost", 1); $c->{engines}{fragment}{maxfreq_hz} == 800000000 && $c->{engines}{"vertex-tiler"}{maxfreq_hz} == 500000000 && client("msm", 2)->{engines}{gpu}{maxfreq_hz} == 600000000' \
	"maxfreq in MHz, KHz and Hz"
jcheck "$F" 2 'my $c = client("panfrost", 1); $c->{engines}{fragment}{basis} eq "maxfreq" && near($c->{engines}{fragment}{busy_pct}, 200000000 / (800000000 * $c->{interval_ns} / 1e9) * 100) && near($c->{engines}{"vertex-tiler"}{busy_pct}, 50000000 / (500000000 * $c->{interval_ns} / 1e9) * 100)' \
	"panfrost busy = cycles / (maxfreq x interval)"
jcheck "$F" 2 'my $c = client("msm", 2); near($c->{engines}{gpu}{busy_pct}, 300000000 / (600000000 * $c->{interval_ns} / 1e9) * 100)' \
	"msm busy = cycles / (maxfreq x interval)"
jcheck "$F" 2 'my $c = client("i915", 9); defined $c && $c->{pid} == 200 && @{$c->{holders}} == 2 && $c->{holders}[0]{pid} == 200 && $c->{holders}[1]{pid} == 201' \
	"a client shared by two processes is one client, at the lower pid, with both holders"
jcheck "$F" 2 'my @c = grep { defined $_->{client_id} && $_->{client_id} == 7 } @{$j->{clients}}; @c == 2 && $c[0]{device} ne $c[1]{device}' \
	"client id 7 on two devices is two clients"
jcheck "$F" 2 'my $c = client("i915", 9); $c->{engines}{render}{busy_pct} == 0 && $c->{engines}{render}{ns} == 5000000000' \
	"a dip: busy 0 and ns stays at the larger value"
jcheck "$F" 2 'my $c = client("i915", 9); near($c->{engines}{copy}{busy_pct}, 100000000 / $c->{interval_ns} * 100)' \
	"the dipping client's other engine still counts"
jcheck "$F" 2 'my $p = proc(201); defined $p && $p->{shared_clients} == 1 && proc(200)->{shared_clients} == 1' \
	"per process: the shared client is counted in both and marked shared"
jcheck "$F" 2 'my ($d) = grep { $_->{pdev} eq "0000:00:02.0" } @{$j->{devices}}; my $a = client("i915", 7)->{engines}{render}{busy_pct}; $d->{clients} == 2 && near($d->{engines}{render}{busy_pct}, $a)' \
	"device i915: two clients, render busy = the sum over its clients"

# ---- gpu record / gpu report ------------------------------------------------------------
scan1 "$T"
R=$TMP/rec.jsonl
# the recorder writes at the end: the change is made between the scans by time (-d 2)
"$PERFKIT" gpu record -n 2 -d 2 -o "$R" "${ROOTS[@]}" 2>"$TMP/rec.err" &
P=$!
sleep 1
scan2 "$T"
wait $P
is "$?" 0 "gpu record -n 2 exits 0"
grep -q "^\[ perfkit gpu record: 2 scans, 12 client samples written to $R \]\$" "$TMP/rec.err" &&
	pass "record's closing line: 2 scans, 12 client samples (DRM fds)" ||
	fail "record's closing line" "$(tail -2 "$TMP/rec.err")"
is "$(grep -c '"type":"scan"' "$R")" 2 "the recording holds two scan lines"

"$PERFKIT" gpu report "$R" --json >"$TMP/rep.json" 2>"$TMP/rep.err"
is "$?" 0 "gpu report --json exits 0"
is "$(grep -c . "$TMP/rep.json")" 3 "two intervals and the summary"
# the per-fd read times of pid 100 fd 5 in the two scans
read -r t1 t2 <<<"$(perl -MJSON::PP -ne 'my $o = decode_json($_); next unless ($o->{type} // "") eq "scan";
	for (@{$o->{fds}}) { print $_->{time_ns}, " " if $_->{pid} == 100 && $_->{fd} == 5 }' "$R")"
if [ -n "$t2" ]; then
	jcheck "$TMP/rep.json" 2 "my \$c = client('i915', 7); \$c->{interval_ns} == $t2 - $t1 && near(\$c->{engines}{render}{busy_pct}, 250000000 / ($t2 - $t1) * 100)" \
		"report: i915 render busy = 250 ms / the recorded read interval"
	jcheck "$TMP/rep.json" 2 "near(client('i915', 7)->{engines}{video}{busy_pct}, 600000000 / ($t2 - $t1) / 2 * 100)" \
		"report: i915 video busy over capacity 2"
else
	fail "report: the recorded per-fd read times" "t1='$t1' t2='$t2'"
	fail "report: i915 video busy over capacity 2"
fi
jcheck "$TMP/rep.json" 2 'client("xe", 7)->{engines}{rcs}{busy_pct} == 30 && client("xe", 7)->{engines}{ccs}{busy_pct} == 50' \
	"report: xe 30 % and 50 % from cycles"
jcheck "$TMP/rep.json" 2 'my $c = client("i915", 9); $c->{engines}{render}{busy_pct} == 0 && $c->{engines}{render}{ns} == 5000000000 && @{$c->{holders}} == 2' \
	"report: the dip and the shared client as live"
# the summary object (gpu.h: {"scans", "duration_ns", "clients"}; accepted inside "summary" too)
jcheck "$TMP/rep.json" 3 'my $s = $j->{summary} // $j; $s->{scans} == 2 && scalar(@{$s->{clients}}) == 5' \
	"summary: 2 scans, 5 clients"
jcheck "$TMP/rep.json" 3 "my \$s = \$j->{summary} // \$j; abs(\$s->{duration_ns} - ($t2 - $t1)) < 0.05 * ($t2 - $t1)" \
	"summary: the duration is the recorded interval"
# sumc DRIVER ID: a summary client
SUMC='sub sumc { my ($d, $id) = @_; my $s = $j->{summary} // $j; my @c = grep { $_->{driver} eq $d && defined $_->{client_id} && $_->{client_id} == $id } @{$s->{clients}}; return @c == 1 ? $c[0] : {} }'
jcheck "$TMP/rep.json" 3 "$SUMC"'; my $e = sumc("i915", 7)->{engines}; $e->{render}{busy_ns} == 250000000 && $e->{video}{busy_ns} == 600000000 && $e->{copy}{busy_ns} == 0' \
	"summary: i915 busy time totals 250 ms render, 600 ms video"
jcheck "$TMP/rep.json" 3 "$SUMC"'; my $e = sumc("i915", 9)->{engines}; $e->{render}{busy_ns} == 0 && $e->{copy}{busy_ns} == 100000000' \
	"summary: the dip adds no render time"
jcheck "$TMP/rep.json" 3 "$SUMC"'; my $e = sumc("xe", 7)->{engines}; $e->{rcs}{busy_cycles} == 300000 && $e->{rcs}{avg_busy_pct} == 30 && $e->{ccs}{peak_busy_pct} == 50' \
	"summary: xe busy cycles, average and peak"
"$PERFKIT" gpu report "$R" >"$TMP/rep.txt" 2>&1
is "$?" 0 "gpu report (text) exits 0"
grep -q glxgears "$TMP/rep.txt" && grep -q xe-app "$TMP/rep.txt" && pass "report text names the clients" ||
	fail "report text names the clients"

# a corrupt line: what was before it is printed, then the error
head -n -1 "$R" >"$TMP/bad.jsonl"
printf '{"type":"scan","time_ns":"x","fds":[' >>"$TMP/bad.jsonl"
printf '\n' >>"$TMP/bad.jsonl"
"$PERFKIT" gpu report "$TMP/bad.jsonl" --json >"$TMP/bad.out" 2>"$TMP/bad.err"
is "$?" 2 "a corrupt recording exits 2"
grep -q "^perfkit: '$TMP/bad.jsonl': .* at offset [0-9][0-9]*" "$TMP/bad.err" &&
	pass "the message names the file and the offset" || fail "corrupt message" "$(cat "$TMP/bad.err")"
is "$(grep -c . "$TMP/bad.out")" 1 "the interval before the corrupt line is printed"
"$PERFKIT" gpu report "$TMP/missing.jsonl" >/dev/null 2>"$TMP/miss.err"
is "$?" 2 "a missing recording exits 2"

# ---- CSV and plain text --------------------------------------------------------------
scan1 "$T"
"$PERFKIT" gpu -n 1 --csv "${ROOTS[@]}" >"$TMP/top.csv" 2>/dev/null
is "$?" 0 "gpu --csv exits 0"
is "$(head -1 "$TMP/top.csv")" \
	"time_ns,interval_ns,pid,comm,driver,pdev,client_id,name,kind,key,busy_pct,ns,cycles,total_cycles,capacity,total,shared,resident,purgeable,active" \
	"CSV header"
is "$(grep -c '^time_ns,' "$TMP/top.csv")" 1 "the CSV header once"
# rows: engines 3 + 2 + 2 + 2 + 1 and regions 1 + 2 (i915 7, i915 9, xe, panfrost, msm)
is "$(tail -n +2 "$TMP/top.csv" | grep -c .)" 13 "one CSV row per client engine and region"
awk -F, '$3 == 100 && $9 == "engine" && $10 == "render" && $12 == 1000000000 && $15 == 1 { f = 1 } END { exit !f }' "$TMP/top.csv" &&
	pass "CSV engine row: pid, kind, key, ns, capacity" || fail "CSV engine row" "$(grep ',render,' "$TMP/top.csv")"
awk -F, '$3 == 300 && $9 == "memory" && $10 == "vram0" && $16 == 268435456 && $18 == 1048576 { f = 1 } END { exit !f }' "$TMP/top.csv" &&
	pass "CSV memory row: total and resident in bytes" || fail "CSV memory row" "$(grep ',vram0,' "$TMP/top.csv")"
"$PERFKIT" gpu -n 2 -d 0.2 --csv "${ROOTS[@]}" >"$TMP/top2.csv" 2>/dev/null
is "$(grep -c '^time_ns,' "$TMP/top2.csv")" 1 "two refreshes: the CSV header still once"

"$PERFKIT" gpu -n 2 -d 0.2 "${ROOTS[@]}" >"$TMP/top.txt" 2>&1
is "$?" 0 "gpu without a terminal exits 0"
grep -q glxgears "$TMP/top.txt" && grep -q worker "$TMP/top.txt" && grep -q xe-app "$TMP/top.txt" &&
	pass "plain text has the client rows" || fail "plain text has the client rows" "$(head -20 "$TMP/top.txt")"
grep -q '^$' "$TMP/top.txt" && pass "refreshes separated by a blank line" || fail "refreshes separated by a blank line"

# ---- the ncurses view ------------------------------------------------------------------
if command -v script >/dev/null 2>&1; then
	TERM=xterm script -qefc "$PERFKIT gpu -n 2 -d 0.3 --proc-root $T/proc --sys-root $T/sys" /dev/null \
		</dev/null >"$TMP/tty.out" 2>&1
	is "$?" 0 "the full-screen view exits 0 after -n 2"
	grep -q glxgears "$TMP/tty.out" && pass "the full-screen view shows a client's comm" ||
		fail "the full-screen view shows a client's comm" "$(head -c 300 "$TMP/tty.out" | od -c | head)"
	grep -q 'q quit' "$TMP/tty.out" && pass "the full-screen view has the key line" ||
		fail "the full-screen view has the key line"
else
	skip "script(1) is not installed: no terminal to test the view"
	skip "script(1) is not installed"
	skip "script(1) is not installed"
fi

# ---- no GPU ---------------------------------------------------------------------------
E=$TMP/empty
gpu_tree "$E"
gpu_proc "$E" 1 init 0
gpu_other_fds "$E" 1 3
"$PERFKIT" gpu -n 3 --proc-root "$E/proc" --sys-root "$E/sys" >"$TMP/empty.out" 2>"$TMP/empty.err"
is "$?" 0 "no device and no client: exit 0"
is "$(cat "$TMP/empty.err")" "perfkit: no DRM devices under $E/sys/class/drm and no GPU clients in $E/proc" \
	"no device and no client: the message"
"$PERFKIT" gpu -n 3 --json --proc-root "$E/proc" --sys-root "$E/sys" >"$TMP/empty.json" 2>/dev/null
is "$?" 0 "no GPU with --json: exit 0"
jcheck "$TMP/empty.json" 1 'scalar(@{$j->{clients}}) == 0 && scalar(@{$j->{devices}}) == 0' \
	"no GPU with --json: one empty snapshot is printed"
is "$(grep -c . "$TMP/empty.json")" 1 "no GPU with --json: only that one"

# ---- unreadable processes (as nobody) ----------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "not root (or no setpriv): cannot run perfkit as nobody"
	skip "not root"
else
	U=$TMP/unreadable
	make_tree "$U"
	gpu_proc "$U" 600 secret
	gpu_fd "$U" 600 3 /dev/dri/renderD128 <<<$'drm-driver:\ti915\ndrm-client-id:\t42\ndrm-pdev:\t0000:00:02.0\n'
	chmod -R a+rX "$U"
	chmod 0700 "$U/proc/600/fd" "$U/proc/600/fdinfo"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PERFKIT" gpu -n 1 --stdio \
		--proc-root "$U/proc" --sys-root "$U/sys" >"$TMP/unr.out" 2>"$TMP/unr.err"
	is "$?" 0 "unreadable processes are not an error"
	grep -qx 'perfkit: 1 process\(es\)\? not readable: run as root or with CAP_SYS_PTRACE' "$TMP/unr.err" &&
		pass "the unreadable count on stderr" || fail "the unreadable count on stderr" "$(cat "$TMP/unr.err")"
fi

# ---- gpu record -- CMD ----------------------------------------------------------------------
start=$(date +%s%N)
"$PERFKIT" gpu record -d 1 -o "$TMP/cmd.jsonl" -- sh -c 'sleep 0.3' 2>"$TMP/cmd.err"
st=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
is "$st" 0 "gpu record -- sh -c 'sleep 0.3' exits 0"
[ "$elapsed" -lt 900 ] && pass "it stops when the command ends (${elapsed} ms)" ||
	fail "it stops when the command ends" "${elapsed} ms"
"$PERFKIT" gpu report "$TMP/cmd.jsonl" --json >"$TMP/cmd.rep" 2>"$TMP/cmd.rep.err"
is "$?" 0 "that recording is valid"
jcheck "$TMP/cmd.rep" "$(grep -c . "$TMP/cmd.rep")" '($j->{summary} // $j)->{scans} >= 1' "that recording has at least one scan"
"$PERFKIT" gpu record -o "$TMP/cmd3.jsonl" -- sh -c 'exit 3' 2>/dev/null
is "$?" 3 "gpu record exits with the command's status"
"$PERFKIT" gpu record -o "$TMP/cmd4.jsonl" -- /nonexistent/command 2>"$TMP/cmd4.err"
is "$?" 127 "a command that cannot run: 127"

# ---- usage errors ---------------------------------------------------------------------------
usage_error() { # usage_error PATTERN ARGS...
	local pat=$1
	shift
	"$PERFKIT" "$@" >/dev/null 2>"$TMP/usage.err"
	local st=$?
	if [ "$st" -eq 2 ] && grep -q "^perfkit: $pat" "$TMP/usage.err"; then
		pass "usage error: $*"
	else
		fail "usage error: $*" "status $st: $(head -2 "$TMP/usage.err")"
	fi
}
usage_error "invalid value '0' for -d" gpu -d 0
usage_error "invalid value 'x' for -n" gpu -n x
usage_error "invalid value '-3' for -p" gpu -p -3
usage_error "unknown option '--bogus'" gpu --bogus
usage_error "option '-d' requires a value" gpu -d
usage_error "option '--proc-root' requires a value" gpu --proc-root
usage_error "--json and --csv cannot be given together" gpu --json --csv
usage_error "unknown gpu command 'frob'" gpu frob
usage_error "unexpected argument 'extra'" gpu top extra
usage_error "invalid value 'x' for -d" gpu record -d x
usage_error "no recording given" gpu report
usage_error "unexpected argument 'b'" gpu report a b
"$PERFKIT" gpu --help >"$TMP/help" 2>&1
is "$?" 0 "gpu --help exits 0"
grep -q 'perfkit gpu record' "$TMP/help" && pass "help lists the gpu verbs" || fail "help lists the gpu verbs"

done_testing
