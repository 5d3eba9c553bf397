// SPDX-License-Identifier: Apache-2.0
// A directed sequence through the PL011's register port, written to run unchanged under Icarus Verilog
// (iverilog -g2012) and Verilator (--binary --timing). scripts/rtl-cosim runs it under both and requires
// the two dumps to be identical.
//
// The dump: lines "EV <edge> ..." on standard output, one per register access (a read with the data the
// edge sees and rd_err, a write with wr_err) and one per change of TXD, UARTINTR, FR, the FIFO levels,
// the modem outputs and the DMA requests, numbered by the rising edge before which the value was seen.
// Everything is sampled on the rising edge, before the edge takes effect; the stimulus changes on the
// falling edge (the register port) or, for RXD, as a flop on the rising edge: nothing races, so the
// order of processes, which the simulators choose differently, cannot show in the dump.
//
// The sequence: reset (every register's reset value, the ID registers, an address outside the map),
// a fractional divisor and a string sent with the FIFOs on, every frame format, character mode and the
// TX flush, RX of a character, a parity error, a framing error and a break (RSR and its clear), the
// receive timeout with RTIM set and clear, the RX, TX and modem interrupts masked and unmasked, loopback
// (characters and the modem lines), an overrun, BRK on TXD, CTS and RTS flow control, the DMA
// requests, a divisor written mid-character, the UART disabled with data queued, a reset mid-traffic.
// The bench checks what it can tell from outside as it goes (the string decoded from TXD,
// the characters and error bits DR returns, RIS/MIS/UARTINTR) and ends with "PASS <n> checks" or
// "FAIL <n> of <m> checks": agreeing simulators that both get the UART wrong would fail too.
module pl011_cosim_tb;
    localparam integer FIFO_DEPTH = 32;
    // Register map (word index) and bits, from the TRM.
    localparam logic [9:0] DR = 10'h000, RSR = 10'h001, FR = 10'h006, ILPR = 10'h008, IBRD = 10'h009,
        FBRD = 10'h00A, LCRH = 10'h00B, CR = 10'h00C, IFLS = 10'h00D, IMSC = 10'h00E, RIS = 10'h00F,
        MIS = 10'h010, ICR = 10'h011, DMACR = 10'h012;
    localparam logic [31:0] FR_CTS = 32'h001, FR_DSR = 32'h002, FR_DCD = 32'h004, FR_BUSY = 32'h008,
        FR_RXFE = 32'h010, FR_TXFF = 32'h020, FR_RXFF = 32'h040, FR_TXFE = 32'h080, FR_RI = 32'h100;
    localparam logic [31:0] I_RI = 32'h001, I_CTS = 32'h002, I_DCD = 32'h004, I_DSR = 32'h008,
        I_RX = 32'h010, I_TX = 32'h020, I_RT = 32'h040, I_FE = 32'h080, I_PE = 32'h100, I_BE = 32'h200,
        I_OE = 32'h400, I_ALL = 32'h7FF;
    // LCR_H: FEN with WLEN 8 and the rest clear is 8N1 with FIFOs.
    localparam logic [31:0] L_BRK = 32'h01, L_PEN = 32'h02, L_EPS = 32'h04, L_STP2 = 32'h08,
        L_FEN = 32'h10, L_W5 = 32'h00, L_W6 = 32'h20, L_W7 = 32'h40, L_W8 = 32'h60, L_SPS = 32'h80;
    // CR: UARTEN, TXE, RXE; LBE and the modem bits added where a step needs them.
    localparam logic [31:0] C_ON = 32'h0301, C_LBE = 32'h0080, C_DTR = 32'h0400, C_RTS = 32'h0800,
        C_OUT1 = 32'h1000, C_OUT2 = 32'h2000, C_RTSEN = 32'h4000, C_CTSEN = 32'h8000;

    logic clk = 1'b0, rst_n = 1'b0;
    logic sel = 1'b0, write = 1'b0;
    logic [9:0] addr = 10'd0;
    logic [3:0] strb = 4'd0;
    logic [31:0] wdata = 32'd0;
    logic rxd = 1'b1, ncts = 1'b1, ndsr = 1'b1, ndcd = 1'b1, nri = 1'b1;
    logic txdmaclr = 1'b0, rxdmaclr = 1'b0;

    wire [31:0] rdata;
    wire rd_err, wr_err, txd, nrts, ndtr, nout1, nout2, intr;
    wire txdmasreq, txdmabreq, rxdmasreq, rxdmabreq;
    wire [5:0] tx_level, rx_level;
    wire [8:0] flags;
    // The time-skipping outputs: not part of this comparison (the skip inputs stay 0).
    /* verilator lint_off UNUSEDSIGNAL */
    wire [16:0] b16_wait;
    wire [5:0] b16_acc;
    wire [21:0] baud_div;
    wire [7:0] ev_ticks, out_ticks, reg_ticks, busy_ticks, rx_frame_ticks;
    wire rx_busy, synced, quiet, tx_started, tx_in_char;
    wire [11:0] tx_line_bits;
    wire [3:0] tx_bits_left, tx_format;
    /* verilator lint_on UNUSEDSIGNAL */

    pl011 #(.FIFO_DEPTH(FIFO_DEPTH)) dut (
        .clk(clk), .rst_n(rst_n), .sel(sel), .write(write), .addr(addr), .strb(strb), .wdata(wdata),
        .rdata(rdata), .rd_err(rd_err), .wr_err(wr_err), .txd(txd), .rxd(rxd), .ncts(ncts), .ndsr(ndsr),
        .ndcd(ndcd), .nri(nri), .nrts(nrts), .ndtr(ndtr), .nout1(nout1), .nout2(nout2), .intr(intr),
        .txdmasreq(txdmasreq), .txdmabreq(txdmabreq), .rxdmasreq(rxdmasreq), .rxdmabreq(rxdmabreq),
        .txdmaclr(txdmaclr), .rxdmaclr(rxdmaclr), .tx_level(tx_level), .rx_level(rx_level),
        .flags(flags), .fast_fwd(17'd0), .skip_ticks(8'd0), .div_load(1'b0), .rxd_load(1'b0),
        .div_cnt(17'd0), .div_acc(6'd0), .b16_wait(b16_wait), .b16_acc(b16_acc), .baud_div(baud_div),
        .ev_ticks(ev_ticks), .out_ticks(out_ticks), .reg_ticks(reg_ticks), .busy_ticks(busy_ticks),
        .rx_busy(rx_busy), .rx_frame_ticks(rx_frame_ticks), .synced(synced), .quiet(quiet),
        .txd_unseen(1'b0), .tx_started(tx_started), .tx_line_bits(tx_line_bits),
        .tx_bits_left(tx_bits_left), .tx_in_char(tx_in_char), .tx_format(tx_format));

    // The clock, and the bench's own state (the dump's previous values, the TXD decoder), are kept with
    // blocking assignments in clocked processes: only the process that writes them reads them on that
    // edge.
    /* verilator lint_off BLKSEQ */
    always #5 clk = !clk;

    // ---------------------------------------------------------------- the dump
    integer edge_n = 0;
    logic logging = 1'b0;  // after the first reset edge: before it Icarus shows X, Verilator 0
    logic p_txd, p_intr, p_nrts, p_ndtr, p_nout1, p_nout2;
    logic [3:0] p_dma;
    logic [5:0] p_txl, p_rxl;
    logic [8:0] p_flags;
    logic first = 1'b1;
    always @(posedge clk) begin
        edge_n = edge_n + 1;
        if (logging && first) begin
            // The values to compare against: before this edge the simulators' variables start apart
            // (X in Icarus, 0 in Verilator).
            $display("EV %0d state txd %b intr %b fr %h txlevel %0d rxlevel %0d modem %b dma %b", edge_n, txd,
                     intr, flags, tx_level, rx_level, {nrts, ndtr, nout1, nout2},
                     {txdmasreq, txdmabreq, rxdmasreq, rxdmabreq});
            first = 1'b0;
        end else if (logging) begin
            if (sel && !write) $display("EV %0d rd %h %h err %b", edge_n, addr, rdata, rd_err);
            if (sel && write) $display("EV %0d wr %h %h strb %h err %b", edge_n, addr, wdata, strb, wr_err);
            if (txd !== p_txd) $display("EV %0d txd %b", edge_n, txd);
            if (intr !== p_intr) $display("EV %0d intr %b", edge_n, intr);
            if (flags !== p_flags) $display("EV %0d fr %h", edge_n, flags);
            if (tx_level !== p_txl) $display("EV %0d txlevel %0d", edge_n, tx_level);
            if (rx_level !== p_rxl) $display("EV %0d rxlevel %0d", edge_n, rx_level);
            if ({nrts, ndtr, nout1, nout2} !== {p_nrts, p_ndtr, p_nout1, p_nout2})
                $display("EV %0d modem nrts %b ndtr %b nout1 %b nout2 %b", edge_n, nrts, ndtr, nout1, nout2);
            if ({txdmasreq, txdmabreq, rxdmasreq, rxdmabreq} !== p_dma)
                $display("EV %0d dma %b", edge_n, {txdmasreq, txdmabreq, rxdmasreq, rxdmabreq});
        end
        {p_txd, p_intr, p_nrts, p_ndtr, p_nout1, p_nout2} = {txd, intr, nrts, ndtr, nout1, nout2};
        p_dma = {txdmasreq, txdmabreq, rxdmasreq, rxdmabreq};
        {p_txl, p_rxl, p_flags} = {tx_level, rx_level, flags};
    end

    // ---------------------------------------------------------------- RXD: a line driver
    // A frame of up to 64 bits, LSB first, `ln_period` cycles a bit, then the line high. It runs on the
    // rising edge as a flop (a non-blocking assignment) and takes a request the stimulus makes on a
    // falling edge: no race with the UART's synchroniser or with the stimulus.
    logic [63:0] ln_bits;
    integer ln_n, ln_period, ln_req = 0, ln_ack = 0, ln_i = 0, ln_t = 0;
    logic ln_active = 1'b0;
    always @(posedge clk) begin
        if (!ln_active) begin
            if (ln_req != ln_ack) begin
                ln_ack <= ln_req;
                ln_active <= 1'b1;
                ln_i <= 0;
                ln_t <= 0;
                rxd <= ln_bits[0];
            end
        end else if (ln_t == ln_period - 1) begin
            ln_t <= 0;
            if (ln_i == ln_n - 1) begin
                ln_active <= 1'b0;
                rxd <= 1'b1;
            end else begin
                ln_i <= ln_i + 1;
                rxd <= ln_bits[ln_i+1];
            end
        end else begin
            ln_t <= ln_t + 1;
        end
    end
    // A frame: start bit, `nd` data bits, parity if `pen` (inverted if `bad_par`), the stop bit (low if
    // `bad_stop`) and a second one if `stp2`.
    task automatic frame(input logic [7:0] c, input integer nd, input logic pen, input logic eps,
                         input logic sps, input logic stp2, input logic bad_par, input logic bad_stop,
                         output logic [63:0] bits, output integer n);
        logic [63:0] f;
        logic p;
        integer i;
        f = 64'd0;
        for (i = 0; i < nd; i = i + 1) f[1+i] = c[i];
        n = 1 + nd;
        if (pen) begin
            p = 1'b0;
            for (i = 0; i < nd; i = i + 1) p = p ^ c[i];
            p = sps ? !eps : (eps ? p : !p);
            f[n] = p ^ bad_par;
            n = n + 1;
        end
        f[n] = !bad_stop;
        n = n + 1;
        if (stp2) begin
            f[n] = 1'b1;
            n = n + 1;
        end
        bits = f;
    endtask
    // The message sent on TXD.
    localparam integer MSG_LEN = 15;
    // CR as an octal escape: Icarus 11 reads "\r" as "r".
    localparam logic [8*MSG_LEN-1:0] MSG = "Hello, PL011!\015\n";
    logic [7:0] msg[0:MSG_LEN-1];

    // ---------------------------------------------------------------- the steps
    // The sequence is built first as a table of steps, then run by one loop: Verilator inlines every
    // task call, and a sequence of a few hundred calls to tasks that wait on the clock made a C++ model
    // too large to compile in the time a test has.
    localparam integer MAX_STEPS = 2048;
    localparam logic [3:0] S_ACCESS = 4'd0,  // a = addr, d = data, m[0] = write, m[7:4] = strobes
        S_EXPECT = 4'd1,    // read a, check (q & m) == w
        S_IDLE = 4'd2,      // d cycles
        S_WAIT_FR = 4'd3,   // poll FR every d cycles until (FR & m) == w
        S_PINS = 4'd4,      // the inputs in m take the bits of d (at a falling edge)
        S_CHK_OUT = 4'd5,   // check (outputs & m) == w
        S_LINE = 4'd6,      // RXD sends st_bits, d bits of w cycles each
        S_BIT16 = 4'd7,     // the TXD decoder's bit time
        S_CHK_TX = 4'd8;    // the TXD decoder has the message
    logic [3:0] st_op[0:MAX_STEPS-1];
    logic [9:0] st_a[0:MAX_STEPS-1];
    logic [31:0] st_d[0:MAX_STEPS-1], st_m[0:MAX_STEPS-1], st_w[0:MAX_STEPS-1];
    logic [63:0] st_bits[0:MAX_STEPS-1];
    integer st_id[0:MAX_STEPS-1];
    integer n_steps = 0;
    task automatic step(input logic [3:0] op, input logic [9:0] a, input logic [31:0] d, input logic [31:0] m,
                        input logic [31:0] w, input integer id);
        st_op[n_steps] = op;
        st_a[n_steps] = a;
        st_d[n_steps] = d;
        st_m[n_steps] = m;
        st_w[n_steps] = w;
        st_id[n_steps] = id;
        st_bits[n_steps] = 64'd0;
        n_steps = n_steps + 1;
    endtask
    // The inputs a step sets, by bit of m and d.
    localparam logic [31:0] P_RST_N = 32'h01, P_NCTS = 32'h02, P_NDSR = 32'h04, P_NDCD = 32'h08,
        P_NRI = 32'h10, P_TXDMACLR = 32'h20, P_RXDMACLR = 32'h40, P_DECODE = 32'h80;
    // The outputs a step checks, by bit.
    localparam logic [31:0] O_INTR = 32'h01, O_NRTS = 32'h02, O_RXDMASREQ = 32'h04, O_RXDMABREQ = 32'h08,
        O_TXDMASREQ = 32'h10;
    wire [31:0] outs = {27'd0, txdmasreq, rxdmabreq, rxdmasreq, nrts, intr};

    // The steps the sequence is written in.
    task automatic access(input logic w, input logic [9:0] a, input logic [31:0] d, input logic [3:0] s);
        step(S_ACCESS, a, d, {24'd0, s, 3'd0, w}, 32'd0, 0);
    endtask
    task automatic wr(input logic [9:0] a, input logic [31:0] d);
        access(1'b1, a, d, 4'hF);
    endtask
    task automatic rd(input logic [9:0] a);
        access(1'b0, a, 32'd0, 4'h0);
    endtask
    // Reads `a` and checks it against `want` under `mask`.
    task automatic expect_reg(input logic [9:0] a, input logic [31:0] mask, input logic [31:0] want,
                              input integer id);
        step(S_EXPECT, a, 32'd0, mask, want, id);
    endtask
    task automatic idle(input integer n);
        step(S_IDLE, 10'd0, n, 32'd0, 32'd0, 0);
    endtask
    // Polls FR every `gap` cycles until (FR & mask) == want.
    task automatic wait_fr(input logic [31:0] mask, input logic [31:0] want, input integer gap, input integer id);
        step(S_WAIT_FR, FR, gap, mask, want, id);
    endtask
    task automatic pins(input logic [31:0] which, input logic [31:0] values);
        step(S_PINS, 10'd0, values, which, 32'd0, 0);
    endtask
    task automatic expect_out(input logic [31:0] which, input logic [31:0] want, input integer id);
        step(S_CHK_OUT, 10'd0, 32'd0, which, want, id);
    endtask
    // Sends with the FIFO: waits for room, writes.
    task automatic send(input logic [7:0] c);
        wait_fr(FR_TXFF, 32'd0, 4, 900);
        wr(DR, {24'd0, c});
    endtask
    task automatic wait_tx_done(input integer id);
        wait_fr(FR_BUSY | FR_TXFE, FR_TXFE, 8, id);
    endtask
    // The divisor takes effect with the LCR_H write after it.
    integer g_bit16 = 16 * 64;  // 64 * cycles a bit at the divisor set_line set
    task automatic set_line(input logic [15:0] ibrd, input logic [5:0] fbrd, input logic [31:0] lcrh);
        wr(IBRD, {16'd0, ibrd});
        wr(FBRD, {26'd0, fbrd});
        wr(LCRH, lcrh);
        g_bit16 = 16 * (64 * 32'(ibrd) + 32'(fbrd));
        step(S_BIT16, 10'd0, g_bit16, 32'd0, 32'd0, 0);
    endtask
    // Sends `n` bits on RXD, `period` cycles each, then waits until the line is idle again.
    task automatic line_send(input logic [63:0] bits, input integer n, input integer period);
        step(S_LINE, 10'd0, n, 32'd0, period, 0);
        st_bits[n_steps-1] = bits;
    endtask
    // A character on RXD at the bit time the bench set (with FBRD 0).
    task automatic rx_char(input logic [7:0] c, input integer nd, input logic pen, input logic eps,
                           input logic sps, input logic bad_par, input logic bad_stop);
        logic [63:0] f;
        integer n;
        frame(c, nd, pen, eps, sps, 1'b0, bad_par, bad_stop, f, n);
        line_send(f, n, g_bit16 / 64);
    endtask

    // ---------------------------------------------------------------- TXD: a decoder
    // Decodes 8N1 frames at the bit time `bit16` / 64 cycles (fractional divisors included), taking each
    // bit at its middle, into tx_got.
    logic dec_on = 1'b0;
    logic [7:0] tx_got[0:63];
    integer tx_n = 0, dec_t = 0, dec_k = 0;
    logic dec_busy = 1'b0;
    logic [9:0] dec_sh;
    always @(posedge clk) begin
        if (!dec_on) begin
            dec_busy = 1'b0;
        end else if (!dec_busy) begin
            if (txd === 1'b0) begin
                dec_busy = 1'b1;
                dec_t = 1;
                dec_k = 0;
            end
        end else begin
            // bit k's middle: (k + 1/2) bit times after the start bit's first cycle
            if (dec_t * 128 >= (2 * dec_k + 1) * bit16) begin
                dec_sh[dec_k] = txd;
                dec_k = dec_k + 1;
                if (dec_k == 10) begin
                    dec_busy = 1'b0;
                    if (tx_n < 64) tx_got[tx_n] = dec_sh[8:1];
                    tx_n = tx_n + 1;
                    if (dec_sh[0] !== 1'b0 || dec_sh[9] !== 1'b1) $display("TXD: a bad frame %b", dec_sh);
                end
            end
            dec_t = dec_t + 1;
        end
    end

    // ---------------------------------------------------------------- running the steps
    integer checks = 0, failures = 0;
    task automatic check(input logic ok, input integer id);
        checks = checks + 1;
        if (ok !== 1'b1) begin
            failures = failures + 1;
            $display("CHECK %0d FAILED before edge %0d", id, edge_n + 1);
        end
    endtask
    // One access: its inputs set on a falling edge, held over one rising edge, then released; `q` is
    // the read data that rising edge sees. Every access takes two cycles.
    logic [31:0] q;
    task automatic do_access(input logic w, input logic [9:0] a, input logic [31:0] d, input logic [3:0] s);
        @(negedge clk);
        sel = 1'b1;
        write = w;
        addr = a;
        wdata = d;
        strb = s;
        #1 q = rdata;
        @(negedge clk);
        sel = 1'b0;
        write = 1'b0;
    endtask
    integer bit16 = 16 * 64;  // the TXD decoder's: 64 * cycles a bit
    integer pc, polls, i;
    logic [31:0] sv;
    task automatic run_steps;
        for (pc = 0; pc < n_steps; pc = pc + 1) begin
            case (st_op[pc])
                S_ACCESS: do_access(st_m[pc][0], st_a[pc], st_d[pc], st_m[pc][7:4]);
                S_EXPECT: begin
                    do_access(1'b0, st_a[pc], 32'd0, 4'h0);
                    check((q & st_m[pc]) == st_w[pc], st_id[pc]);
                    if ((q & st_m[pc]) != st_w[pc])
                        $display("  read %h: %h, want %h under %h", st_a[pc], q, st_w[pc], st_m[pc]);
                end
                S_IDLE: repeat (st_d[pc]) @(negedge clk);
                S_WAIT_FR: begin
                    polls = 0;
                    do_access(1'b0, FR, 32'd0, 4'h0);
                    while ((q & st_m[pc]) != st_w[pc] && polls < 5000) begin
                        repeat (st_d[pc]) @(negedge clk);
                        do_access(1'b0, FR, 32'd0, 4'h0);
                        polls = polls + 1;
                    end
                    check((q & st_m[pc]) == st_w[pc], st_id[pc]);
                end
                S_PINS: begin
                    @(negedge clk);
                    sv = {24'd0, dec_on, rxdmaclr, txdmaclr, nri, ndcd, ndsr, ncts, rst_n};
                    sv = (sv & ~st_m[pc]) | (st_d[pc] & st_m[pc]);
                    {dec_on, rxdmaclr, txdmaclr, nri, ndcd, ndsr, ncts, rst_n} = sv[7:0];
                end
                S_CHK_OUT: begin
                    check((outs & st_m[pc]) == st_w[pc], st_id[pc]);
                    if ((outs & st_m[pc]) != st_w[pc])
                        $display("  outputs %h, want %h under %h", outs, st_w[pc], st_m[pc]);
                end
                S_LINE: begin
                    @(negedge clk);
                    ln_bits = st_bits[pc];
                    ln_n = st_d[pc];
                    ln_period = st_w[pc];
                    ln_req = ln_req + 1;
                    @(negedge clk);
                    while (ln_active || ln_ack != ln_req) @(negedge clk);
                    repeat (2) @(negedge clk);  // the line high long enough for the receiver to see the mark
                end
                S_BIT16: bit16 = st_d[pc];
                S_CHK_TX: begin
                    check(tx_n == MSG_LEN, st_id[pc]);
                    for (i = 0; i < MSG_LEN && i < tx_n; i = i + 1) check(tx_got[i] == msg[i], st_id[pc]);
                end
                default: check(1'b0, 999);
            endcase
        end
    endtask

    // ---------------------------------------------------------------- the sequence
    integer k, fmt;
    initial begin
        // The table.
        for (k = 0; k < MSG_LEN; k = k + 1) msg[k] = 8'(MSG >> (8 * (MSG_LEN - 1 - k)));

        // Reset, held over three edges (logging from the first).
        idle(3);
        pins(P_RST_N, P_RST_N);
        // Reset values (TRM 3.3): FR has TXFE and RXFE, CR 0x300, IFLS 0x12, the rest 0; the IDs.
        expect_reg(DR, 32'hFFFF_FFFF, 32'h0, 1);
        expect_reg(RSR, 32'hFFFF_FFFF, 32'h0, 2);
        expect_reg(FR, 32'hFFFF_FFFF, 32'h090, 3);
        expect_reg(ILPR, 32'hFFFF_FFFF, 32'h0, 4);
        expect_reg(IBRD, 32'hFFFF_FFFF, 32'h0, 5);
        expect_reg(FBRD, 32'hFFFF_FFFF, 32'h0, 6);
        expect_reg(LCRH, 32'hFFFF_FFFF, 32'h0, 7);
        expect_reg(CR, 32'hFFFF_FFFF, 32'h300, 8);
        expect_reg(IFLS, 32'hFFFF_FFFF, 32'h12, 9);
        expect_reg(IMSC, 32'hFFFF_FFFF, 32'h0, 10);
        expect_reg(RIS, 32'hFFFF_FFF0, 32'h0, 11);
        expect_reg(MIS, 32'hFFFF_FFFF, 32'h0, 12);
        expect_reg(DMACR, 32'hFFFF_FFFF, 32'h0, 13);
        for (k = 0; k < 8; k = k + 1) rd(10'h3F8 + 10'(k));
        expect_reg(10'h3FA, 32'hFF, 32'h34, 14);  // PeriphID2: revision 3, 32-entry FIFOs
        expect_reg(10'h3FF, 32'hFF, 32'hB1, 15);
        expect_reg(ICR, 32'hFFFF_FFFF, 32'h0, 16);  // write-only: rd_err (in the dump), reads 0
        rd(10'h013);
        rd(10'h3F0);
        wr(FR, 32'hFFFF);  // read-only: wr_err, no effect
        expect_reg(FR, 32'hFFFF_FFFF, 32'h090, 17);
        // Byte lanes: a write of lane 1 alone leaves lane 0.
        access(1'b1, ILPR, 32'h0000_5A00, 4'h2);
        expect_reg(ILPR, 32'hFF, 32'h00, 18);
        access(1'b1, ILPR, 32'h0000_005A, 4'h1);
        expect_reg(ILPR, 32'hFF, 32'h5A, 19);
        access(1'b1, CR, 32'h0000_0001, 4'h2);  // lane 1 writes CR[15:8] as 0: TXE, RXE off
        expect_reg(CR, 32'hFFFF, 32'h0000, 20);

        // A fractional divisor (3 + 17/64), 8N1 with FIFOs; the string goes out of TXD.
        set_line(16'd3, 6'd17, L_W8 | L_FEN);
        wr(CR, C_ON);
        pins(P_DECODE, P_DECODE);
        for (k = 0; k < MSG_LEN; k = k + 1) wr(DR, {24'd0, msg[k]});
        expect_reg(FR, FR_BUSY | FR_TXFE, FR_BUSY, 21);
        wait_tx_done(22);
        idle(100);
        pins(P_DECODE, 32'd0);
        step(S_CHK_TX, 10'd0, 32'd0, 32'd0, 32'd0, 23);

        // Every frame format, one character each, at IBRD 1: 5 to 8 bits, odd, even and stick parity,
        // one and two stop bits.
        for (fmt = 0; fmt < 16; fmt = fmt + 1) begin
            set_line(16'd1, 6'd0, L_FEN | (32'(fmt % 4) << 5) | (fmt / 4 == 1 ? L_PEN : 32'd0)
                     | (fmt / 4 == 2 ? L_PEN | L_EPS | L_STP2 : 32'd0)
                     | (fmt / 4 == 3 ? L_PEN | L_SPS | (fmt % 2 == 0 ? L_EPS : 32'd0) : 32'd0));
            send(8'hA5 ^ 8'(fmt * 7));
            send(8'h3C);
        end
        wait_tx_done(25);

        // Character mode: one holding register. A second write while it is full is lost (TXFF).
        set_line(16'd2, 6'd0, L_W8);
        wr(DR, 32'h55);
        idle(4);  // into the shifter on the next enable
        wr(DR, 32'h66);
        expect_reg(FR, FR_TXFF | FR_TXFE, FR_TXFF, 26);
        wr(DR, 32'h77);
        wait_tx_done(27);
        // Clearing FEN flushes the TX FIFO: the character in the shifter completes, the rest goes.
        set_line(16'd2, 6'd0, L_W8 | L_FEN);
        for (k = 0; k < 6; k = k + 1) wr(DR, 32'h30 + 32'(k));
        idle(80);
        wr(LCRH, L_W8);
        expect_reg(FR, FR_TXFE | FR_BUSY, FR_TXFE | FR_BUSY, 28);
        wait_tx_done(29);

        // RX at IBRD 1 (16 cycles a bit): a character, a parity error, a framing error, a break.
        set_line(16'd1, 6'd0, L_W8 | L_FEN | L_PEN | L_EPS);  // 8E1
        wr(IMSC, 32'd0);
        wr(ICR, I_ALL);
        rx_char("A", 8, 1'b1, 1'b1, 1'b0, 1'b0, 1'b0);
        rx_char("B", 8, 1'b1, 1'b1, 1'b0, 1'b1, 1'b0);  // parity wrong
        rx_char("C", 8, 1'b1, 1'b1, 1'b0, 1'b0, 1'b1);  // stop bit low
        line_send(64'd0, 30, 16);                       // a break: 30 bit times low
        idle(40);
        expect_reg(RIS, I_FE | I_PE | I_BE | I_OE, I_FE | I_PE | I_BE, 30);
        expect_reg(MIS, I_ALL, 32'd0, 31);
        expect_out(O_INTR, 32'd0, 32);
        expect_reg(DR, 32'hFFF, 32'h041, 33);
        expect_reg(RSR, 32'hF, 32'h0, 34);
        expect_reg(DR, 32'hFFF, 32'h242, 35);  // PE
        expect_reg(RSR, 32'hF, 32'h2, 36);
        expect_reg(DR, 32'hFFF, 32'h143, 37);  // FE
        expect_reg(DR, 32'hFFF, 32'h500, 38);  // BE and FE, the frame low throughout
        expect_reg(RSR, 32'hF, 32'h7, 39);
        wr(RSR, 32'd0);  // ECR
        expect_reg(RSR, 32'hF, 32'h0, 40);
        expect_reg(FR, FR_RXFE, FR_RXFE, 41);
        // Other formats on RX: 5 bits odd parity, 7 bits stick parity, 6 bits no parity.
        set_line(16'd1, 6'd0, L_W5 | L_FEN | L_PEN);
        rx_char(8'h15, 5, 1'b1, 1'b0, 1'b0, 1'b0, 1'b0);
        set_line(16'd1, 6'd0, L_W7 | L_FEN | L_PEN | L_SPS);
        rx_char(8'h5A, 7, 1'b1, 1'b0, 1'b1, 1'b0, 1'b0);
        rx_char(8'h5A, 7, 1'b1, 1'b0, 1'b1, 1'b1, 1'b0);  // stick parity wrong
        set_line(16'd1, 6'd0, L_W6 | L_FEN);
        rx_char(8'h2B, 6, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0);
        idle(40);
        expect_reg(DR, 32'hFFF, 32'h015, 42);
        expect_reg(DR, 32'hFFF, 32'h05A, 43);
        expect_reg(DR, 32'hFFF, 32'h25A, 44);
        expect_reg(DR, 32'hFFF, 32'h02B, 45);
        // LOW glitches on RXD that end before the start bit's readings are false starts: nothing received.
        line_send(64'd0, 1, 4);
        idle(30);
        line_send(64'd0, 1, 6);
        idle(30);
        expect_reg(FR, FR_RXFE, FR_RXFE, 46);

        // Receive timeout: RTIM clear holds it off; set, it fires 32 bit periods after the character.
        set_line(16'd1, 6'd0, L_W8 | L_FEN);
        wr(ICR, I_ALL);
        rx_char("t", 8, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0);
        idle(700);
        expect_reg(RIS, I_RT, 32'd0, 47);
        wr(IMSC, I_RT);
        idle(400);
        expect_reg(RIS, I_RT, 32'd0, 48);  // 400 of the 512 enables
        idle(150);
        expect_reg(RIS, I_RT, I_RT, 49);
        expect_reg(MIS, I_ALL, I_RT, 50);
        expect_out(O_INTR, O_INTR, 51);
        wr(ICR, I_RT);
        expect_reg(MIS, I_ALL, 32'd0, 52);
        expect_out(O_INTR, 32'd0, 53);
        idle(600);  // once: no second timeout for the same data
        expect_reg(RIS, I_RT, 32'd0, 54);
        rx_char("u", 8, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0);
        idle(600);
        expect_reg(MIS, I_ALL, I_RT, 55);
        expect_reg(DR, 32'hFFF, "t", 56);
        expect_reg(DR, 32'hFFF, "u", 57);  // emptying the FIFO clears RT
        expect_reg(RIS, I_RT, 32'd0, 58);
        wr(IMSC, 32'd0);

        // The RX interrupt at the 1/8 level (4 entries), masked then unmasked; reading below clears it.
        wr(IFLS, 32'h00);
        for (k = 0; k < 4; k = k + 1) rx_char(8'h61 + 8'(k), 8, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0);
        expect_reg(RIS, I_RX, I_RX, 59);
        expect_reg(MIS, I_ALL, 32'd0, 60);
        expect_out(O_INTR, 32'd0, 61);
        wr(IMSC, I_RX);
        expect_reg(MIS, I_ALL, I_RX, 62);
        expect_out(O_INTR, O_INTR, 63);
        rd(DR);
        expect_reg(RIS, I_RX, 32'd0, 64);
        for (k = 0; k < 3; k = k + 1) rd(DR);
        expect_reg(FR, FR_RXFE, FR_RXFE, 65);
        // The TX interrupt at the 1/8 level: raised when the fill drains down through 4.
        wr(IMSC, 32'd0);
        for (k = 0; k < 8; k = k + 1) wr(DR, 32'h41 + 32'(k));
        expect_reg(RIS, I_TX, 32'd0, 66);
        wait_fr(FR_BUSY, 32'd0, 8, 67);
        expect_reg(RIS, I_TX, I_TX, 68);
        expect_reg(MIS, I_ALL, 32'd0, 69);
        wr(IMSC, I_TX);
        expect_out(O_INTR, O_INTR, 70);
        wr(ICR, I_TX);
        expect_out(O_INTR, 32'd0, 71);
        for (k = 0; k < 8; k = k + 1) wr(DR, 32'h61 + 32'(k));
        idle(520);  // four characters gone: the fill passes down through 4
        expect_out(O_INTR, O_INTR, 72);
        wr(DR, 32'h7A);  // filling above the level clears it
        expect_out(O_INTR, 32'd0, 73);
        wait_tx_done(74);
        // Modem interrupts: either edge of CTS, DSR, DCD and RI.
        wr(ICR, I_ALL);
        wr(IMSC, I_RI | I_CTS | I_DCD | I_DSR);
        pins(P_NCTS, 32'd0);
        idle(4);
        expect_reg(MIS, I_ALL, I_CTS, 75);
        expect_reg(FR, FR_CTS, FR_CTS, 76);
        pins(P_NDSR | P_NDCD | P_NRI, 32'd0);
        idle(4);
        expect_reg(MIS, I_ALL, I_CTS | I_DSR | I_DCD | I_RI, 77);
        wr(ICR, I_CTS | I_DSR);
        expect_reg(MIS, I_ALL, I_DCD | I_RI, 78);
        wr(IMSC, I_CTS);
        expect_reg(MIS, I_ALL, 32'd0, 79);
        pins(P_NCTS | P_NDSR | P_NDCD | P_NRI, P_NCTS | P_NDSR | P_NDCD | P_NRI);
        idle(4);
        expect_reg(RIS, 32'hF, 32'hF, 80);
        expect_out(O_INTR, O_INTR, 81);
        wr(ICR, I_ALL);
        wr(IMSC, 32'd0);
        // CTS flow control: with CTSEN and nCTS high, no character starts.
        wr(CR, C_ON | C_CTSEN);
        wr(DR, 32'h21);
        idle(200);
        expect_reg(FR, FR_TXFE, 32'd0, 82);
        pins(P_NCTS, 32'd0);
        wait_tx_done(83);
        pins(P_NCTS, P_NCTS);

        // Loopback: TXD into the receiver, the modem outputs into the modem inputs.
        wr(CR, C_ON | C_LBE);
        wr(ICR, I_ALL);
        set_line(16'd1, 6'd0, L_W7 | L_FEN | L_PEN | L_EPS | L_STP2);
        for (k = 0; k < 5; k = k + 1) wr(DR, 32'h50 + 32'(k));
        wait_tx_done(84);
        idle(40);
        for (k = 0; k < 5; k = k + 1) expect_reg(DR, 32'hFFF, 32'h50 + 32'(k), 85);
        // BRK in loopback: the receiver sees a break.
        wr(LCRH, L_W8 | L_FEN | L_BRK);
        idle(300);
        wr(LCRH, L_W8 | L_FEN);
        idle(40);
        expect_reg(DR, 32'hFFF, 32'h500, 86);
        // An overrun: 34 characters into a 32-entry FIFO; the 33rd is lost, the 34th is not pushed
        // either, and the next one that fits carries OE.
        wr(ICR, I_ALL);
        wr(IMSC, I_OE);
        for (k = 0; k < 34; k = k + 1) send(8'(k));
        wait_tx_done(87);
        idle(40);
        expect_reg(RIS, I_OE, I_OE, 88);
        expect_out(O_INTR, O_INTR, 89);
        expect_reg(FR, FR_RXFF, FR_RXFF, 90);
        expect_reg(RSR, 32'h8, 32'h8, 91);
        for (k = 0; k < 32; k = k + 1) expect_reg(DR, 32'hFFF, 32'(k), 92);
        send(8'h99);
        wait_tx_done(93);
        idle(40);
        expect_reg(DR, 32'hFFF, 32'h899, 94);
        wr(ICR, I_ALL);
        wr(RSR, 32'd0);
        // The modem lines looped: RTS, DTR, OUT1, OUT2 read back as CTS, DSR, DCD, RI.
        wr(IMSC, I_RI | I_CTS | I_DCD | I_DSR);
        wr(CR, C_ON | C_LBE | C_RTS | C_DTR | C_OUT1 | C_OUT2);
        expect_reg(FR, FR_CTS | FR_DSR | FR_DCD | FR_RI, FR_CTS | FR_DSR | FR_DCD | FR_RI, 95);
        expect_reg(MIS, I_ALL, I_RI | I_CTS | I_DCD | I_DSR, 96);
        wr(CR, C_ON | C_LBE | C_DTR);
        expect_reg(FR, FR_CTS | FR_DSR | FR_DCD | FR_RI, FR_DSR, 97);
        wr(ICR, I_ALL);
        wr(IMSC, 32'd0);

        // RTS flow control: nRTS deasserted (high) once the RX fill reaches the level (4 at 1/8).
        wr(CR, C_ON | C_LBE | C_RTSEN);
        for (k = 0; k < 5; k = k + 1) wr(DR, 32'h70 + 32'(k));
        wait_tx_done(98);
        idle(40);
        expect_out(O_NRTS, O_NRTS, 99);
        for (k = 0; k < 5; k = k + 1) rd(DR);
        expect_out(O_NRTS, 32'd0, 100);

        // DMA requests: single and burst, TX and RX, the clears, DMAONERR, and none with UARTEN 0.
        wr(DMACR, 32'h7);
        for (k = 0; k < 6; k = k + 1) wr(DR, 32'h30 + 32'(k));
        pins(P_TXDMACLR, P_TXDMACLR);
        idle(20);
        pins(P_TXDMACLR, 32'd0);
        wait_tx_done(101);
        idle(40);
        expect_out(O_RXDMASREQ | O_RXDMABREQ, O_RXDMASREQ | O_RXDMABREQ, 102);
        pins(P_RXDMACLR, P_RXDMACLR);
        idle(3);
        expect_out(O_RXDMASREQ, 32'd0, 103);
        pins(P_RXDMACLR, 32'd0);
        for (k = 0; k < 6; k = k + 1) rd(DR);
        wr(IMSC, I_BE | I_FE);
        wr(LCRH, L_W8 | L_FEN | L_BRK);
        idle(300);
        wr(LCRH, L_W8 | L_FEN);
        idle(40);
        expect_out(O_RXDMASREQ, 32'd0, 104);  // DMAONERR: paused while the error interrupt is set
        wr(ICR, I_ALL);
        expect_out(O_RXDMASREQ, O_RXDMASREQ, 105);
        wr(CR, C_LBE);
        expect_out(O_TXDMASREQ | O_RXDMASREQ, 32'd0, 106);
        rd(DR);
        wr(DMACR, 32'd0);
        wr(IMSC, 32'd0);

        // A divisor written mid-character waits for its end; the UART disabled mid-character.
        wr(CR, C_ON);
        set_line(16'd2, 6'd0, L_W8 | L_FEN);
        wr(DR, 32'hC3);
        idle(100);
        set_line(16'd1, 6'd33, L_W8 | L_FEN);
        wr(DR, 32'h3C);
        wait_tx_done(107);
        wr(DR, 32'h81);
        wr(DR, 32'h82);
        idle(50);
        wr(CR, 32'd0);
        idle(200);
        expect_reg(FR, FR_BUSY, FR_BUSY, 108);
        wr(CR, C_ON);
        wait_tx_done(109);
        // Reset in the middle of traffic.
        wr(DR, 32'hAA);
        idle(30);
        pins(P_RST_N, 32'd0);
        idle(2);
        pins(P_RST_N, P_RST_N);
        expect_reg(FR, 32'hFFFF_FFFF, 32'h090, 110);
        expect_reg(IBRD, 32'hFFFF, 32'h0, 111);
        idle(10);

    end
    // The run, from the first falling edge: the table is complete by then (built at time 0, without
    // waiting, in a process of its own, which Verilator compiles as plain code, not as a coroutine).
    initial begin
        @(negedge clk);
        if (n_steps > MAX_STEPS) begin
            $display("FAIL: %0d steps, room for %0d", n_steps, MAX_STEPS);
            $finish;
        end
        logging = 1'b1;
        run_steps;
        if (failures == 0) $display("PASS %0d checks, %0d steps, %0d edges", checks, n_steps, edge_n);
        else $display("FAIL %0d of %0d checks", failures, checks);
        $finish;
    end
endmodule
