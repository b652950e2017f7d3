#!/bin/bash
# perfkit gpu serve: the Prometheus endpoint over a fixture /proc and /sys
# (an i915 iGPU with card0/renderD128 in sysfs, one i915 client shared by a
# parent and its child, one amdgpu client of a device known only from
# fdinfo). Checks the HTTP answers (200 with the exposition content type,
# HEAD, 404, 405, 400, 431, a silent client dropped, a client that hangs up),
# that series values equal the fixture's numbers, that promtool accepts the
# body, and that a real Prometheus scraping the endpoint stores the series
# with the right labels and values (queried over its HTTP API, checked with
# JSON::PP). SIGTERM stops the server with status 0.
. "$(dirname "$0")/tap-lib.bash"
. "$(dirname "$0")/gpu-lib.bash"

for tool in curl promtool prometheus perl; do
	command -v "$tool" >/dev/null 2>&1 || skip_all "$tool is not installed"
done
perl -MJSON::PP -e 1 2>/dev/null || skip_all "perl lacks JSON::PP"
"$PERFKIT" gpu serve --help >/dev/null 2>&1 || skip_all "perfkit gpu serve is not available"

SERVE_PID=
PROM_PID=
cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && wait "$SERVE_PID" 2>/dev/null
	[ -n "$PROM_PID" ] && wait "$PROM_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# ---- the fixture ------------------------------------------------------------------

T=$TMP/tree
gpu_tree "$T"
gpu_pci_dev "$T" 0000:00:02.0 i915 0x8086 0x46a6 card0 renderD128

gpu_proc "$T" 1234 glxgears
gpu_other_fds "$T" 1234 3
gpu_fd "$T" 1234 3 /dev/dri/renderD128 <<'EOF'
pos:	0
flags:	02100002
mnt_id:	26
ino:	284
drm-driver:	i915
drm-client-id:	39
drm-pdev:	0000:00:02.0
drm-total-system0:	6044 KiB
drm-shared-system0:	0
drm-active-system0:	0
drm-resident-system0:	6044 KiB
drm-purgeable-system0:	1688 KiB
drm-engine-render:	1234567890 ns
drm-engine-copy:	0 ns
drm-engine-video:	5000000 ns
drm-engine-capacity-video:	2
drm-engine-video-enhance:	0 ns
EOF
# a child holding the same client (fork): counted once, under the lowest pid
gpu_proc "$T" 1240 glxgears 1234
gpu_fd "$T" 1240 4 /dev/dri/renderD128 <"$T/proc/1234/fdinfo/3"

gpu_proc "$T" 2345 vkcube
gpu_other_fds "$T" 2345 3
gpu_fd "$T" 2345 5 /dev/dri/renderD129 <<'EOF'
pos:	0
flags:	02100002
mnt_id:	24
ino:	1204
drm-driver:	amdgpu
drm-client-id:	30
drm-pdev:	0000:03:00.0
pasid:	32785
drm-total-gtt:	22 MiB
drm-shared-gtt:	0
drm-resident-gtt:	22 MiB
drm-memory-vram:	544428 KiB
drm-memory-gtt: 	22528 KiB
amd-evicted-vram:	0 KiB
drm-engine-gfx:	39456116802 ns
EOF

# ---- the server -------------------------------------------------------------------

"$PERFKIT" gpu serve --listen 127.0.0.1:0 --proc-root "$T/proc" --sys-root "$T/sys" \
	2>"$TMP/serve.err" &
SERVE_PID=$!
PORT=
for _ in $(seq 100); do
	PORT=$(sed -n 's|^perfkit gpu serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/metrics$|\1|p' \
		"$TMP/serve.err")
	[ -n "$PORT" ] && break
	kill -0 "$SERVE_PID" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$PORT" ]; then
	fail "serve says where it listens"
	note "$(cat "$TMP/serve.err")"
	done_testing
	exit 1
fi
pass "serve says where it listens (port $PORT)"
URL=http://127.0.0.1:$PORT

