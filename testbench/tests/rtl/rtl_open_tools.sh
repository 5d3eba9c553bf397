#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The PL011 RTL read by open tools other than Verilator.
#   rtl_open_tools.sh synth DEPTH    Yosys synthesizes it: `check -assert` (no multiple drivers, no
#                                    logic loops), no latch, and no Yosys warning at all: an undriven
#                                    wire is only warned about by synth's own check, which then ties it
#                                    off, so the final `check -assert` alone would pass
#   rtl_open_tools.sh icarus         Icarus Verilog compiles it for both FIFO depths without a message
#   rtl_open_tools.sh netlist DEPTH  the synthesized netlist, compiled by Icarus without a message,
#                                    matches the RTL output for output on every cycle of a random run
#   rtl_open_tools.sh figures        prints docs/pl011.md's synthesis table (generic cells, iCE40)
# Exit status: 0 pass, 1 fail (the reason on stderr), 2 bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rtl=$(cd "$here/../../../rtl" && pwd)
srcs=("$rtl/pl011_fifo.sv" "$rtl/pl011.sv")

fail() {
    echo "rtl_open_tools: $*" >&2
    exit 1
}
need() {
    command -v "$1" >/dev/null || fail "$1 not found (Debian package $2; scripts/deps.sh test installs it)"
}
usage() {
    echo "usage: rtl_open_tools.sh synth|netlist 16|32 | icarus | figures" >&2
    exit 2
}
depth_arg() {
    case "${1:-}" in
        16 | 32) ;;
        *) usage ;;
    esac
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The Yosys command selecting the depth: none for 32, the RTL's default (as an integrator reads it).
depth_cmd() {
    [ "$1" = 32 ] || echo "chparam -set FIFO_DEPTH $1 pl011;"
}
# yosys_run LOG SCRIPT: runs a Yosys script on the RTL; fails on an error or any warning.
yosys_run() {
    local log=$1 script=$2
    if ! yosys -q -l "$log" -p "read_verilog -sv ${srcs[*]}; $script" >"$work/yosys.out" 2>&1; then
        cat "$work/yosys.out" >&2
        fail "yosys failed: $script"
    fi
    if grep -q "^Warning:" "$log"; then
        grep "^Warning:" "$log" >&2
        fail "yosys warned"
    fi
}
# From the last block of the last `stat` in a log: the whole design (its "design hierarchy" total when
# the FIFOs are modules of their own, the top module when flattened).
design_cells() {
    awk '/Number of cells:/ { n = $4 } END { print n }' "$1"
}
# count LOG PATTERN: the cells whose type matches PATTERN, summed.
count() {
    awk -v pat="$2" '/^=== / { n = 0 } $1 ~ pat { n += $2 } END { print n + 0 }' "$1"
}

mode=${1:-}
case "$mode" in
    synth)
        depth_arg "${2:-}"
        need yosys yosys
        # $_DLATCH*: latches of any polarity, with or without set/reset; $_SR_*: set/reset flops.
        yosys_run "$work/synth.log" "$(depth_cmd "$2") synth -top pl011; check -assert;
            select -assert-none t:\$_DLATCH* t:\$_SR_*; stat"
        echo "depth $2: $(design_cells "$work/synth.log") cells, check passed, no latches"
        ;;
    icarus)
        need iverilog iverilog
        # -Wall is stricter than plain -g2012: a silent -Wall run means a silent plain run too.
        for depth in 16 32; do
            iverilog -g2012 -Wall -s pl011 -Ppl011.FIFO_DEPTH=$depth -o "$work/rtl.vvp" "${srcs[@]}" \
                >"$work/iverilog.out" 2>&1 || { cat "$work/iverilog.out" >&2; fail "iverilog failed (depth $depth)"; }
            if [ -s "$work/iverilog.out" ]; then
                cat "$work/iverilog.out" >&2
                fail "iverilog printed a message (depth $depth)"
            fi
        done
        echo "iverilog -g2012 -Wall: both depths compile without a message"
        ;;
    netlist)
        depth_arg "${2:-}"
        need yosys yosys
        need iverilog iverilog
        need vvp iverilog
        yosys_run "$work/synth.log" "$(depth_cmd "$2") synth -top pl011; check -assert;
            rename pl011 pl011_netlist; write_verilog -noattr $work/netlist.v"
        iverilog -g2012 -Wall -s pl011_netlist_tb -Ppl011_netlist_tb.FIFO_DEPTH=$2 -o "$work/tb.vvp" \
            "${srcs[@]}" "$work/netlist.v" "$here/pl011_netlist_tb.sv" >"$work/iverilog.out" 2>&1 \
            || { cat "$work/iverilog.out" >&2; fail "iverilog failed on the netlist bench"; }
        if [ -s "$work/iverilog.out" ]; then
            cat "$work/iverilog.out" >&2
            fail "iverilog printed a message on the netlist bench"
        fi
        vvp -n "$work/tb.vvp" >"$work/vvp.out" 2>&1 || { cat "$work/vvp.out" >&2; fail "vvp failed"; }
        cat "$work/vvp.out"
        grep -q "^PASS depth $2:" "$work/vvp.out" || fail "the netlist bench did not pass (depth $2), see above"
        ;;
    figures)
        need yosys yosys
        echo "| FIFO depth | Yosys \`synth\`: cells | of which flip-flops | \`synth_ice40\`: LUT4 | flip-flops | RAM4K | carries |"
        echo "|---|---|---|---|---|---|---|"
        for depth in 16 32; do
            yosys_run "$work/g.log" "$(depth_cmd $depth) synth -top pl011; stat"
            yosys_run "$work/i.log" "$(depth_cmd $depth) synth_ice40 -top pl011; stat"
            echo "| $depth | $(design_cells "$work/g.log") | $(count "$work/g.log" '^\$_[A-Z]*DFF')" \
                "| $(count "$work/i.log" '^SB_LUT4$') | $(count "$work/i.log" '^SB_DFF') | $(count "$work/i.log" '^SB_RAM40_4K$')" \
                "| $(count "$work/i.log" '^SB_CARRY$') |"
        done
        ;;
    *) usage ;;
esac
