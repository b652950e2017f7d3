#!/usr/bin/env bash
# Hardware-event paths against perf, on a fake PMU: pk-fake-pmu.so, preloaded
# into both tools, opens hardware events (as cpu-clock) up to precise_ip
# $PK_FAKE_PMU_MAX_PRECISE, refuses higher ones with EOPNOTSUPP as x86 does,
# and logs each open's attr bits. Checked against perf 6.1:
#  - the attr bits of modifiers (u k h G H I p P S D, groups) in stat;
#  - record's default event and :P start at precise_ip 3 and step down to the
#    PMU's level; stat counts :P at the p's level; explicit p's are refused;
#  - record's read formats and pinned bits for S and D groups (files perf reads);
#  - stat's output of hardware events in every form and aggregation: metric
#    formats, perf's second line (stalled cycles per insn), row order.
. "$(dirname "$0")/tap-lib.bash"
: "${PK_FAKE_PMU:=build/tests/pk-fake-pmu.so}"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
[ -f "$PK_FAKE_PMU" ] || skip_all "$PK_FAKE_PMU not built"
have_perf || skip_all "Linux perf not usable here"
W="$PK_WORKLOAD"
FAKE=$(cd "$(dirname "$PK_FAKE_PMU")" && pwd)/$(basename "$PK_FAKE_PMU")

# fake LEVEL CMD...: CMD on a PMU whose highest precision is LEVEL (an ASan
# build of perfkit takes a preloaded library only when told to)
fake() {
	local level=$1
	shift
	PK_FAKE_PMU_MAX_PRECISE=$level LD_PRELOAD=$FAKE \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
# attrs FILE [FIELD...]: per event, its name and the named fields as perf reads them
attrs() {
	local f=$1
	shift
	perf evlist -v -i "$f" 2>&1 | awk -v fields="precise_ip exclude_guest $*" '
		BEGIN { n = split(fields, want, " ") }
		{
			name = $0; sub(/: (type|size): .*/, "", name); line = name
			for (i = 1; i <= n; i++) {
				v = 0
				if (match($0, want[i] ": [A-Z|0-9]+")) v = substr($0, RSTART + length(want[i]) + 2, RLENGTH - length(want[i]) - 2)
				line = line " " want[i] "=" v
			}
			print line
		}'
}
# same_attrs NAME WANT GOT
same_attrs() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$3', want '$2'"; fi
}

fake 0 perf stat -x, -e cycles -o "$TMP/probe" -- true >/dev/null 2>&1
grep -Eq '^[0-9]+,,cycles,' "$TMP/probe" || skip_all "perf does not take the fake PMU here"

# stat: the attr bits each modifier gives, as the fake PMU saw them opened
for spec in cycles cycles:u cycles:k cycles:h cycles:uk cycles:G cycles:H cycles:GH cycles:Gu \
	cycles:I cycles:p cycles:pp cycles:pup cycles:P cycles:D '{cycles,instructions}:u' \
	'{cycles:p,instructions}:pp' '{cycles:k,instructions}:P' '{cycles:H,instructions}:G' \
	'{cycles:u,instructions}:p' '{cycles:G,instructions}:u' '{cycles,instructions}:D' \
	cycles:S '{cycles:S,instructions}:k'; do
	for t in perf "$PERFKIT"; do
		rm -f "$TMP/log"
		PK_FAKE_PMU_LOG="$TMP/log" fake 3 "$t" stat -x, -e "$spec" -o /dev/null -- true >/dev/null 2>&1
		tr '\n' ' ' <"$TMP/log" >"$TMP/log.$(basename "$t")" 2>/dev/null
	done
	same_attrs "stat $spec: perf's attr bits" "$(cat "$TMP/log.perf")" "$(cat "$TMP/log.perfkit")"
done

# record: the default event and :P, on PMUs of each precision
for level in 0 1 2 3; do
	for ev in default cycles:P '{cycles,instructions}:P'; do
		args=(); [ "$ev" = default ] || args=(-e "$ev")
		fake $level perf record -q "${args[@]}" -o "$TMP/perf.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
		fake $level "$PERFKIT" record -q "${args[@]}" -o "$TMP/pk.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
		want=$(attrs "$TMP/perf.data")
		got=$(attrs "$TMP/pk.data")
		# perf 6.1 drops the group's modifiers from member names; perfkit keeps them
		[ "$ev" = default ] || [ "$ev" = cycles:P ] || got=$(echo "$got" | sed 's/:P / /')
		same_attrs "record $ev, PMU precision $level: perf's precise_ip ($(echo $want | tr '\n' ' '))" "$want" "$got"
	done
done
fake 1 "$PERFKIT" record -q -e cycles:P -o "$TMP/pk1.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
is "$(attrs "$TMP/pk1.data")" "cycles:P precise_ip=1 exclude_guest=0" "record cycles:P on a precision-1 PMU: precise_ip 1"

# an explicit level above the PMU's is refused, not lowered
fake 1 perf record -q -e cycles:pp -o "$TMP/perf.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
perf_rc=$?
fake 1 "$PERFKIT" record -q -e cycles:pp -o "$TMP/pk.data" -- "$W" --spin-ms 20 >/dev/null 2>"$TMP/err"
pk_rc=$?
[ $perf_rc -ne 0 ] && [ $pk_rc -ne 0 ]; ok $? "record cycles:pp on a precision-1 PMU fails in both (perf $perf_rc, perfkit $pk_rc)"
grep -q "cycles:pp.*Operation not supported" "$TMP/err"; ok $? "and perfkit says the event is not supported"