code=$(curl -s -o "$TMP/body" -D "$TMP/head" -w '%{http_code}' "$URL/metrics?x=1")
is "$code" 200 "GET /metrics (query string ignored) is 200"
grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$TMP/head"
ok $? "content type of the exposition format 0.0.4"
len=$(sed -n 's/^[Cc]ontent-[Ll]ength: *\([0-9]*\).*/\1/p' "$TMP/head")
is "$len" "$(wc -c <"$TMP/body" | tr -d ' ')" "Content-Length is the body's size"
grep -qi '^connection: close' "$TMP/head"
ok $? "Connection: close"

# metric NAME LABELS: the value of the series NAME{LABELS}
metric() { awk -v k="$1{$2}" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' "$TMP/body"; }
I915='device="0000:00:02.0",driver="i915",pid="1234",comm="glxgears",client_id="39"'
AMD='device="0000:03:00.0",driver="amdgpu",pid="2345",comm="vkcube",client_id="30"'
is "$(metric perfkit_gpu_engine_busy_seconds_total "$I915,engine=\"render\"")" 1.234567890 \
	"render busy seconds = 1234567890 ns / 1e9"
is "$(metric perfkit_gpu_engine_busy_seconds_total "$I915,engine=\"video\"")" 0.005000000 \
	"video busy seconds"
is "$(metric perfkit_gpu_engine_capacity "$I915,engine=\"video\"")" 2 "video capacity 2"
is "$(metric perfkit_gpu_engine_capacity "$I915,engine=\"render\"")" 1 "render capacity 1 when absent"
is "$(metric perfkit_gpu_engine_busy_seconds_total "$AMD,engine=\"gfx\"")" 39.456116802 \
	"amdgpu gfx busy seconds"
is "$(metric perfkit_gpu_memory_resident_bytes "$I915,region=\"system0\"")" 6189056 \
	"resident bytes from 6044 KiB"
is "$(metric perfkit_gpu_memory_purgeable_bytes "$I915,region=\"system0\"")" 1728512 \
	"purgeable bytes from 1688 KiB"
is "$(metric perfkit_gpu_memory_shared_bytes "$I915,region=\"system0\"")" 0 "shared bytes 0"
is "$(metric perfkit_gpu_memory_resident_bytes "$AMD,region=\"vram\"")" 557494272 \
	"resident from the legacy drm-memory-vram (544428 KiB)"
is "$(metric perfkit_gpu_memory_total_bytes "$AMD,region=\"gtt\"")" 23068672 "total gtt from 22 MiB"
is "$(metric perfkit_gpu_memory_total_bytes "$AMD,region=\"vram\"")" "" \
	"no total series for a region without drm-total"
is "$(grep -c '^perfkit_gpu_engine_busy_seconds_total{.*client_id="39"' "$TMP/body")" 4 \
	"the client shared by parent and child is one set of series"
grep -q 'pid="1240"' "$TMP/body"
ok $((!$?)) "no series under the child's pid"
is "$(metric perfkit_gpu_clients 'device="0000:00:02.0",driver="i915"')" 1 "clients of the iGPU"
is "$(metric perfkit_gpu_drm_fds '' | head -1)" "" "drm_fds has no labels"
is "$(awk '$1 == "perfkit_gpu_drm_fds" { print $2 }' "$TMP/body")" 3 "three DRM fds"
is "$(awk '$1 == "perfkit_gpu_processes_unreadable" { print $2 }' "$TMP/body")" 0 \
	"no unreadable process"
is "$(grep -c '^# TYPE perfkit_gpu_engine_busy_seconds_total counter$' "$TMP/body")" 1 \
	"busy seconds is a counter"
is "$(grep -c '^# TYPE perfkit_gpu_memory_resident_bytes gauge$' "$TMP/body")" 1 \
	"resident bytes is a gauge"

promtool check metrics <"$TMP/body" >"$TMP/promtool.out" 2>&1
rc=$?
ok $rc "promtool check metrics accepts the body"
[ $rc -ne 0 ] && note "$(cat "$TMP/promtool.out")"

# ---- other requests -----------------------------------------------------------------

