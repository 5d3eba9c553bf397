// SPDX-License-Identifier: Apache-2.0
// Runs the PL011 RTL (`pl011`) and Yosys's synthesized netlist of it (`pl011_netlist`, same FIFO depth)
// side by side on the same pseudo-random stimulus and compares every output on every cycle. Built by
// rtl_open_tools.sh for Icarus Verilog; prints one line, "PASS ..." or "FAIL ...".
//
// The stimulus is register traffic biased to the register map, with small divisors so that characters
// are short, in phases of a few thousand cycles: RXD from noise, from an idle line or from TXD itself
// (well-formed frames); DR read often (RX drained) or never (RX fills up, overruns, timeouts); Baud16
// enables skipped often or seldom. Modem lines, DMA clears and resets change now and then; fast_fwd and
// skip_ticks take legal values from the RTL's b16_wait and ev_ticks; div_load gives a quiet UART's
// divider a state it can reach; rxd_load loads the input synchroniser now and then. Coverage counts at
// the end fail the run if the stimulus stopped reaching full FIFOs, overruns, timeouts, interrupts and
// the four skip inputs.
module pl011_netlist_tb;
    parameter integer FIFO_DEPTH = 32;
    parameter integer CYCLES = 40000;
    parameter integer SEED = 1;

    reg clk = 1'b0, rst_n = 1'b0;
    reg sel = 1'b0, write = 1'b0;
    reg [9:0] addr = 10'd0;
    reg [3:0] strb = 4'd0;
    reg [31:0] wdata = 32'd0;
    reg rxd = 1'b1, ncts = 1'b1, ndsr = 1'b1, ndcd = 1'b1, nri = 1'b1;
    reg txdmaclr = 1'b0, rxdmaclr = 1'b0;
    reg [16:0] fast_fwd = 17'd0;
    reg [7:0] skip_ticks = 8'd0;
    reg div_load = 1'b0, rxd_load = 1'b0;
    reg txd_unseen = 1'b0; // per phase: skips may pass TXD's edges
    reg [16:0] div_cnt = 17'd0;
    reg [5:0] div_acc = 6'd0;

    // Every output, in port order: {rdata, rd_err, wr_err, txd, nrts, ndtr, nout1, nout2, intr,
    // txdmasreq, txdmabreq, rxdmasreq, rxdmabreq, tx_level, rx_level, flags, b16_wait, b16_acc, baud_div,
    // ev_ticks, out_ticks, reg_ticks, rx_busy, rx_frame_ticks, synced, quiet, tx_started, tx_line_bits,
    // tx_bits_left, tx_in_char, tx_format, busy_ticks}.
    localparam integer OW = 175;
    wire [OW-1:0] o_rtl, o_net;

