#!/usr/bin/env bash
# Benchmark: perfkit report / script / folded export against perf report /
# perf script / perf script | stackcollapse-perf.pl on one 100+ MB perf.data
# recorded here once (system-wide, call graphs, 20 kHz, ~30 s of a busy mixed
# workload) and cached in build/bench/. Wall time by hyperfine (no shell,
# 1 warm-up, 3 runs), peak RSS by /usr/bin/time; printed as ratios, with
# whether the outputs of perf and perfkit agree.
# Targets: report >= 10x faster and <= 1/4 memory; --no-children >= 3x;
# script >= 2x; folded >= 10x. No assertions: figures only.
set -euo pipefail
: "${PERFKIT:=build/perfkit}"
PERFKIT=$(readlink -f "$PERFKIT")
CACHE=${BENCH_CACHE:-build/bench}
RUNS=${BENCH_RUNS:-3}
mkdir -p "$CACHE"
CACHE=$(readlink -f "$CACHE")
BIG="$CACHE/big.data"
command -v hyperfine >/dev/null || { echo "bench: hyperfine is not installed (scripts/install-deps)"; exit 1; }
command -v perf >/dev/null || { echo "bench: Linux perf is not installed"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---- the input: recorded once -------------------------------------------------
busy() {
	local end=$((SECONDS + 30))
	cat >"$TMP/work.py" <<'PY'
import hashlib, json, re, sys, time
end = time.time() + float(sys.argv[1])
doc = {"k%d" % i: [i, str(i) * 5, {"x": i / 3.0}] for i in range(2000)}
pat = re.compile(r"(\d+)(\w*)\s+([a-z]+)")
text = " ".join("%d%s word%d" % (i, "ab" * (i % 5), i) for i in range(5000))
while time.time() < end:
    s = json.dumps(doc)
    json.loads(s)
    pat.findall(text)
    hashlib.sha256(s.encode()).hexdigest()
PY
	cat >"$TMP/small.c" <<'C'
#include <stdio.h>
#include <string.h>
struct s { int a[64]; char n[32]; };
static int f(struct s *p, int k) { int t = 0; for (int i = 0; i < 64; i++) t += p->a[i] * k; return t; }
int g(int n) { struct s v; memset(&v, 0, sizeof(v)); for (int i = 0; i < n; i++) v.a[i % 64] += f(&v, i); return v.a[3]; }
int main(void) { printf("%d\n", g(1000)); return 0; }
C
	python3 "$TMP/work.py" 30 & python3 "$TMP/work.py" 30 &
	while [ $SECONDS -lt $end ]; do
		head -c 4000000 /dev/urandom | xz -6 >/dev/null
		gcc -O2 -c "$TMP/small.c" -o "$TMP/small.o"
	done
	wait
}
if [ ! -s "$BIG" ]; then
	echo "bench: recording $BIG (system-wide, -g, 20 kHz, ~30 s; once)"
	export -f busy
	export TMP
	perf record -q -e cpu-clock -a -g -F 20000 -o "$BIG" -- bash -c busy >/dev/null 2>&1 || {
		echo "bench: perf record -a failed (perf_event_paranoid?)"; rm -f "$BIG"; exit 1; }
fi
size=$(stat -c %s "$BIG")
samples=$(perf report --stats -i "$BIG" 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
echo "input: $BIG, $((size / 1048576)) MiB, $samples samples (perf record -e cpu-clock -a -g -F 20000, busy mixed workload)"

# A fold of perf script output: the real stackcollapse-perf.pl if installed,
# else the tests' Perl implementation of its rules (same language, same work).
FOLD=$(command -v stackcollapse-perf.pl || true)
if [ -z "$FOLD" ]; then
	FOLD="perl $(readlink -f "$(dirname "$0")/../tests/cli/collapse-perf.pl")"
	echo "note: stackcollapse-perf.pl not installed; folding with tests/cli/collapse-perf.pl (its rules, in Perl)"
fi

# lines OUT: the output's lines without perf's closing tip and blank lines
lines() { grep -v -e '^# (Tip:' -e '^# (Cannot load tips.txt' -e '^$' "$1" || true; }

# time_pair NAME PERF_CMD PERFKIT_CMD [shell]: median ratio and peak RSS ratio, and
# whether the two outputs (of the peak-RSS runs) agree: line for line, or, for the
# folded stacks (shell), as sorted sets of lines
time_pair() {
	local name=$1 pcmd=$2 kcmd=$3 shell=${4:-}
	local opt=(-N)
	[ -n "$shell" ] && opt=()
	hyperfine "${opt[@]}" --warmup 1 --runs "$RUNS" --export-csv "$TMP/t.csv" \
		-n perf "$pcmd" -n perfkit "$kcmd" >/dev/null 2>&1
	local pm km diffs total
	pm=$(/usr/bin/time -f %M sh -c "$pcmd >$TMP/perf.out 2>/dev/null" 2>&1 | tail -1)
	km=$(/usr/bin/time -f %M sh -c "$kcmd >$TMP/pk.out 2>/dev/null" 2>&1 | tail -1)
	if [ -n "$shell" ]; then
		lines "$TMP/perf.out" | sort >"$TMP/perf.lines"
		lines "$TMP/pk.out" | sort >"$TMP/pk.lines"
	else
		lines "$TMP/perf.out" >"$TMP/perf.lines"
		lines "$TMP/pk.out" >"$TMP/pk.lines"
	fi
	total=$(wc -l <"$TMP/perf.lines")
	diffs=$(diff "$TMP/perf.lines" "$TMP/pk.lines" | grep -c '^[<>]' || true)
	rm -f "$TMP/perf.out" "$TMP/pk.out" "$TMP/perf.lines" "$TMP/pk.lines"
	awk -F, -v name="$name" -v pm="$pm" -v km="$km" -v diffs="$diffs" -v total="$total" '
		NR > 1 { med[$1] = $4 }
		END {
			printf "%s\n", name
			printf "  perf     %9.3f s  %8.1f MiB peak\n", med["perf"], pm / 1024
			printf "  perfkit  %9.3f s  %8.1f MiB peak\n", med["perfkit"], km / 1024
			printf "  speed-up %.1fx, memory %.3f of perf'"'"'s\n", med["perf"] / med["perfkit"], km / pm
			if (diffs == 0)
				printf "  outputs identical (%d lines)\n", total
			else
				printf "  outputs DIFFER: %d lines of perf'"'"'s %d or perfkit'"'"'s differ\n", diffs, total
		}' "$TMP/t.csv"
}

time_pair "report --stdio (children, call graphs; target >= 10x, <= 0.25 memory)" \
	"perf report --stdio -i $BIG" "$PERFKIT report --stdio -i $BIG"
time_pair "report --stdio --no-children (target >= 3x)" \
	"perf report --stdio --no-children -i $BIG" "$PERFKIT report --stdio --no-children -i $BIG"
time_pair "report --stdio --hierarchy (call graphs under the leaves)" \
	"perf report --stdio --hierarchy -i $BIG" "$PERFKIT report --stdio --hierarchy -i $BIG"
time_pair "script -F comm,tid,time,ip (target >= 2x)" \
	"perf script -F comm,tid,time,ip -i $BIG" "$PERFKIT script -F comm,tid,time,ip -i $BIG"
time_pair "folded stacks: perf script | stackcollapse vs report --format folded (target >= 10x)" \
	"perf script -i $BIG 2>/dev/null | $FOLD" "$PERFKIT report --format folded -i $BIG" shell