# stat on a precision-1 PMU: the levels opened and the rows counted
EVS='cycles:P,cycles:ppP,instructions:pp,branches:pP'
for t in perf "$PERFKIT"; do
	rm -f "$TMP/log"
	PK_FAKE_PMU_LOG="$TMP/log" fake 1 "$t" stat -x, -e "$EVS" -o "$TMP/stat" -- true >/dev/null 2>&1
	cp "$TMP/log" "$TMP/log.$(basename "$t")"
	awk -F, '$3 != "" && !/^#/ { print $3, ($1 ~ /^[0-9]+$/ ? "counted" : $1) }' "$TMP/stat" >"$TMP/rows.$(basename "$t")"
done
same_attrs "stat $EVS on a precision-1 PMU: perf's opens" "$(cat "$TMP/log.perf")" "$(cat "$TMP/log.perfkit")"
same_attrs "stat $EVS: perf's counted and <not supported> rows" "$(cat "$TMP/rows.perf")" "$(cat "$TMP/rows.perfkit")"
grep -q '^config=0 precise_ip=1 .* ok$' "$TMP/log.perfkit" && grep -q '^config=0 precise_ip=2 .* EOPNOTSUPP$' "$TMP/log.perfkit"
ok $? "stat steps cycles:ppP from 2 down to 1"

# record with S and D: read formats and pinned bits perf reads back
for ev in '{cycles,instructions}:S' 'cycles:S,instructions' '{cycles,instructions}:D' cycles:D; do
	fake 3 perf record -q -e "$ev" -o "$TMP/perf.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
	fake 3 "$PERFKIT" record -q -e "$ev" -o "$TMP/pk.data" -- "$W" --spin-ms 20 >/dev/null 2>&1
	same_attrs "record $ev: perf reads the file, with perf's read_format, inherit and pinned" \
		"$(attrs "$TMP/perf.data" read_format inherit pinned | sed 's/:[SD] / /')" \
		"$(attrs "$TMP/pk.data" read_format inherit pinned | sed 's/:[SD] / /')"
done
# stat's output with hardware events, in each form and aggregation: the same
# lines as perf's once numbers are masked, the metric column ('#') and the end
# of its value in the same places. Every hardware event counts nanoseconds here, so rates sit near
# 1 G/sec and either prefix may come: the prefix is masked too.
EVS_ALL=task-clock,cycles,instructions,branches,branch-misses,cache-references,cache-misses
# (no software count: -r shows noise only where the runs differ, and page faults may not)
EVS_ALL=$EVS_ALL,stalled-cycles-frontend,stalled-cycles-backend,L1-dcache-loads,L1-dcache-load-misses
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/[KMG]?\/sec/X\/sec/g' "$1"; }
# the metric column's '#' and where its value ends (values are right-aligned there)
hash_at() {
	awk '{ h = index($0, "#"); e = 0
	       if (h && match(substr($0, h), /[0-9][0-9.]*/)) e = h + RSTART + RLENGTH - 2
	       print h ":" e }' "$1"
}
# first_interval FILE: keep the lines of the first interval (text, CSV or JSON: its time stamp leads)
first_interval() {
	awk '{ k = match($0, /^[ {"a-z:]*[0-9]+\.[0-9]+/) ? substr($0, RSTART, RLENGTH) : ""
	       if (NR == 1) f = k
	       if (k == f) print }' "$1" >"$1.first" && mv "$1.first" "$1"
}
for args in "" "-x," "-j" "-r 2" "-x, -r 2" "-j -r 2" "-I 150" "-x, -I 150" "-j -I 150" \
	"-a -A" "-x, -a -A" "-j -a -A" "-a -A -I 150" "-a --per-core" "-x, -a --per-core" \
	"-a --per-socket" "-j -a --per-socket"; do
	for t in perf "$PERFKIT"; do
		fake 0 "$t" stat $args -e "$EVS_ALL" -o "$TMP/out" -- "$W" --spin-ms 200 >/dev/null 2>&1
		grep -v -e '^#' -e '^$' -e 'seconds' "$TMP/out" >"$TMP/stat.$(basename "$t")"
		# -I: how many intervals a run spans depends on the machine's load; the first one's lines
		case "$args" in *-I*) first_interval "$TMP/stat.$(basename "$t")" ;; esac
	done
	if [ -s "$TMP/stat.perf" ] && cmp -s <(mask "$TMP/stat.perf") <(mask "$TMP/stat.perfkit") &&
	   cmp -s <(hash_at "$TMP/stat.perf") <(hash_at "$TMP/stat.perfkit"); then
		pass "stat ${args:-(text)} with hardware events: perf's lines ($(wc -l <"$TMP/stat.perf"))"
	else
		fail "stat ${args:-(text)} with hardware events: perf's lines" \
			"$(diff <(mask "$TMP/stat.perf") <(mask "$TMP/stat.perfkit") | head -6 | tr '\n' '|')"
	fi
done
done_testing
