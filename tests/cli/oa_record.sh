#!/usr/bin/env bash
# perfkit oa record from the command line, on fixture /sys and /dev trees
# (the capture itself runs against a fake device in tests/unit/test_oa_capture.c):
# no i915 card, a card node that will not open, card selection skipping
# other drivers and connectors, usage errors (-p, -e, --card, -k, -P, -s,
# -f, option conflicts), --help, and that no recording is left behind on
# failure. The command end to end, on a fake GPU: oa_record_fake.sh.
. "$(dirname "$0")/tap-lib.bash"
[ -x "$PERFKIT" ] || skip_all "$PERFKIT not built"
"$PERFKIT" oa record --help >/dev/null 2>&1 || skip_all "this perfkit has no oa record"

S=$TMP/sys
mkdir -p "$S/class/drm/card0/device" "$S/class/drm/card0-DP-1" "$TMP/empty/class/drm" "$TMP/dev/dri"
ln -s ../../../bus/pci/drivers/amdgpu "$S/class/drm/card0/device/driver"

"$PERFKIT" oa record --sys-root "$TMP/empty" -o "$TMP/a.rec" 2>"$TMP/err"
is "$?" 1 "no i915 card: exit 1"
grep -q "^perfkit: no i915 GPU found under $TMP/empty/class/drm\$" "$TMP/err"
ok $? "the message names the directory"
grep -q '^hint: ' "$TMP/err"
ok $? "with a hint"
[ ! -e "$TMP/a.rec" ]
ok $? "no recording is left behind"

"$PERFKIT" oa record --sys-root "$S" -o "$TMP/a.rec" 2>"$TMP/err"
is "$?" 1 "an amdgpu card is not taken for an i915 one"
grep -q 'no i915 GPU found' "$TMP/err"
ok $? "the message says so"

mkdir -p "$S/class/drm/card2/device"
ln -s ../../../bus/pci/drivers/i915 "$S/class/drm/card2/device/driver"
"$PERFKIT" oa record --sys-root "$S" --dev-root "$TMP/dev" -o "$TMP/a.rec" 2>"$TMP/err"
is "$?" 1 "an i915 card whose node does not open: exit 1"
grep -q "'$TMP/dev/dri/card2': cannot open the i915 device" "$TMP/err"
ok $? "the message names the node of the i915 card (card2)"
"$PERFKIT" oa record --sys-root "$S" --card 0 -o "$TMP/a.rec" 2>"$TMP/err"
grep -q "card0 under $S/class/drm is not an i915 GPU" "$TMP/err"
ok $? "--card 0 names the card that is not i915"

for bad in "-p 3x" "-p 0ms" "-p -1ms" "-p 0.1ns" "-e 32" "--card x" "--duration 0" "-k realtime" "-k" "--correlation-period 0.0001" \
	"-P 99" "-P 0.05ms" "-P x" "-s 7" "-s 67108865" "-s 1k" "--bogus"; do
	# shellcheck disable=SC2086
	"$PERFKIT" oa record $bad --sys-root "$TMP/empty" 2>"$TMP/err"
	is "$?" 2 "usage error: $bad"
done
grep -q "unknown option '--bogus'" "$TMP/err"
ok $? "an unknown option is named"
"$PERFKIT" oa record -P 50 --sys-root "$TMP/empty" 2>"$TMP/err"
grep -q "invalid value '50' for -P: the driver's minimum is 100us" "$TMP/err"
ok $? "-P 50: the driver's minimum"
"$PERFKIT" oa record -s 4 --sys-root "$TMP/empty" 2>"$TMP/err"
grep -q "invalid value '4' for -s: give kilobytes, 8 to 67108864" "$TMP/err"
ok $? "-s 4: kilobytes, 8 to 64 GiB"
"$PERFKIT" oa record -f '' --sys-root "$TMP/empty" 2>"$TMP/err"
is "$?" 2 "-f '': usage error"
"$PERFKIT" oa record --sys-root "$TMP/empty" -f 2>"$TMP/err"
is "$?" 2 "-f without its value: usage error"
grep -q "option '-f' requires a value" "$TMP/err"
ok $? "the message says so"
"$PERFKIT" oa record --metrics a.xml --metrics-dir d --sys-root "$TMP/empty" 2>"$TMP/err"
is "$?" 2 "--metrics with --metrics-dir: usage error"

"$PERFKIT" oa record --help >"$TMP/out"
is "$?" 0 "--help exits 0"
grep -q 'usage: perfkit oa record' "$TMP/out"
ok $? "--help prints the usage"

done_testing