is "$(curl -s -o /dev/null -w '%{http_code}' "$URL/")" 404 "GET / is 404"
is "$(curl -s -o /dev/null -w '%{http_code}' "$URL/metricsx")" 404 "GET /metricsx is 404"
code=$(curl -s -o /dev/null -D "$TMP/head405" -w '%{http_code}' -X POST -d 'a=1' "$URL/metrics")
is "$code" 405 "POST /metrics is 405"
grep -qi '^allow: GET, HEAD' "$TMP/head405"
ok $? "405 says which methods are allowed"
code=$(curl -s -o "$TMP/headbody" -w '%{http_code}' -I "$URL/metrics")
is "$code" 200 "HEAD /metrics is 200"
grep -qi '^content-length: [1-9]' "$TMP/headbody" && ! grep -q '^perfkit_gpu' "$TMP/headbody"
ok $? "HEAD has the length but no body"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" \
	"$URL/metrics")
is "$code" 431 "a request head over 8 KiB is 431"

# raw requests through bash's /dev/tcp
raw() { # raw REQUEST-TEXT: print the status line of the answer
	local line
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" || return 1
	printf '%b' "$1" >&3
	IFS= read -r -t 10 line <&3
	exec 3<&- 3>&-
	printf '%s\n' "${line%$'\r'}"
}
is "$(raw 'garbage\r\n\r\n')" "HTTP/1.1 400 Bad Request" "a malformed request line is 400"
is "$(raw 'GET /metrics HTTP/1.0\n\n')" "HTTP/1.1 200 OK" "bare LF line ends and HTTP/1.0 are accepted"

# a client that asks and hangs up before reading: no SIGPIPE for the server
for _ in 1 2 3; do
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" && printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >&3
	exec 3<&- 3>&-
done
sleep 0.3
kill -0 "$SERVE_PID" 2>/dev/null
ok $? "still serving after clients hung up"

# a client that sends nothing is dropped after 5 s; the next one is answered
exec 4<>"/dev/tcp/127.0.0.1/$PORT"
start=$(date +%s.%N)
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 15 "$URL/metrics")
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
exec 4<&- 4>&-
is "$code" 200 "answered after a silent client (waited ${took}s)"
awk -v t="$took" 'BEGIN { exit !(t >= 4 && t < 8) }'
ok $? "the silent client was dropped after about 5 s"

# ---- a real Prometheus ------------------------------------------------------------------

