#!/usr/bin/env bash
# perfkit stat and list errors: bad event specs point at the character and
# suggest a name; usage errors exit 2; permission failures explain
# perf_event_paranoid (checked as an unprivileged user when we are root).
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"

"$PERFKIT" stat -e cyclez -- true >/dev/null 2>"$TMP/err"
is $? 2 "unknown event exits 2"
grep -q "cyclez" "$TMP/err"; ok $? "the message names the event"
grep -q "did you mean 'cycles'" "$TMP/err"; ok $? "and suggests cycles"
grep -q '^  \^$' "$TMP/err"; ok $? "a caret points at the first character"

"$PERFKIT" stat -e 'task-clock,page-fultz' -- true >/dev/null 2>"$TMP/err"
caret=$(awk '/\^/ { print index($0, "^") }' "$TMP/err")
is "$caret" 14 "the caret stands under 'page-fultz' (column 3 + offset 11)"
grep -q "did you mean 'page-faults'" "$TMP/err"; ok $? "and suggests page-faults"

"$PERFKIT" stat -e 'cycles:z' -- true >/dev/null 2>"$TMP/err"
is $? 2 "unknown modifier exits 2"

"$PERFKIT" stat >/dev/null 2>&1
is $? 2 "no command and no target is a usage error"
"$PERFKIT" stat -r 0 -- true >/dev/null 2>&1
is $? 2 "-r 0 is a usage error"
"$PERFKIT" stat -A -- true >/dev/null 2>&1
is $? 2 "-A without -a is a usage error"
"$PERFKIT" stat --bogus -- true >/dev/null 2>&1
is $? 2 "unknown option is a usage error"
"$PERFKIT" stat -C 0-x -- true >/dev/null 2>&1
is $? 2 "bad CPU list is a usage error"
"$PERFKIT" bogus >/dev/null 2>&1
is $? 2 "unknown command exits 2"
"$PERFKIT" stat --help >/dev/null 2>&1
is $? 0 "--help exits 0"

# Unprivileged with perf_event_paranoid 2: a command's own user space counts; -a is refused with the reason.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ "${paranoid:-0}" -ge 2 ] &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PERFKIT"; then
	asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	asuser "$PERFKIT" stat -x, -e task-clock,page-faults -- "$PK_WORKLOAD" --pages 100 \
		2>"$TMP/u" >/dev/null
	is $? 0 "unprivileged: counting a command works (paranoid $paranoid)"
	grep -Eq '^[0-9.]+,msec,task-clock:u,' "$TMP/u"; ok $? "unprivileged: task-clock counted in user space, as task-clock:u like perf ($(grep task-clock "$TMP/u" | cut -d, -f1,3))"
	pf=$(awk -F, '$3 == "page-faults:u" { print $1 }' "$TMP/u")
	[ "${pf:-0}" -ge 100 ]; ok $? "unprivileged: page-faults:u covers the 100 touched pages ($pf)"
	asuser "$PERFKIT" stat -a -e task-clock -- true >/dev/null 2>"$TMP/u"
	is $? 1 "unprivileged: -a fails"
	grep -q "perf_event_paranoid" "$TMP/u"; ok $? "and names perf_event_paranoid"
	grep -q "^hint: " "$TMP/u"; ok $? "with a hint: $(grep '^hint' "$TMP/u")"
else
	skip "needs root, setpriv, paranoid >= 2 and a build readable by nobody"
fi

done_testing
