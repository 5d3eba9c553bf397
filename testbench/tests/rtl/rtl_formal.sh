#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rtl_formal.sh ROOT: runs scripts/rtl-formal's default run.
# rtl_formal.sh ROOT mutants: the skip lemmas are not vacuous: each of these mutations of the RTL, a skip
# that no longer gives plain clocking's state, makes its lemma fail with a counterexample.
# Exits 77 (CTest's skip) when Yosys, its ABC or Python is missing, saying why.
set -euo pipefail
root=$1
for t in yosys:yosys yosys-abc:yosys python3:python3; do
    command -v "${t%%:*}" >/dev/null ||
        { echo "skipped: ${t%%:*} not found (Debian package ${t#*:}; scripts/deps.sh test)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${2:-}" != mutants ]; then
    "$root/scripts/rtl-formal" --out "$work"
    exit
fi

# mutant NAME PROPERTY FROM TO: rtl/ with FROM (which must occur once) replaced by TO, then PROPERTY
# must fail.
mutant() {
    local d=$work/$1
    mkdir -p "$d/scripts"
    cp -r "$root/rtl" "$d/"
    cp "$root/scripts/rtl-formal" "$d/scripts/"
    python3 - "$d/rtl/pl011.sv" "$3" "$4" <<'PY' || { echo "$1: the mutation no longer applies to rtl/pl011.sv"; return 1; }
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
PY
    if (cd "$d" && scripts/rtl-formal --jobs 1 --out "$d" "$2" >"$d/out" 2>&1); then
        echo "$1: $2 still holds on the mutant"
        cat "$d/out"
        return 1
    fi
    if ! grep -q "^$2: FAILED (counterexample: .*\.vcd)" "$d/out" || [ ! -s "$d/$2.vcd" ]; then
        echo "$1: $2 did not fail with a counterexample"
        cat "$d/out"
        return 1
    fi
    echo "$1: $2 fails, as it must"
}

status=0
mutant char-end skip_ticks_k_equal "            tx_shift <= shift_now;
            tx_left <= left_now;
            tx_tick <= tick_now;
" "" &
p1=$!
mutant countdown fast_fwd_equal "b16_cnt <= cnt_now - (fast_fwd == 0 ? 17'd1 : fast_fwd);" \
    "b16_cnt <= cnt_now - (fast_fwd == 0 ? 17'd1 : fast_fwd > 17'd3 ? fast_fwd + 17'd1 : fast_fwd);" &
p2=$!
wait $p1 || status=1
wait $p2 || status=1
mutant loaded-divider div_load_equal "wire [16:0] cnt_now = div_load ? div_cnt : b16_cnt;" \
    "wire [16:0] cnt_now = div_load ? (div_cnt > 17'd2 ? div_cnt - 17'd1 : div_cnt) : b16_cnt;" &
p1=$!
mutant load-on-a-skip rxd_load_equal "    wire rx_in = lbe ? txd : rxd_s;" \
    "    wire rx_in = lbe ? txd : ((rxd_load && skip_ticks != 0) ? in_raw[4] : rxd_s);" &
p2=$!
wait $p1 || status=1
wait $p2 || status=1
exit $status
