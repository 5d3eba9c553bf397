// SPDX-License-Identifier: Apache-2.0
// Invariants of the PL011 RTL, checked by scripts/rtl-formal (Yosys read_verilog -formal, Yosys's ABC).
//
// One DUT driven by free inputs from a reset: every register access, line and modem level and reset an
// integrator can apply. Edges may also be valid skips (skip_ticks / fast_fwd as the RTL's validity
// outputs allow them, as the TLM wrapper uses them): pl011_skip.sv proves those equal to plain clocking,
// and they take a bounded search to states a plain 40-edge run cannot reach (a whole character, the
// receive timeout's 512 enables). CHECK selects one property group (a run per
// group, so that each has its own result); assertions are checked once the first reset edge is taken.
// IBRD_MAX bounds IBRD writes, which keeps the enables frequent for a bounded check; the default, 65535,
// is any divisor (every property closes by induction, where no bound is needed).
module pl011_props #(
    parameter int FIFO_DEPTH = 16,
    parameter int CHECK = 0,      // 1 FIFO levels and flags, 2 BUSY, 3 interrupts, 4 TXD idle,
                                  // 5 reset values, 6 registers and state without sel
    parameter int IBRD_MAX = 65535,
    parameter int SKIPS = 1       // 0: plain edges only
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
    input logic [16:0] fast_fwd,
    input logic [7:0]  skip_ticks,
    input logic        txd_unseen
);
    localparam int LW = $clog2(FIFO_DEPTH) + 1;
    localparam logic [9:0] A_DR = 10'h000, A_RSR = 10'h001, A_FR = 10'h006, A_ILPR = 10'h008,
        A_IBRD = 10'h009, A_FBRD = 10'h00A, A_LCRH = 10'h00B, A_CR = 10'h00C, A_IFLS = 10'h00D,
        A_IMSC = 10'h00E, A_RIS = 10'h00F, A_MIS = 10'h010, A_ICR = 10'h011, A_DMACR = 10'h012;

    logic [31:0] rdata;
    logic rd_err, wr_err, txd, nrts, ndtr, nout1, nout2, intr;
    logic txdmasreq, txdmabreq, rxdmasreq, rxdmabreq;
    logic [5:0] tx_level, rx_level, b16_acc;
    logic [8:0] flags;
    logic [16:0] b16_wait;
    logic [21:0] baud_div;
    logic [7:0] ev_ticks, out_ticks, reg_ticks, busy_ticks, rx_frame_ticks;
    logic rx_busy, synced, quiet, tx_started, tx_in_char;
    logic [11:0] tx_line_bits;
    logic [3:0] tx_bits_left, tx_format;

    pl011 #(.FIFO_DEPTH(FIFO_DEPTH)) dut (
        .clk, .rst_n, .sel, .write, .addr, .strb, .wdata, .rdata, .rd_err, .wr_err,
        .txd, .rxd, .ncts, .ndsr, .ndcd, .nri, .nrts, .ndtr, .nout1, .nout2, .intr,
        .txdmasreq, .txdmabreq, .rxdmasreq, .rxdmabreq, .txdmaclr, .rxdmaclr,
        .tx_level, .rx_level, .flags,
        .fast_fwd, .skip_ticks, .div_load(1'b0), .rxd_load(1'b0), .div_cnt(17'd0), .div_acc(6'd0),
        .b16_wait, .b16_acc, .baud_div, .ev_ticks, .out_ticks, .reg_ticks, .busy_ticks, .rx_busy,
        .rx_frame_ticks, .synced, .quiet, .txd_unseen, .tx_started, .tx_line_bits, .tx_bits_left,
        .tx_in_char, .tx_format);

    // ------------------------------------------------------------ environment
    // Assertions start once the first reset edge has been taken (the registers start anywhere).
    logic started = 1'b0;
    always_ff @(posedge clk) if (!rst_n) started <= 1'b1;
    always_comb if ($initstate) assume (!rst_n);

    wire acc_wr = sel && write;
    // Skip edges as the wrapper issues them.
    logic skipping;
    pl011_skip_rule rule (
        .en(1'b1), .allowed(SKIPS != 0), .rst_n, .sel, .synced, .b16_wait, .ev_ticks, .fast_fwd, .skip_ticks,
        .txd_unseen, .skipping);

    // A model of the registers software writes: their values follow from the writes alone.
    logic [7:0] m_ilpr, m_lcrh;
    logic [15:0] m_ibrd, m_cr;
    logic [5:0] m_fbrd, m_ifls;
    logic [10:0] m_imsc;
    logic [2:0] m_dmacr;
    wire [31:0] lanes = {{8{strb[3]}}, {8{strb[2]}}, {8{strb[1]}}, {8{strb[0]}}};
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            m_ilpr <= 0; m_lcrh <= 0; m_ibrd <= 0; m_cr <= 16'h0300; m_fbrd <= 0; m_ifls <= 6'h12;
            m_imsc <= 0; m_dmacr <= 0;
        end else if (acc_wr) begin
            case (addr)
                A_ILPR: if (strb[0]) m_ilpr <= wdata[7:0];
                A_IBRD: m_ibrd <= (m_ibrd & ~lanes[15:0]) | (wdata[15:0] & lanes[15:0]);
                A_FBRD: if (strb[0]) m_fbrd <= wdata[5:0];
                A_LCRH: if (strb[0]) m_lcrh <= wdata[7:0];
                A_CR: m_cr <= ((m_cr & ~lanes[15:0]) | (wdata[15:0] & lanes[15:0])) & 16'hFF87;
                A_IFLS: if (strb[0]) m_ifls <= wdata[5:0];
                A_IMSC: m_imsc <= (m_imsc & ~lanes[10:0]) | (wdata[10:0] & lanes[10:0]);
                A_DMACR: if (strb[0]) m_dmacr <= wdata[2:0];
                default: ;
            endcase
        end
    end
    wire fen = m_lcrh[4], brk = m_lcrh[0];
    always_comb if (acc_wr && addr == A_IBRD)
        assume (((m_ibrd & ~lanes[15:0]) | (wdata[15:0] & lanes[15:0])) <= IBRD_MAX);
    wire busy = flags[3], rxfe = flags[4], txff = flags[5], rxff = flags[6], txfe = flags[7];

    // ------------------------------------------------------------ 1: FIFO levels and flags
    // TRM 3.3.3: with the FIFOs on, TXFE/RXFE empty and TXFF/RXFF full FIFO; off, the same of a
    // one-entry holding register. Clearing FEN flushes the TX FIFO, so it holds at most one entry then;
    // the RX FIFO keeps what it holds, and RXFF reads "holding register full" while it holds any.
    generate if (CHECK == 1) begin : g_fifo
        always_comb if (started) begin
            assert (tx_level <= FIFO_DEPTH && rx_level <= FIFO_DEPTH);
            assert (txfe == (tx_level == 0) && rxfe == (rx_level == 0));
            assert (txff == (fen ? tx_level == FIFO_DEPTH : tx_level != 0));
            assert (rxff == (fen ? rx_level == FIFO_DEPTH : rx_level != 0));
            if (!fen) assert (tx_level <= 1);
            if (addr == A_FR) assert (rdata == {23'b0, flags});
        end
        // A write into a TX FIFO with room adds one entry; a DR read of a non-empty RX FIFO takes one.
        always_ff @(posedge clk) if (started && rst_n && $past(started) && $past(rst_n) && !$initstate) begin
            if ($past(acc_wr && addr == A_DR && strb[0] && !txff && skip_ticks == 0 && fast_fwd <= 1)
                && !$past(acc_wr && addr == A_LCRH && strb[0]))
                assert (tx_level == $past(tx_level) + 6'd1 || tx_level == $past(tx_level));
        end
    end endgenerate

    // ------------------------------------------------------------ 2: BUSY
    // TRM 3.3.3 / 2.4.3: BUSY is set as soon as the TX FIFO is non-empty, UART enabled or not, and
    // stays set until the last stop bit of the last character has left the shift register.
    generate if (CHECK == 2) begin : g_busy
        always_comb if (started) begin
            assert (busy == (tx_level != 0 || tx_in_char));
            if (tx_level != 0) assert (busy);
        end
        always_ff @(posedge clk) if (started && $past(started) && !$initstate && rst_n && $past(rst_n)) begin
            // A character written into room sets it at once.
            if ($past(acc_wr && addr == A_DR && strb[0] && !txff)) assert (busy);
            // It falls only where a character ends with the FIFO empty (the end of its stop bits, TXD
            // high; a skip with TXD unseen passes the stop bit's edge, so there TXD still shows an
            // earlier bit), or where clearing FEN flushes a FIFO no character is leaving.
            if ($past(busy) && !busy)
                assert (($past(tx_in_char) && !tx_in_char && ($past(txd) || $past(txd_unseen)) && tx_level == 0)
                        || ($past(acc_wr && addr == A_LCRH && strb[0] && !wdata[4]) && !$past(tx_in_char)));
        end
    end endgenerate

    // ------------------------------------------------------------ 3: interrupts
    // TRM 3.3.12/3.3.13: MIS = RIS AND IMSC; 2.8: UARTINTR is the OR of the individual masked interrupts
    // (RX, TX, RT, the four modem ones and the four error ones). One instance reads one register at a
    // time, so MIS is compared with RIS read one edge before, across an edge that changes nothing
    // (no access, no Baud16 enable, no skip, inputs settled: what check 6 proves leaves every read as
    // it was).
    generate if (CHECK == 3) begin : g_irq
        logic [10:0] ris_q;
        logic ris_read_quiet = 1'b0;
        always_ff @(posedge clk) begin
            ris_q <= rdata[10:0];
            ris_read_quiet <= started && rst_n && !sel && addr == A_RIS && synced && b16_wait != 17'd1
                              && !skipping;
        end
        always_comb if (started) begin
            if (addr == A_RIS) assert (rdata[31:11] == 0 && intr == |(rdata[10:0] & m_imsc));
            if (addr == A_MIS) begin
                assert (rdata[31:11] == 0 && (rdata[10:0] & ~m_imsc) == 0 && intr == |rdata[10:0]);
                // The error interrupt pauses the RX DMA requests under DMAONERR (2.7).
                if (m_dmacr[2] && |rdata[10:7]) assert (!rxdmasreq && !rxdmabreq);
                if (ris_read_quiet && rst_n && !sel) assert (rdata[10:0] == (ris_q & m_imsc));
            end
            if (addr == A_IMSC) assert (rdata == {21'b0, m_imsc});
        end
    end endgenerate

    // ------------------------------------------------------------ 4: TXD idle high
    // The line is marking (high) whenever no character is in the shifter, unless BRK holds it low;
    // in particular from a reset until the first character is written.
    generate if (CHECK == 4) begin : g_txd
        logic written = 1'b0;
        always_ff @(posedge clk) written <= rst_n && (written || (acc_wr && addr == A_DR && strb[0]));
        always_comb if (started) begin
            if (!tx_in_char && !brk) assert (txd);
            if (!busy && !brk) assert (txd);
            if (!written && !brk) assert (txd && !tx_in_char);
            if (brk && !tx_in_char) assert (!txd);
        end
    end endgenerate

    // ------------------------------------------------------------ 5: reset values
    // After a reset edge (TRM 3.2 table 3-1; FR with the synchronisers at their reset level: nCTS etc.
    // high, so CTS, DSR, DCD and RI read 0; PeriphID2 0x14 at 16 entries, 0x34 at 32).
    generate if (CHECK == 5) begin : g_reset
        logic [31:0] want;
        logic known;
        always_comb begin
            known = 1'b1;
            case (addr)
                A_DR, A_RSR, A_ILPR, A_IBRD, A_FBRD, A_LCRH, A_IMSC, A_RIS, A_MIS, A_DMACR: want = 0;
                A_FR: want = 32'h090;
                A_CR: want = 32'h300;
                A_IFLS: want = 32'h12;
                10'h3F8: want = 32'h11;
                10'h3F9: want = 32'h10;
                10'h3FA: want = FIFO_DEPTH == 32 ? 32'h34 : 32'h14;
                10'h3FB: want = 32'h00;
                10'h3FC: want = 32'h0D;
                10'h3FD: want = 32'hF0;
                10'h3FE: want = 32'h05;
                10'h3FF: want = 32'hB1;
                default: begin want = 0; known = 1'b0; end
            endcase
        end
        logic after_reset = 1'b0;
        always_ff @(posedge clk) after_reset <= !rst_n;
        always_comb if (after_reset) begin
            if (known) assert (rdata == want && !rd_err);
            else assert (rd_err && rdata == 0 || addr == A_ICR);
            assert (txd && nrts && ndtr && nout1 && nout2 && !intr);
            assert (!txdmasreq && !txdmabreq && !rxdmasreq && !rxdmabreq);
            assert (tx_level == 0 && rx_level == 0 && baud_div == 0 && b16_wait == 0);
        end
    end endgenerate

    // ------------------------------------------------------------ 6: registers and state without sel
    // (a) Each register software writes reads back as the writes made it (TRM write semantics, the
    //     byte lanes, CR's reserved bits): it changes on its own writes and on nothing else.
    // (b) An edge without an access that is no Baud16 enable (b16_wait != 1, no skip), with the
    //     inputs settled and steady (`synced`), changes nothing but the divider's counter: every
    //     register reads the same, every output holds (tx_started, "the last edge started a
    //     character", falls). So without `sel`, state moves only by the line (an input change passing
    //     the synchronisers, the receiver and transmitter on enables) and the baud generator.
    generate if (CHECK == 6) begin : g_nosel
        always_comb if (started) begin
            case (addr)
                A_ILPR: assert (rdata == {24'b0, m_ilpr});
                A_IBRD: assert (rdata == {16'b0, m_ibrd});
                A_FBRD: assert (rdata == {26'b0, m_fbrd});
                A_LCRH: assert (rdata == {24'b0, m_lcrh});
                A_CR: assert (rdata == {16'b0, m_cr});
                A_IFLS: assert (rdata == {26'b0, m_ifls});
                A_IMSC: assert (rdata == {21'b0, m_imsc});
                A_DMACR: assert (rdata == {29'b0, m_dmacr});
                default: ;
            endcase
        end
        logic was_plain_idle = 1'b0;
        always_ff @(posedge clk)
            was_plain_idle <= started && rst_n && !sel && synced && b16_wait != 17'd1 && !skipping;
        always_ff @(posedge clk) if (was_plain_idle && rst_n && !$initstate && addr == $past(addr)) begin
            assert (rdata == $past(rdata) && rd_err == $past(rd_err));
            assert (txd == $past(txd) && intr == $past(intr) && flags == $past(flags));
            assert (nrts == $past(nrts) && ndtr == $past(ndtr) && nout1 == $past(nout1) && nout2 == $past(nout2));
            assert (tx_level == $past(tx_level) && rx_level == $past(rx_level));
            assert (txdmasreq == $past(txdmasreq) && txdmabreq == $past(txdmabreq));
            assert (rxdmasreq == $past(rxdmasreq) && rxdmabreq == $past(rxdmabreq));
            assert (baud_div == $past(baud_div) && b16_acc == $past(b16_acc) && !tx_started);
            assert (tx_line_bits == $past(tx_line_bits) && tx_bits_left == $past(tx_bits_left));
            assert (tx_in_char == $past(tx_in_char) && tx_format == $past(tx_format) && rx_busy == $past(rx_busy));
            // The divider runs while the latched IBRD is valid (non-zero), whatever FBRD holds.
            if (baud_div[21:6] != 0) assert (b16_wait == $past(b16_wait) - 17'd1);
            else assert (b16_wait == 0);
        end
    end endgenerate
endmodule