port_free() { ! (exec 5<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PROM_PORT=
for p in $(seq 19090 19190); do
	[ "$p" = "$PORT" ] && continue
	if port_free "$p"; then PROM_PORT=$p; break; fi
done
if [ -z "$PROM_PORT" ]; then
	skip "no free port for Prometheus in 19090-19190"
else
	cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: perfkit
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prometheus.log" 2>&1 &
	PROM_PID=$!
	PROM=http://127.0.0.1:$PROM_PORT

	# query EXPR: the API's JSON answer for an instant query
	query() { curl -s --max-time 5 --get --data-urlencode "query=$1" "$PROM/api/v1/query"; }
	# nresults JSON: the number of series in an answer (-1 if it is not a success)
	nresults() {
		perl -MJSON::PP -e 'local $/; my $j = eval { decode_json(<STDIN>) };
			print(($j && $j->{status} eq "success") ? scalar @{$j->{data}{result}} : -1)'
	}
	got=0
	for _ in $(seq 60); do
		got=$(query perfkit_gpu_memory_resident_bytes | nresults)
		[ "$got" = 3 ] && break
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.5
	done
	is "$got" 3 "Prometheus scraped the three resident-memory series"
	if [ "$got" != 3 ]; then
		note "$(tail -5 "$TMP/prometheus.log")"
	fi
	query perfkit_gpu_memory_resident_bytes >"$TMP/resident.json"
	perl -MJSON::PP -e '
		local $/; my $j = decode_json(<STDIN>); my %want = (
			"0000:00:02.0|i915|1234|glxgears|39|system0" => 6189056,
			"0000:03:00.0|amdgpu|2345|vkcube|30|vram" => 557494272,
			"0000:03:00.0|amdgpu|2345|vkcube|30|gtt" => 23068672);
		my $bad = 0;
		for my $r (@{$j->{data}{result}}) {
			my $m = $r->{metric};
			my $k = join "|", map { $m->{$_} // "" } qw(device driver pid comm client_id region);
			if (!exists $want{$k}) { print "# unexpected series $k\n"; $bad++; next }
			if ($r->{value}[1] != $want{$k}) { print "# $k: $r->{value}[1] != $want{$k}\n"; $bad++ }
			if ($m->{job} ne "perfkit") { print "# $k: job $m->{job}\n"; $bad++ }
			delete $want{$k};
		}
		print "# missing $_\n" for keys %want;
		exit($bad + keys %want ? 1 : 0);' <"$TMP/resident.json"
	ok $? "Prometheus has the labels and byte values of the fixture"

	query 'perfkit_gpu_engine_busy_seconds_total{engine="render"}' >"$TMP/busy.json"
	perl -MJSON::PP -e '
		local $/; my $j = decode_json(<STDIN>); my $r = $j->{data}{result};
		exit !(@$r == 1 && $r->[0]{metric}{client_id} eq "39" &&
		       abs($r->[0]{value}[1] - 1.23456789) < 1e-12);' <"$TMP/busy.json"
	ok $? "Prometheus has the render busy seconds (1.23456789)"

	query 'up{job="perfkit"}' >"$TMP/up.json"
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $r = $j->{data}{result};
		exit !(@$r == 1 && $r->[0]{value}[1] eq "1");' <"$TMP/up.json"
	ok $? "the scrape target is up"
fi

# ---- stopping ----------------------------------------------------------------------------

kill -TERM "$SERVE_PID"
rc=
for _ in $(seq 50); do
	if ! kill -0 "$SERVE_PID" 2>/dev/null; then
		wait "$SERVE_PID"
		rc=$?
		break
	fi
	sleep 0.1
done
SERVE_PID=
is "$rc" 0 "SIGTERM stops the server with status 0 within 5 s"

# a bind failure is a usage error with the reason
"$PERFKIT" gpu serve --listen 256.1.1.1:80 --proc-root "$T/proc" --sys-root "$T/sys" 2>"$TMP/bad.err"
is "$?" 2 "an invalid address exits 2"
grep -q "^perfkit: '256.1.1.1:80': invalid listen address" "$TMP/bad.err"
ok $? "and says why"
if [ -n "$PROM_PORT" ] && ! port_free "$PROM_PORT"; then
	"$PERFKIT" gpu serve --listen "127.0.0.1:$PROM_PORT" --proc-root "$T/proc" \
		--sys-root "$T/sys" 2>"$TMP/busy.err"
	is "$?" 2 "a port in use exits 2"
	grep -q "cannot listen: Address already in use" "$TMP/busy.err"
	ok $? "and says the address is in use"
fi
"$PERFKIT" gpu serve --proc-root "$T/proc" 2>"$TMP/nolisten.err"
is "$?" 2 "--listen is required"

# IPv6 loopback, where the machine has it
"$PERFKIT" gpu serve --listen '[::1]:0' --proc-root "$T/proc" --sys-root "$T/sys" \
	2>"$TMP/serve6.err" &
SERVE_PID=$!
PORT6=
for _ in $(seq 50); do
	PORT6=$(sed -n 's|^perfkit gpu serve: listening on http://\[::1\]:\([0-9][0-9]*\)/metrics$|\1|p' \
		"$TMP/serve6.err")
	[ -n "$PORT6" ] && break
	kill -0 "$SERVE_PID" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$PORT6" ]; then
	code=$(curl -s -o "$TMP/body6" -w '%{http_code}' "http://[::1]:$PORT6/metrics")
	is "$code" 200 "[::1]: GET /metrics is 200"
	cmp -s "$TMP/body" "$TMP/body6"
	ok $? "[::1]: the same exposition"
elif grep -q "cannot listen" "$TMP/serve6.err"; then
	skip "no IPv6 loopback here"
else
	fail "[::1]: serve says where it listens" "$(cat "$TMP/serve6.err")"
fi
kill "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=

done_testing
