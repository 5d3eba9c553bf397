// SPDX-License-Identifier: Apache-2.0
// The skip edges the TLM wrapper issues (pl011_core::edge and ::jump), as assumptions on a run's
// inputs: where `en`, an edge is plain, or `fast_fwd` > 1 alone (no enable among its cycles), or the
// `skip_ticks`-th enable (k <= ev_ticks), out of reset, with no access and the inputs settled;
// `txd_unseen` only on a skip. With `allowed` low, plain edges only. FF1_ALONE admits `fast_fwd` = 1 on
// a plain edge, which the wrapper never sets (it can drive the divider to 0): a wider environment.
module pl011_skip_rule #(
    parameter bit FF1_ALONE = 1
) (
    input logic        en,
    input logic        allowed,
    input logic        rst_n,
    input logic        sel,
    input logic        synced,
    input logic [16:0] b16_wait,
    input logic [7:0]  ev_ticks,
    input logic [16:0] fast_fwd,
    input logic [7:0]  skip_ticks,
    input logic        txd_unseen,
    output logic       skipping
);
    assign skipping = skip_ticks != 0 || fast_fwd > 17'd1;
    always_comb if (en) begin
        if (!allowed) assume (!skipping);
        if (skipping) begin
            assume (rst_n && !sel && synced && b16_wait != 0);
            if (skip_ticks == 0) assume (b16_wait > fast_fwd);
            else assume (skip_ticks <= ev_ticks && fast_fwd == 0);
        end else begin
            assume (!txd_unseen);
            if (!FF1_ALONE) assume (fast_fwd == 0);
        end
    end
endmodule
