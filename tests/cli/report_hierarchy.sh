#!/usr/bin/env bash
# perfkit report --hierarchy against perf report 6.1 --hierarchy on the same
# files: the whole text (titles, column heads and rulers, the tree's lines
# with their indents, the call graphs under the leaves, "no entry" lines),
# over sort keys, value columns, filters, relative percentages, separators,
# call-graph modes and event groups; the -F refusal; pipe input, which perf
# 6.1 cannot report in this mode.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
have_perf || skip_all "no usable perf"
SHARED=${PK_SHARED:-../shared}
DATA="$SHARED/data/perf.data"
W="$PK_WORKLOAD"

# tree FILE: the lines of nodes of at least 1% with their call graphs, in order
# (below that, nodes with equal values may come in an order perf's rb-tree
# insertion picks among unresolved addresses), and the '#' lines
tree() {
	awk '/^ *[0-9]+\.[0-9]+%/ { keep = ($1 + 0 >= 1.0) } /^#/ { keep = 1 } keep' "$1"
}

# compare NAME FILE ARGS...: the same text; failing that, the same '#' lines
# and nodes of 1% or more in order, and the same lines as a set
compare() {
	local name=$1 f=$2; shift 2
	"$PERFKIT" report --stdio --hierarchy "$@" -i "$f" 2>/dev/null | grep -v '^# (Tip' >"$TMP/pk.out"
	# (perf 6.1 may mark a fractal graph's "[...]" " (inlined)", from memory it never set)
	perf_report --stdio --hierarchy "$@" -i "$f" 2>/dev/null | sed -e 's/\[\.\.\.\] (inlined)$/[...]/' |
		grep -v -e '^# (Tip' -e '^# (Cannot load tips' >"$TMP/perf.out"
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 124 ]; then
		skip "$name: $(perf_failed "$rc")"
	elif [ ! -s "$TMP/perf.out" ]; then
		skip "$name: perf printed nothing"
	elif diff "$TMP/perf.out" "$TMP/pk.out" >"$TMP/diff" ||
	     { diff <(tree "$TMP/perf.out") <(tree "$TMP/pk.out") >"$TMP/diff" &&
	       diff <(sort "$TMP/perf.out") <(sort "$TMP/pk.out") >"$TMP/diff"; }; then
		pass "$name"
	else
		fail "$name" "$(head -20 "$TMP/diff")"
		keep_files report_hierarchy "$f" "$TMP/diff" "$TMP/pk.out" "$TMP/perf.out"
	fi
}

rec() { perf record -q "$@" >/dev/null 2>&1; }
# three commands (the shell, an exec'd child named exe, the workload), call chains
rec -e cpu-clock -F 1999 -g -o "$TMP/m.data" -- sh -c "$W --spin-ms 150 --children 2 --exec; $W --spin-ms 60"
rec -e cpu-clock -e task-clock -F 999 -o "$TMP/two.data" -- "$W" --spin-ms 150
rec -e '{cpu-clock,task-clock}' -F 999 -g -o "$TMP/grp.data" -- "$W" --spin-ms 150

f="$TMP/m.data"
if [ -s "$f" ]; then
	compare "default: comm / dso / symbol with call graphs (caller order)" "$f"
	compare "--no-children: callee order" "$f" --no-children
	compare "-g callee" "$f" -g callee
	compare "-g none" "$f" -g none
	compare "-g folded" "$f" -g folded
	compare "-g flat" "$f" -g flat
	# (not count: perf's hierarchy counts a leaf's merged chains, not their samples)
	compare "-g fractal,0.5,2,period" "$f" -g fractal,0.5,2,period
	compare "-G" "$f" -G
	compare "-n --show-total-period: value columns before the tree" "$f" -n --show-total-period -g none
	compare "--show-cpu-utilization" "$f" --show-cpu-utilization -g none
	compare "--percent-limit 5" "$f" --percent-limit 5 -g none
	compare "--percent-limit 60 -n: no entry lines" "$f" --percent-limit 60 -n -g none
	compare "-t ,: separator, indents kept" "$f" -t , -n -g none
	compare "-q --sort dso,sym" "$f" -q --sort dso,sym -g none
	compare "--sort sym: one level" "$f" --sort sym -g none
	compare "--sort symbol: no IPC level" "$f" --sort symbol -g none
	compare "--sort dso,comm" "$f" --sort dso,comm -g none
	compare "--sort pid,sym: header trimmed" "$f" --sort pid,sym -g none
	compare "--sort cpu,comm" "$f" --sort cpu,comm -g none
	compare "--sort comm,dso,sym,cpu: four levels" "$f" --sort comm,dso,sym,cpu -g none
	compare "--comm exe: column kept, named above" "$f" --comm exe -g none
	compare "--dsos: nodes keep their hidden rows' values" "$f" --dsos 'pk-workload,[vdso]' -g none
	compare "--comm exe --percentage relative" "$f" --comm exe --percentage relative
	compare "--dsos --percentage relative: top-level total" "$f" --dsos 'pk-workload,[vdso]' \
		--percentage relative -g none
else
	skip "perf record failed for m.data"
fi
for t in two grp; do
	f="$TMP/$t.data"
	if [ ! -s "$f" ]; then skip "perf record failed for $t.data"; continue; fi
	compare "$t.data: --group" "$f" --group -g none
	compare "$t.data: --no-group" "$f" --no-group --sort comm,dso -g none
	compare "$t.data: --group -n --sort dso,sym" "$f" --group -n --sort dso,sym
done
f="$DATA/quipper/perf.data.group_desc-4.14"
if [ -f "$f" ]; then
	compare "group_desc-4.14: group columns" "$f" --sort comm,dso,sym
	compare "group_desc-4.14: --percent-limit 10" "$f" --percent-limit 10 --sort comm,dso
	compare "group_desc-4.14: relative, --comm" "$f" --percentage relative --comm echo --sort comm,dso
fi
for f in "$DATA/quipper/perf.data.callgraph_and_branch-3.8" "$DATA/simpleperf/perf_g_fp.data" \
	 "$DATA/hotspot/perf.data.true.v2"; do
	[ -f "$f" ] && compare "$(basename "$f")" "$f"
done

# perf 6.1 --hierarchy reports "no samples" on a pipe: perfkit on the pipe perf inject makes
# of m.data prints what perf prints for m.data
if [ -s "$TMP/m.data" ] && perf inject -i "$TMP/m.data" -o - >"$TMP/pipe.data" 2>/dev/null; then
	"$PERFKIT" report --stdio --hierarchy -i - <"$TMP/pipe.data" 2>/dev/null | grep -v '^# (Tip' >"$TMP/pk.out"
	perf report --stdio --hierarchy -i "$TMP/m.data" 2>/dev/null |
		grep -v -e '^# (Tip' -e '^# (Cannot load tips' >"$TMP/perf.out"
	diff <(tree "$TMP/perf.out") <(tree "$TMP/pk.out") >"$TMP/diff" &&
		diff <(sort "$TMP/perf.out") <(sort "$TMP/pk.out") >>"$TMP/diff"
	ok $? "pipe input: as perf on the file" || note "$(head -20 "$TMP/diff")"
else
	skip "perf inject to a pipe failed"
fi

"$PERFKIT" report --stdio --hierarchy -F overhead,sym -i "${TMP}/m.data" >/dev/null 2>"$TMP/e"
is "$?" 2 "--hierarchy with -F: exit status 2"
grep -q "hierarchy and --fields options cannot be used together" "$TMP/e"
ok $? "--hierarchy with -F: perf's message"

done_testing
