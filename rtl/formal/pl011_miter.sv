// SPDX-License-Identifier: Apache-2.0
// The skip inputs equal plain clocking: a miter of two PL011s, checked by scripts/rtl-formal when named
// (`*_miter`, bounded to 9 edges from reset). pl011_skip.sv proves the same over every reachable state,
// as lemmas on the next-state function; this one compares two whole instances edge by edge, outputs
// only, as a cross-check of that decomposition.
//
// `a` and `b` are the RTL with a clock enable (pl011_ce, which scripts/rtl-formal derives from
// rtl/pl011.sv: every flop holds while `ce` is low). Both leave reset together and run in lockstep on the
// same inputs, plain edges or the same valid skips (SKIPS), so they hold the same state. At a point the
// solver chooses (`go`), `a` takes one edge with a skip input where its own validity outputs allow it,
// as the TLM wrapper issues one, and then holds; `b` takes the plain edges that edge stands for, one by
// one, with the inputs steady. Where `b` has taken them all, every output of the two is equal (the
// register read at any address, the flags, levels, lines, interrupts, DMA requests and the skip
// outputs), and stays equal on every edge after, the two in lockstep again on free inputs: a state
// that differs anywhere a later read, output or skip decision can see fails the check.
//
// KIND selects the skip (a run per kind, so that each has its own result):
//   1 skip_ticks = k (1 <= k <= ev_ticks): the k-th Baud16 enable from now; with fast_fwd = f as well
//     (k < ev_ticks, f below the divisor), f divider cycles after it; txd_unseen free (TXD's edges
//     inside a character may be passed, not in loopback).
//   2 fast_fwd = f > 1 alone: f divider cycles among which no enable falls (b16_wait > f).
//   3 div_load: a quiet UART (`quiet`) holds while `b` runs any number of edges; then `a` takes one
//     edge with {div_cnt, div_acc} set to the divider's state `b` has before that edge.
//   4 rxd_load: RXD changes; `b` takes the change on the two synchroniser edges, `a` sees the old level
//     on the first and takes the new one into both stages on the second.
module pl011_miter #(
    parameter int FIFO_DEPTH = 16,
    parameter int KIND = 1,
    parameter int IBRD_MAX = 3,
    parameter int SKIPS = 1  // 0: the lockstep prefix takes plain edges only
) (
    input logic        clk,
    input logic        rst_n,
    input logic        sel,
    input logic        write,
    input logic [9:0]  addr,
    input logic [3:0]  strb,
    input logic [31:0] wdata,
    input logic        rxd,
    input logic        ncts,
    input logic        ndsr,
    input logic        ndcd,
    input logic        nri,
    input logic        txdmaclr,
    input logic        rxdmaclr,
    input logic [16:0] fast_fwd,   // the skip inputs (the prefix's shared skips and `a`'s own)
    input logic [7:0]  skip_ticks,
    input logic        txd_unseen,
    input logic        go,         // `a` takes its skip at this edge
    input logic        fire        // KIND 3: `a` takes its loaded edge at this edge
);
    localparam logic [9:0] A_IBRD = 10'h009;
    localparam logic [1:0] LOCK = 2'd0, CATCH = 2'd1, POST = 2'd2;

    logic [1:0] phase = LOCK;
    wire at_go = phase == LOCK && go && rst_n;

    // ------------------------------------------------------------ the two instances
    // Outputs, gathered into one vector per instance for the comparison.
    logic [31:0] rdata_a, rdata_b;
    logic [8:0] flags_a, flags_b;
    logic [5:0] tx_level_a, tx_level_b, rx_level_a, rx_level_b, b16_acc_a, b16_acc_b;
    logic [16:0] b16_wait_a, b16_wait_b;
    logic [21:0] baud_div_a, baud_div_b;
    logic [7:0] ev_a, ev_b, out_a, out_b, reg_a, reg_b, busyt_a, busyt_b, rxf_a, rxf_b;
    logic [11:0] line_bits_a, line_bits_b;
    logic [3:0] bits_left_a, bits_left_b, fmt_a, fmt_b;
    logic [15:0] pins_a, pins_b;  // {rd_err, wr_err, txd, nrts, ndtr, nout1, nout2, intr, 4 DMA, rx_busy, synced, quiet, in_char}
    logic started_a, started_b;

    // `a`'s inputs: the shared ones, but at its own skip edge its skip inputs, and in KIND 4 the old RXD
    // level on the first synchroniser edge.
    logic ce_a, ce_b;
    logic [16:0] ff_a, ff_b;
    logic [7:0] k_a, k_b;
    logic unseen_a, unseen_b, div_load_a, rxd_load_a, rxd_a;
    logic [16:0] div_cnt_a;
    logic [5:0] div_acc_a;

    pl011_ce #(.FIFO_DEPTH(FIFO_DEPTH)) a (
        .clk, .ce(ce_a), .rst_n, .sel, .write, .addr, .strb, .wdata, .rdata(rdata_a), .rd_err(pins_a[15]),
        .wr_err(pins_a[14]), .txd(pins_a[13]), .rxd(rxd_a), .ncts, .ndsr, .ndcd, .nri, .nrts(pins_a[12]),
        .ndtr(pins_a[11]), .nout1(pins_a[10]), .nout2(pins_a[9]), .intr(pins_a[8]), .txdmasreq(pins_a[7]),
        .txdmabreq(pins_a[6]), .rxdmasreq(pins_a[5]), .rxdmabreq(pins_a[4]), .txdmaclr, .rxdmaclr,
        .tx_level(tx_level_a), .rx_level(rx_level_a), .flags(flags_a), .fast_fwd(ff_a), .skip_ticks(k_a),
        .div_load(div_load_a), .rxd_load(rxd_load_a), .div_cnt(div_cnt_a), .div_acc(div_acc_a),
        .b16_wait(b16_wait_a), .b16_acc(b16_acc_a), .baud_div(baud_div_a), .ev_ticks(ev_a),
        .out_ticks(out_a), .reg_ticks(reg_a), .busy_ticks(busyt_a), .rx_busy(pins_a[3]),
        .rx_frame_ticks(rxf_a), .synced(pins_a[2]), .quiet(pins_a[1]), .txd_unseen(unseen_a),
        .tx_started(started_a), .tx_line_bits(line_bits_a), .tx_bits_left(bits_left_a),
        .tx_in_char(pins_a[0]), .tx_format(fmt_a));
    pl011_ce #(.FIFO_DEPTH(FIFO_DEPTH)) b (
        .clk, .ce(ce_b), .rst_n, .sel, .write, .addr, .strb, .wdata, .rdata(rdata_b), .rd_err(pins_b[15]),
        .wr_err(pins_b[14]), .txd(pins_b[13]), .rxd, .ncts, .ndsr, .ndcd, .nri, .nrts(pins_b[12]),
        .ndtr(pins_b[11]), .nout1(pins_b[10]), .nout2(pins_b[9]), .intr(pins_b[8]), .txdmasreq(pins_b[7]),
        .txdmabreq(pins_b[6]), .rxdmasreq(pins_b[5]), .rxdmabreq(pins_b[4]), .txdmaclr, .rxdmaclr,
        .tx_level(tx_level_b), .rx_level(rx_level_b), .flags(flags_b), .fast_fwd(ff_b), .skip_ticks(k_b),
        .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0), .div_acc(6'd0),
        .b16_wait(b16_wait_b), .b16_acc(b16_acc_b), .baud_div(baud_div_b), .ev_ticks(ev_b),
        .out_ticks(out_b), .reg_ticks(reg_b), .busy_ticks(busyt_b), .rx_busy(pins_b[3]),
        .rx_frame_ticks(rxf_b), .synced(pins_b[2]), .quiet(pins_b[1]), .txd_unseen(unseen_b),
        .tx_started(started_b), .tx_line_bits(line_bits_b), .tx_bits_left(bits_left_b),
        .tx_in_char(pins_b[0]), .tx_format(fmt_b));

    // ------------------------------------------------------------ environment
    always_comb if ($initstate) assume (!rst_n);
    // IBRD writes bounded, as in pl011_props.sv, to keep the enables frequent.
    always_comb if (sel && write && addr == A_IBRD) assume (wdata[15:0] <= IBRD_MAX && strb[1:0] == 2'b11);

    // What `a`'s skip edge asked for, and the inputs it took as steady.
    logic [7:0] want_k;
    logic [16:0] want_f;
    logic [6:0] held;  // {rxd, ncts, ndsr, ndcd, nri, txdmaclr, rxdmaclr}
    wire [6:0] ins = {rxd, ncts, ndsr, ndcd, nri, txdmaclr, rxdmaclr};
    logic rxd_prev;    // RXD before this edge (KIND 4: the level `a` still sees)
    // `b`'s progress since `go`: Baud16 enables taken, edges since the last one (or since `go`), and
    // its tx_started right after its k-th enable (what `a`'s reports after a skip with f).
    logic [7:0] en_b;
    logic [16:0] since_b;
    logic started_at_k;
    logic a_fired;  // KIND 3: `a` took its loaded edge; KIND 4: the second synchroniser edge is taken
    wire b_enable = b16_wait_b == 17'd1;  // this edge is one of b's Baud16 enables
    // `b` has taken every edge `a`'s skip stands for: from here the two run in lockstep and are compared.
    wire matched = KIND == 1 ? en_b == want_k && since_b == want_f
                 : KIND == 2 ? en_b == 0 && since_b == want_f
                 : a_fired;
    wire in_post = phase == POST || (phase == CATCH && matched);
    wire in_catch = phase == CATCH && !matched;

    // The prefix's shared skips, as the wrapper issues them.
    logic skipping;
    pl011_skip_rule rule (
        .en(phase == LOCK && !go), .allowed(SKIPS != 0), .rst_n, .sel, .synced(pins_a[2]), .b16_wait(b16_wait_a),
        .ev_ticks(ev_a), .fast_fwd, .skip_ticks, .txd_unseen, .skipping);

    always_comb begin
        ce_a = 1'b1;
        ce_b = 1'b1;
        k_a = 8'd0;
        k_b = 8'd0;
        ff_a = 17'd0;
        ff_b = 17'd0;
        unseen_a = 1'b0;
        unseen_b = 1'b0;
        div_load_a = 1'b0;
        div_cnt_a = b16_wait_b;
        div_acc_a = b16_acc_b;
        rxd_load_a = 1'b0;
        rxd_a = rxd;
        if (phase == LOCK && !go && SKIPS != 0 && skipping) begin
            // A shared skip: both take it.
            k_a = skip_ticks;
            k_b = skip_ticks;
            ff_a = fast_fwd;
            ff_b = fast_fwd;
            unseen_a = txd_unseen;
            unseen_b = txd_unseen;
        end else if (at_go) begin
            if (KIND == 1) begin
                k_a = skip_ticks;
                ff_a = fast_fwd;
                unseen_a = txd_unseen;
            end else if (KIND == 2) begin
                ff_a = fast_fwd;
            end else if (KIND == 3) begin
                ce_a = 1'b0;
            end else begin
                rxd_a = rxd_prev;
            end
        end else if (in_catch) begin
            if (KIND == 3) begin
                ce_a = fire;
                div_load_a = 1'b1;
            end else if (KIND == 4) begin
                rxd_load_a = 1'b1;
            end else begin
                ce_a = 1'b0;
            end
        end
    end

    // The skip's validity and the steady environment around it.
    always_comb begin
        if (at_go) begin
            assume (!sel && pins_a[2]);  // no access, the inputs settled (as `a` sees them)
            if (KIND == 1) begin
                assume (b16_wait_a != 0 && skip_ticks != 0 && skip_ticks <= ev_a);
                assume (fast_fwd == 0 || (skip_ticks < ev_a && fast_fwd < {1'b0, baud_div_a[21:6]}));
            end else if (KIND == 2) begin
                assume (b16_wait_a > fast_fwd && fast_fwd > 17'd1);
            end else if (KIND == 3) begin
                assume (pins_a[1]);  // quiet
            end else begin
                assume (rxd != rxd_prev);
            end
        end
        if (in_catch) assume (rst_n && !sel && ins == held);
    end

    always_ff @(posedge clk) begin
        rxd_prev <= rxd;
        if (phase == LOCK) begin
            if (at_go) begin
                phase <= CATCH;
                want_k <= KIND == 1 ? skip_ticks : 8'd0;
                want_f <= KIND <= 2 ? fast_fwd : 17'd0;
                held <= ins;
                en_b <= b_enable ? 8'd1 : 8'd0;
                since_b <= b_enable ? 17'd0 : 17'd1;
                a_fired <= 1'b0;
            end
        end else if (in_catch) begin
            if ((KIND == 3 && fire) || KIND == 4) a_fired <= 1'b1;
            en_b <= en_b + (b_enable ? 8'd1 : 8'd0);
            since_b <= b_enable ? 17'd0 : since_b + 17'd1;
        end else begin
            phase <= POST;
        end
    end
    // After `a`'s skip tx_started reports a start at the k-th enable (the f cycles after it start
    // none); after `b`'s run, at its last edge.
    always_ff @(posedge clk) if (phase == CATCH && en_b == want_k && since_b == 17'd0) started_at_k <= started_b;
    wire started_want = phase == CATCH && KIND == 1 && want_f != 0 ? started_at_k : started_b;

    // ------------------------------------------------------------ the check
    always_comb if (in_post) begin
        assert (rdata_a == rdata_b);
        assert (pins_a == pins_b);
        assert (flags_a == flags_b && tx_level_a == tx_level_b && rx_level_a == rx_level_b);
        assert (b16_wait_a == b16_wait_b && b16_acc_a == b16_acc_b && baud_div_a == baud_div_b);
        assert (ev_a == ev_b && out_a == out_b && reg_a == reg_b && busyt_a == busyt_b && rxf_a == rxf_b);
        assert (line_bits_a == line_bits_b && bits_left_a == bits_left_b && fmt_a == fmt_b);
        assert (started_a == started_want);
    end
endmodule