`define PL011_PORTS(o) \
        .clk(clk), .rst_n(rst_n), .sel(sel), .write(write), .addr(addr), .strb(strb), .wdata(wdata), \
        .busy_ticks(o[174:167]), \
        .tx_format(o[166:163]), .tx_started(o[162]), .tx_line_bits(o[161:150]), .tx_bits_left(o[149:146]), .tx_in_char(o[145]), \
        .txd_unseen(txd_unseen), \
        .rdata(o[144:113]), .rd_err(o[112]), .wr_err(o[111]), .txd(o[110]), .rxd(rxd), .ncts(ncts), \
        .ndsr(ndsr), .ndcd(ndcd), .nri(nri), .nrts(o[109]), .ndtr(o[108]), .nout1(o[107]), .nout2(o[106]), \
        .intr(o[105]), .txdmasreq(o[104]), .txdmabreq(o[103]), .rxdmasreq(o[102]), .rxdmabreq(o[101]), \
        .txdmaclr(txdmaclr), .rxdmaclr(rxdmaclr), .tx_level(o[100:95]), .rx_level(o[94:89]), \
        .flags(o[88:80]), .fast_fwd(fast_fwd), .skip_ticks(skip_ticks), .div_load(div_load), \
        .div_cnt(div_cnt), .div_acc(div_acc), .rxd_load(rxd_load), .b16_wait(o[79:63]), \
        .b16_acc(o[62:57]), .baud_div(o[56:35]), .ev_ticks(o[34:27]), .out_ticks(o[26:19]), \
        .reg_ticks(o[18:11]), .rx_busy(o[10]), .rx_frame_ticks(o[9:2]), .synced(o[1]), .quiet(o[0])

    pl011 #(.FIFO_DEPTH(FIFO_DEPTH)) u_rtl (`PL011_PORTS(o_rtl));
    pl011_netlist u_net (`PL011_PORTS(o_net));

    wire txd_rtl = o_rtl[110];
    wire intr_rtl = o_rtl[105];
    wire [5:0] tx_level_rtl = o_rtl[100:95], rx_level_rtl = o_rtl[94:89];
    wire [16:0] b16_wait_rtl = o_rtl[79:63];
    wire [7:0] ev_ticks_rtl = o_rtl[34:27];
    wire quiet_rtl = o_rtl[0];

    integer cycle, r, x;
    // the phase
    integer phase = 0;   // the phases take every RXD mode with and without draining, in turn
    integer phase_left;  // cycles left in it
    integer rx_mode;     // 0: noise, 1: idle high, 2: TXD looped back outside the UART
    integer drain;       // DR read (else FR instead)
    integer skip_rate;   // skip (or fast-forward) on one free cycle in 2**skip_rate
    integer rx_hold;     // cycles left before the noise changes RXD
    reg txd_d = 1'b1;
    // coverage
    integer txd_edges = 0, rx_full_cycles = 0, tx_full_cycles = 0, rt_irqs = 0, overruns = 0;
    integer intr_cycles = 0, quiet_cycles = 0, skips = 0, fwds = 0, loads = 0, accesses = 0, resets = 0;
    integer rxd_loads = 0, rx_skips = 0, tx_char_skips = 0;

    // xorshift32: the same sequence in every simulator ($random's is Icarus's own).
    reg [31:0] rng_state = SEED;
    function [31:0] rnd();
        begin
            rng_state = rng_state ^ (rng_state << 13);
            rng_state = rng_state ^ (rng_state >> 17);
            rng_state = rng_state ^ (rng_state << 5);
            rnd = rng_state;
        end
    endfunction

    // Bit-exact where the RTL output is known; an unknown RTL bit (a FIFO entry never written, seen
    // through a read) may be anything in the netlist.
    function integer differs(input [OW-1:0] a, input [OW-1:0] b);
        integer i;
        begin
            differs = 0;
            for (i = 0; i < OW; i = i + 1)
                if ((a[i] === 1'b0 || a[i] === 1'b1) && a[i] !== b[i]) differs = 1;
        end
    endfunction

    function [9:0] pick_addr(input integer v);
        begin
            case (v % 24)
                0, 1, 2, 3, 4, 5: pick_addr = 10'h000;  // DR, read and written most
                6: pick_addr = 10'h001;
                7: pick_addr = 10'h006;
                8: pick_addr = 10'h008;
                9: pick_addr = 10'h009;
                10: pick_addr = 10'h00A;
                11: pick_addr = 10'h00B;
                12: pick_addr = 10'h00C;
                13: pick_addr = 10'h00D;
                14: pick_addr = 10'h00E;
                15: pick_addr = 10'h00F;
                16: pick_addr = 10'h010;
                17: pick_addr = 10'h011;
                18: pick_addr = 10'h012;
                19: pick_addr = 10'h3F8 + (v / 24) % 8;  // the ID registers
                20: pick_addr = (v / 24) % 1024;       // anywhere
                default: pick_addr = 10'h006;
            endcase
        end
    endfunction

    // Data worth writing to `a`: small divisors, a working UART most of the time.
    function [31:0] pick_data(input [9:0] a, input integer v, input integer w);
        begin
            case (a)
                // IBRD: mostly 1, else up to 4, rarely up to 63 (where fast_fwd has room)
                10'h009: pick_data = (w % 16 == 0) ? v & 32'h3F : (w % 8 < 5) ? 1 : (w % 4) + 1;
                10'h00B: pick_data = (w % 8 == 0) ? v : (v & 32'hEE) | 32'h10;  // LCR_H: FEN, no BRK
                // CR: on, TXE, RXE; no LBE, no CTSEN
                10'h00C: pick_data = (w % 8 == 0) ? v : (v & 32'h7F00) | 32'h0301;
                10'h011: pick_data = (w % 2 == 0) ? 32'h7FF : v;                   // ICR
                default: pick_data = v;
            endcase
        end
    endfunction

    task configure(input [9:0] a, input [31:0] d);
        begin
            @(negedge clk);
            sel = 1'b1;
            write = 1'b1;
            addr = a;
            strb = 4'hF;
            wdata = d;
            @(negedge clk);
            sel = 1'b0;
            write = 1'b0;
        end
    endtask

    always #5 clk = !clk;

    // Compare at each rising edge, before it takes effect: this cycle's inputs and outputs have settled.
    always @(posedge clk) begin
        if (o_rtl !== o_net && differs(o_rtl, o_net)) begin
            $display("FAIL depth %0d cycle %0d (rst_n %b sel %b write %b addr %h strb %h wdata %h fast_fwd %0d skip_ticks %0d): rtl %h netlist %h (xor %h)",
                     FIFO_DEPTH, cycle, rst_n, sel, write, addr, strb, wdata, fast_fwd, skip_ticks, o_rtl,
                     o_net, o_rtl ^ o_net);
            $finish;
        end
    end

    initial begin
        cycle = 0;
        phase_left = 0;
        rx_hold = 0;
        repeat (3) @(negedge clk);
        rst_n = 1'b1;
        // A working UART to start from: divisor 1, 8N1 with FIFOs, every interrupt.
        configure(10'h009, 32'd1);
        configure(10'h00A, 32'd21);
        configure(10'h00B, 32'h70);
        configure(10'h00E, 32'h7FF);
        configure(10'h00C, 32'h0301);
        while (cycle < CYCLES) begin
            @(negedge clk);
            cycle = cycle + 1;
            if (phase_left == 0) begin
                x = rnd() & 32'h7FFFFFFF;
                rx_mode = phase % 3;
                drain = (phase / 3) % 2 == 0;
                skip_rate = drain ? x % 4 : 0;  // filling the RX FIFO takes many characters: hurry
                phase_left = 3000 + (x / 4) % 4000;
                txd_unseen = (phase / 6) % 2 == 1;  // every RXD and drain mode both ways
                phase = phase + 1;
            end
            phase_left = phase_left - 1;
            // Register port: an access on one cycle in four.
            r = rnd();
            x = r[30:9];
            sel = r[1:0] == 2'd0;
            if (sel) begin
                accesses = accesses + 1;
                write = r[8];
                addr = pick_addr(x);
                if (!write && addr == 10'h000 && !drain) addr = 10'h006;
                r = rnd();
                strb = r[1:0] == 2'd0 ? r[5:2] : 4'hF;  // partial writes too
                wdata = pick_data(addr, rnd(), x / 7);
            end
            case (rx_mode)
                0: begin
                    if (rx_hold == 0) begin
                        rxd = !rxd;
                        rx_hold = 1 + (rnd() & 32'h3F);
                    end
                    rx_hold = rx_hold - 1;
                end
                1: rxd = 1'b1;
                default: rxd = txd_d;
            endcase
            txd_d = txd_rtl;
            r = rnd();
            if (r[9:0] == 10'd0) {ncts, ndsr, ndcd, nri} = r[13:10];
            if (r[23:12] == 12'd0) {txdmaclr, rxdmaclr} = r[31:30];
            // Time skipping, within what the RTL allows: fewer divider edges than remain to the next
            // Baud16 enable, or at most ev_ticks enables at once.
            r = rnd();
            fast_fwd = 17'd0;
            skip_ticks = 8'd0;
            // A quiet UART's divider skipped ahead: any state a running divider can be in.
            div_load = quiet_rtl && b16_wait_rtl != 17'd0 && r[27:25] == 3'd0;
            if (div_load) begin
                div_cnt = 17'd1 + (r[24:8] % {1'b0, o_rtl[56:41]}) + (r[7] ? 17'd1 : 17'd0);
                div_acc = r[5:0];
                loads = loads + 1;
            end
            if (!sel && (r & ((1 << skip_rate) - 1)) == 0) begin
                if (r[31] && b16_wait_rtl > 17'd1) begin
                    fast_fwd = 17'd1 + (r[30:8] % (b16_wait_rtl - 17'd1));
                    fwds = fwds + 1;
                end else if (ev_ticks_rtl != 8'd0) begin
                    skip_ticks = 8'd1 + (r[30:8] % ev_ticks_rtl);
                    skips = skips + 1;
                    // past a reading of a character being received
                    if (u_rtl.rx_active && {3'b0, u_rtl.rx_cnt} < skip_ticks) rx_skips = rx_skips + 1;
                    // past a TXD edge inside a character (TXD unseen)
                    if (txd_unseen && u_rtl.tx_active && u_rtl.same_run == 4'd0
                        && {4'b0, 4'd15 - u_rtl.tx_tick} < skip_ticks - 8'd1)
                        tx_char_skips = tx_char_skips + 1;
                end
            end
            r = rnd();
            rxd_load = r[4:0] == 5'd0;
            if (rxd_load) rxd_loads = rxd_loads + 1;
            rst_n = (rnd() & 32'h3FFF) != 0;
            if (!rst_n) resets = resets + 1;
        end
        @(negedge clk);
        if (txd_edges < CYCLES / 50 || rx_full_cycles < CYCLES / 100 || tx_full_cycles < CYCLES / 100
            || overruns < 2 || rt_irqs < 2 || intr_cycles < CYCLES / 10 || quiet_cycles < CYCLES / 100
            || skips < CYCLES / 100 || fwds < CYCLES / 100 || loads < CYCLES / 1000 || resets < 1
            || rxd_loads < CYCLES / 100 || rx_skips < CYCLES / 1000 || tx_char_skips < CYCLES / 1000)
            $write("FAIL (stimulus too weak)");
        else
            $write("PASS");
        $display(" depth %0d: %0d cycles, %0d accesses, %0d resets, %0d TXD edges, %0d cycles RX full, %0d TX full, %0d overruns, %0d RT, %0d intr cycles, %0d quiet, %0d skips (%0d past RX readings, %0d past TXD edges), %0d fast-forwards, %0d divider loads, %0d RXD synchroniser loads",
                 FIFO_DEPTH, cycle, accesses, resets, txd_edges, rx_full_cycles, tx_full_cycles, overruns,
                 rt_irqs, intr_cycles, quiet_cycles, skips, rx_skips, tx_char_skips, fwds, loads, rxd_loads);
        $finish;
    end

    // Coverage, from the RTL's outputs (and its RIS, for the events).
    reg txd_prev = 1'b1, rti_prev = 1'b0, oe_prev = 1'b0;
    always @(posedge clk) begin
        if (txd_rtl !== txd_prev) txd_edges = txd_edges + 1;
        txd_prev = txd_rtl;
        if (rx_level_rtl == FIFO_DEPTH) rx_full_cycles = rx_full_cycles + 1;
        if (tx_level_rtl == FIFO_DEPTH) tx_full_cycles = tx_full_cycles + 1;
        if (intr_rtl === 1'b1) intr_cycles = intr_cycles + 1;
        if (quiet_rtl === 1'b1) quiet_cycles = quiet_cycles + 1;
        if (u_rtl.ris[6] === 1'b1 && !rti_prev) rt_irqs = rt_irqs + 1;
        rti_prev = u_rtl.ris[6] === 1'b1;
        if (u_rtl.ris[10] === 1'b1 && !oe_prev) overruns = overruns + 1;
        oe_prev = u_rtl.ris[10] === 1'b1;
    end
endmodule
