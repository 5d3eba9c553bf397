// SPDX-License-Identifier: Apache-2.0
// The skip inputs equal plain clocking, from every reachable state: checked by scripts/rtl-formal.
//
// pl011_step is the RTL as its next-state function (scripts/rtl-formal derives it with Yosys's
// `expose -evert-dff`: every flop becomes an input, its current value, and an output, its next value):
// `s_next` and the outputs from the state `s` and the inputs. One copy of it, fed back through a
// register, is the UART itself, run from reset on free inputs (any access, reset, line and modem level,
// any divisor) and the valid skips the TLM wrapper issues: proven by induction, a lemma holds in every
// state it can reach. At each edge, on that state, other copies take one edge with a skip input and
// the plain edges it stands for, and their next states are compared bit for bit: the whole state, so
// that every later output, read and skip decision is the same (outputs are functions of the state and
// the inputs). A skip of any length follows by induction on its length from these lemmas:
//
// KIND 1, skip_ticks = k, where the RTL's validity outputs allow it (inputs settled, no access,
// k <= ev_ticks; with fast_fwd = f, k < ev_ticks and f below the divisor):
//   PART 1, k = 1: on the enable's own edge (b16_wait = 1) it is the plain edge; before it, it is a
//     plain edge followed by k = 1, valid there. So k = 1 is the b16_wait plain edges to the enable.
//   PART 2, k >= 2: k = 1 followed by k - 1, valid in the state k = 1 leaves.
//   PART 3, k with f: k, then fast_fwd = f (valid there), but for tx_started, which reports the start
//     at the k-th enable (as the wrapper reads it); and tx_started's flop feeds no next state.
// KIND 2, fast_fwd = f > 1 (b16_wait > f): a plain edge, then fast_fwd = f - 1 (valid there), or two
//   plain edges for f = 2.
// KIND 3, div_load: on a quiet UART (inputs settled, no access) a held edge changes nothing but the
//   divider's counter and accumulator (and clears tx_started), and the UART stays quiet; so after any
//   number of held edges the state is the held one with the divider's state of that moment. Any edge
//   (an access, a reset, new levels, a valid skip, an RXD load) from the held state, loaded with that
//   divider, equals the same edge from the present state.
// KIND 4, rxd_load: RXD changes on a settled UART: the edge that still sees the old level (an access
//   or none) and then the edge with rxd_load (an access or none, a reset, other levels) equal the two
//   plain edges that take the change through the synchroniser. For a load on a skip's landing edge:
//   those two plain edges leave what two at the old level leave but for RXD's synchroniser stages, and
//   any edge (a valid skip too) with rxd_load leaves what it leaves without, but for those stages; with
//   the skip lemmas, a skip landing on the load equals plain clocking with the change on its last two
//   edges.
`include "pl011_state.svh"  // the state's width and fields (written by scripts/rtl-formal)

module pl011_skip #(
    parameter int FIFO_DEPTH = 16,  // the derived pl011_step's (scripts/rtl-formal builds it at 16)
    parameter int KIND = 1,
    parameter int PART = 1,         // KIND 1: the lemma (1: k = 1, 2: k as 1 and k - 1, 3: k with fast_fwd)
    parameter int IBRD_MAX = 65535,
    parameter int SKIPS = 1         // 0: the run takes plain edges only
) (
    input logic        clk,
    // the run's inputs
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
    input logic [16:0] fast_fwd,
    input logic [7:0]  skip_ticks,
    input logic        txd_unseen,
    // the lemmas' inputs: the levels held over the skip, the skip, the held state's differences (KIND 3),
    // the access on the first edge (KIND 4)
    input logic [6:0]  held,         // {rxd, ncts, ndsr, ndcd, nri, txdmaclr, rxdmaclr}
    input logic [7:0]  l_ticks,
    input logic [16:0] l_ffwd,
    input logic        l_unseen,
    input logic [`PL011_STATE_W-1:0] l_other,  // KIND 3: the held UART's divider and tx_started
    input logic        l_rl,        // KIND 3: the loaded edge also loads RXD; KIND 4: the level loaded
    input logic        l_sel,       // KIND 4: the first edge's access
    input logic        l_write,
    input logic [9:0]  l_addr,
    input logic [3:0]  l_strb,
    input logic [31:0] l_wdata,
    input logic [`PL011_STATE_W-1:0] s_start   // the state before the first edge
);
    localparam int STATE_W = `PL011_STATE_W;
    localparam logic [STATE_W-1:0] DIV_MASK = `PL011_DIV_MASK;        // the divider's counter, accumulator
    localparam logic [STATE_W-1:0] REPORT_MASK = `PL011_REPORT_MASK;  // tx_started's flop
    localparam logic [STATE_W-1:0] STAGES_MASK = `PL011_RXD_STAGES_MASK;  // RXD's synchroniser stages
    localparam int CNT_AT = `PL011_CNT_AT, ACC_AT = `PL011_ACC_AT;    // where they sit in the state
    localparam logic [9:0] A_IBRD = 10'h009;

    // ------------------------------------------------------------ the run
    // The state before the first edge is `s_start`, any value (an input, so that a counterexample's
    // trace carries it); then the register.
    logic [STATE_W-1:0] s_reg = '0, s_run;
    logic begun = 1'b0;
    wire [STATE_W-1:0] s = begun ? s_reg : s_start;
    logic synced_r;
    logic [16:0] wait_r;
    logic [7:0] ev_r;
    pl011_step run (
        .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd, .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
        .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0), .div_acc(6'd0), .txd_unseen,
        .s, .s_next(s_run),
        .synced(synced_r), .b16_wait(wait_r), .ev_ticks(ev_r));
    always_ff @(posedge clk) begin
        s_reg <= s_run;
        begun <= 1'b1;
    end

    // The state starts anywhere; the first edge is a reset, and the lemmas hold from then on.
    logic started = 1'b0;
    always_ff @(posedge clk) if (!rst_n) started <= 1'b1;
    always_comb if ($initstate) assume (!rst_n);
    // IBRD writes up to IBRD_MAX (by default any divisor: the proof is by induction, no bound needed).
    always_comb if (IBRD_MAX < 65535 && sel && write && addr == A_IBRD) assume (wdata[15:0] <= IBRD_MAX && strb[1:0] == 2'b11);
    // The run's skips, as the wrapper issues them (and no fast_fwd = 1 alone, which it never sets).
    pl011_skip_rule #(.FF1_ALONE(0)) rule (
        .en(1'b1), .allowed(SKIPS != 0), .rst_n, .sel, .synced(synced_r), .b16_wait(wait_r), .ev_ticks(ev_r),
        .fast_fwd, .skip_ticks, .txd_unseen, .skipping());

    // ------------------------------------------------------------ the lemmas' edges
    // Each pl011_edge is one edge from its state `x` with no access, the held levels `h` and its own
    // skip inputs. The lemmas hold once the first reset edge is taken.
    wire [6:0] h = held;
    function automatic logic [16:0] cnt_of(input logic [STATE_W-1:0] st);
        cnt_of = st[CNT_AT+:17];
    endfunction
    function automatic logic [5:0] acc_of(input logic [STATE_W-1:0] st);
        acc_of = st[ACC_AT+:6];
    endfunction

    if (KIND == 1) begin : g_skip_ticks
        // PART 1: a skip of 1 from s against the plain edge p1, and against p1 then a skip of 1 (p2).
        // PART 2: k >= 2 against 1 then k - 1. PART 3: k with f against k, then f.
        logic [STATE_W-1:0] a, p1, p2, c1, c2, cf;
        logic sy0, sy1, syf, syp;
        logic [16:0] w0, w1, wf, wp;
        logic [7:0] ev0, ev1, evp;
        logic [21:0] div0;
        wire [7:0] k = l_ticks;
        wire [16:0] f = l_ffwd;
        pl011_edge ea (.x(s), .h, .k, .f, .u(l_unseen), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(a), .synced(sy0), .quiet(), .wait_(w0), .ev(ev0), .div(div0));
        pl011_edge ep1 (.x(s), .h, .k(8'd0), .f(17'd0), .u(1'b0), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(p1), .synced(), .quiet(), .wait_(), .ev(), .div());
        pl011_edge ep2 (.x(p1), .h, .k(8'd1), .f(17'd0), .u(l_unseen), .dl(1'b0), .cnt(17'd0), .acc(6'd0),
            .rl(1'b0), .n(p2), .synced(syp), .quiet(), .wait_(wp), .ev(evp), .div());
        // c1: k = 1 (SPLIT) or k without f (WITH_F); c2: k - 1 from c1; cf: f from c1.
        pl011_edge ec1 (.x(s), .h, .k(f != 0 ? k : 8'd1), .f(17'd0), .u(l_unseen), .dl(1'b0), .cnt(17'd0),
            .acc(6'd0), .rl(1'b0), .n(c1), .synced(), .quiet(), .wait_(), .ev(), .div());
        // (ec2 and ecf start from c1: their synced, b16_wait and ev_ticks are c1's.)
        pl011_edge ec2 (.x(c1), .h, .k(k - 8'd1), .f(17'd0), .u(l_unseen), .dl(1'b0), .cnt(17'd0), .acc(6'd0),
            .rl(1'b0), .n(c2), .synced(sy1), .quiet(), .wait_(w1), .ev(ev1), .div());
        pl011_edge ecf (.x(c1), .h, .k(8'd0), .f(f == 17'd1 ? 17'd0 : f), .u(l_unseen), .dl(1'b0), .cnt(17'd0),
            .acc(6'd0), .rl(1'b0), .n(cf), .synced(syf), .quiet(), .wait_(wf), .ev(), .div());
        wire valid = sy0 && w0 != 0 && k != 0 && (f == 0 ? k <= ev0 : k < ev0 && f < {1'b0, div0[21:6]});
        // Each part is a run of its own (the copies another part needs are optimised away).
        wire [1:0] part = f != 0 ? 2'd3 : k == 8'd1 ? 2'd1 : 2'd2;
        always_comb if (started && valid && part == 2'(PART)) begin
            if (PART == 1) begin
                // On the enable's own edge, the plain edge; before it, a plain edge and then k = 1 again,
                // valid there (by induction on b16_wait, the plain edges to the enable).
                if (w0 == 17'd1) assert (a == p1);
                else begin
                    assert (a == p2);
                    assert (syp && wp == w0 - 17'd1 && evp != 0);
                end
            end else if (PART == 2) begin
                assert (a == c2);
                assert (sy1 && w1 != 0 && k - 8'd1 <= ev1);  // k - 1 is valid where 1 leaves the UART
            end else begin
                // The state then differs from plain clocking's in tx_started alone, which nothing reads
                // (below).
                assert ((a & ~REPORT_MASK) == (cf & ~REPORT_MASK));
                assert ((a & REPORT_MASK) == (c1 & REPORT_MASK));  // the start at the k-th enable
                if (f != 17'd1) assert (syf && wf > f);            // f is valid after the k-th enable
            end
        end
        // tx_started's flop feeds no next state: any edge (the run's) from s with it flipped is s's.
        if (PART == 3) begin : g_report
            logic [STATE_W-1:0] r;
            pl011_step er (
                .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd, .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
                .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0),
                .div_acc(6'd0), .txd_unseen, .s(s ^ REPORT_MASK), .s_next(r));
            always_comb if (started) assert (r == s_run);
        end
    end else if (KIND == 2) begin : g_fast_fwd
        logic [STATE_W-1:0] a, c1, c2;
        logic sy0, sy1;
        logic [16:0] w0, w1;
        wire [16:0] f = l_ffwd;
        pl011_edge ea (.x(s), .h, .k(8'd0), .f, .u(l_unseen), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(a), .synced(sy0), .quiet(), .wait_(w0), .ev(), .div());
        pl011_edge ec1 (.x(s), .h, .k(8'd0), .f(17'd0), .u(1'b0), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(c1), .synced(), .quiet(), .wait_(), .ev(), .div());
        pl011_edge ec2 (.x(c1), .h, .k(8'd0), .f(f == 17'd2 ? 17'd0 : f - 17'd1), .u(l_unseen), .dl(1'b0),
            .cnt(17'd0), .acc(6'd0), .rl(1'b0), .n(c2), .synced(sy1), .quiet(), .wait_(w1), .ev(), .div());
        always_comb if (started && sy0 && w0 > f && f > 17'd1) begin
            assert (a == c2);
            if (f > 17'd2) assert (sy1 && w1 > f - 17'd1);  // f - 1 is valid after the plain edge
        end
    end else if (KIND == 3) begin : g_div_load
        // Held edges (the inputs `h` settled, no access) from a quiet state move nothing but the
        // divider, and clear tx_started, and the UART stays quiet: so the held UART's state is the
        // present one's but for those. `other` is any such state; its edge loaded with the present
        // divider, whatever the edge (the run's inputs here: an access, a reset, new levels, a valid
        // skip, an RXD load), equals the same edge from the present state.
        localparam logic [STATE_W-1:0] MOVES = DIV_MASK | REPORT_MASK;
        logic [STATE_W-1:0] c1, a, b;
        logic sy0, qu0, sy1, qu1;
        wire [STATE_W-1:0] other = (s & ~MOVES) | (l_other & MOVES);
        pl011_edge ec1 (.x(s), .h, .k(8'd0), .f(17'd0), .u(1'b0), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(c1), .synced(sy0), .quiet(qu0), .wait_(), .ev(), .div());
        pl011_edge eq (.x(c1), .h, .k(8'd0), .f(17'd0), .u(1'b0), .dl(1'b0), .cnt(17'd0), .acc(6'd0), .rl(1'b0),
            .n(), .synced(sy1), .quiet(qu1), .wait_(), .ev(), .div());
        pl011_step ea (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd, .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
            .fast_fwd, .skip_ticks, .div_load(1'b1), .rxd_load(l_rl), .div_cnt(cnt_of(s)),
            .div_acc(acc_of(s)), .txd_unseen, .s(other), .s_next(a));
        pl011_step eb (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd, .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
            .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(l_rl), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen, .s(s), .s_next(b));
        always_comb if (started && sy0 && qu0) begin
            assert ((c1 & ~MOVES) == (s & ~MOVES));  // a held edge moves the divider (and clears tx_started)
            assert (sy1 && qu1);                     // and leaves the UART quiet
            assert (a == b);                         // the loaded edge is the edge from the present state
        end
    end else begin : g_rxd_load
        // RXD changes from the settled level h[6]. The first edge (an access or none, l_*) sees the old
        // level at `a` and the new one at `b`; the second (the run's inputs without a skip: an access,
        // a reset, other levels) sees the new level at both, and `a` loads it into both stages.
        logic [STATE_W-1:0] a1, a2, b1, b2;
        logic sy0;
        always_comb if (IBRD_MAX < 65535 && l_sel && l_write && l_addr == A_IBRD)
            assume (l_wdata[15:0] <= IBRD_MAX && l_strb[1:0] == 2'b11);
        pl011_step ea1 (
            .rst_n(1'b1), .sel(l_sel), .write(l_write), .addr(l_addr), .strb(l_strb), .wdata(l_wdata),
            .rxd(h[6]), .ncts(h[5]), .ndsr(h[4]), .ndcd(h[3]), .nri(h[2]), .txdmaclr(h[1]), .rxdmaclr(h[0]),
            .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0), .div_acc(6'd0),
            .txd_unseen(1'b0), .s(s), .s_next(a1), .synced(sy0));
        pl011_step eb1 (
            .rst_n(1'b1), .sel(l_sel), .write(l_write), .addr(l_addr), .strb(l_strb), .wdata(l_wdata),
            .rxd(~h[6]), .ncts(h[5]), .ndsr(h[4]), .ndcd(h[3]), .nri(h[2]), .txdmaclr(h[1]), .rxdmaclr(h[0]),
            .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0), .div_acc(6'd0),
            .txd_unseen(1'b0), .s(s), .s_next(b1));
        pl011_step ea2 (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd(~h[6]), .ncts, .ndsr, .ndcd, .nri, .txdmaclr,
            .rxdmaclr, .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b1), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen(1'b0), .s(a1), .s_next(a2));
        pl011_step eb2 (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd(~h[6]), .ncts, .ndsr, .ndcd, .nri, .txdmaclr,
            .rxdmaclr, .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen(1'b0), .s(b1), .s_next(b2));
        always_comb if (started && sy0) assert (a2 == b2);

        // A load on a skip's landing edge. The two plain edges with the new level leave what the two
        // with the old level leave, but for the synchroniser's RXD stages (at the new level): the
        // receiver reads the second stage, which takes the change only at the second edge.
        logic [STATE_W-1:0] c2, e_load, e_old;
        function automatic logic [STATE_W-1:0] stages_at(input logic [STATE_W-1:0] st, input logic level);
            stages_at = (st & ~STAGES_MASK) | (level ? STAGES_MASK : '0);
        endfunction
        pl011_step ec2 (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd(h[6]), .ncts, .ndsr, .ndcd, .nri, .txdmaclr,
            .rxdmaclr, .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen(1'b0), .s(a1), .s_next(c2));
        always_comb if (started && sy0 && rst_n) assert (b2 == stages_at(c2, ~h[6]));
        // And any edge (the run's: an access, a valid skip with its levels settled) that loads a level
        // into both stages leaves what it leaves without the load, but for those stages. So a skip
        // landing on the load's edge, which stands for plain edges at the old level, equals plain
        // clocking's edges with the change seen on the last two.
        pl011_step el (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd(l_rl), .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
            .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(1'b1), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen, .s, .s_next(e_load));
        pl011_step eo (
            .rst_n, .sel, .write, .addr, .strb, .wdata, .rxd, .ncts, .ndsr, .ndcd, .nri, .txdmaclr, .rxdmaclr,
            .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0),
            .div_acc(6'd0), .txd_unseen, .s, .s_next(e_old));
        always_comb if (started && rst_n) assert (e_load == stages_at(e_old, l_rl));
    end
endmodule

// One edge of the UART from state `x`: no access, out of reset, the levels `h`
// ({rxd, ncts, ndsr, ndcd, nri, txdmaclr, rxdmaclr}) and the skip inputs given.
module pl011_edge (
    input logic [`PL011_STATE_W-1:0]  x,
    input logic [6:0]          h,
    input logic [7:0]          k,
    input logic [16:0]         f,
    input logic                u,
    input logic                dl,
    input logic [16:0]         cnt,
    input logic [5:0]          acc,
    input logic                rl,
    output logic [`PL011_STATE_W-1:0] n,
    output logic               synced,
    output logic               quiet,
    output logic [16:0]        wait_,
    output logic [7:0]         ev,
    output logic [21:0]        div
);
    pl011_step step (
        .rst_n(1'b1), .sel(1'b0), .write(1'b0), .addr(10'd0), .strb(4'd0), .wdata(32'd0),
        .rxd(h[6]), .ncts(h[5]), .ndsr(h[4]), .ndcd(h[3]), .nri(h[2]), .txdmaclr(h[1]), .rxdmaclr(h[0]),
        .fast_fwd(f), .skip_ticks(k), .div_load(dl), .rxd_load(rl), .div_cnt(cnt), .div_acc(acc), .txd_unseen(u),
        .s(x), .s_next(n), .synced, .quiet, .b16_wait(wait_), .ev_ticks(ev), .baud_div(div));
endmodule
