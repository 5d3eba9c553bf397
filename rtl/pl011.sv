// ARM PrimeCell UART (PL011) r1p5, written from the TRM (DDI0183).
//
// One clock: PCLK and UARTCLK are taken to be the same clock, so no clock-domain crossing is modelled.
// Reset is synchronous and active low. The register port does one access per clock edge while `sel` is
// high: `rdata` shows the register selected by `addr` before the edge, and the edge applies the write or
// the read's side effect.
//
// Besides the PrimeCell's own ports, the module exposes what a simulator needs to skip time exactly:
// how many edges until the next Baud16 enable (`b16_wait`), the fractional accumulator and the latched
// divisor (`b16_acc`, `baud_div`), how many Baud16 enables until one that can change an output
// (`ev_ticks`) or a register's value (`reg_ticks`), whether the input synchronisers have settled
// (`synced`) and further edges change nothing (`quiet`); and two inputs that let one edge stand for
// many: `fast_fwd` counts it as several edges of the Baud16 divider when no enable falls among them;
// `skip_ticks` = k makes it the k-th Baud16 enable from now, valid when the k-1 before it change
// nothing but counters (k <= `ev_ticks`): they count into a bit, or end a bit whose successor puts the
// same level on TXD, or count towards the receiver's next sample point or the receive timeout.
//
// Written in the SystemVerilog that Verilator, Yosys 0.23 and Icarus Verilog 11 all read
// (testbench/tests/rtl_open_tools.sh checks the latter two): functions assign their result to their
// name (no `return`), always_comb blocks read whole signals, not constant bit-selects.
//
// Choices where the TRM leaves room (the README lists them too):
// - Receiver: a low RXD seen on a Baud16 enable while idle starts a character; 8 enables later it must
//   still be low (else it was a glitch), then every bit is sampled 16 enables after the previous one.
//   The frame format is taken when the start bit is seen. Only the first stop bit is checked; the
//   character is pushed at its middle. Stop bit low: FE; every bit of the frame low too (data and
//   parity): BE as well (FE and, if the parity is wrong, PE stay set: Linux ignores them under BE).
//   After a low stop bit the receiver waits for RXD to go high before it looks for a start bit, so a
//   long break gives one character.
// - Overrun: a character arriving while the RX FIFO is full is lost; RSR.OE and RIS.OE set at once,
//   DR.OE comes with the next character that fits. A lost character sets no FE/PE/BE.
// - RSR: DR reads OR the popped character's FE/PE/BE into it; any ECR write clears all four.
//   A DR read of an empty FIFO returns 0.
// - RX interrupt (3.3.9, UARTIFLS): "The interrupts are generated based on a transition through a level
//   rather than being based on the level. That is, the interrupts are generated when the fill level
//   progresses through the trigger level." Raised by the character that takes the fill from below the
//   level to it (1 in character mode), not by later ones: a FIFO already at or above the level when RXIM
//   is set raises nothing until it has been read below the level (what Linux's pl011_enable_interrupts
//   drains it for). Cleared (2.8.2) "by reading data from the receive FIFO until it becomes less than the
//   trigger level, or by clearing the interrupt". IFLS or FEN changes move no level through: silent, no
//   interrupt.
// - RT (2.8.4): "asserted when the receive FIFO is not empty, and no more data is received during a 32-bit
//   period". Counts Baud16 enables while the RX FIFO holds data and the receiver is idle, from 0 at each
//   start bit; fires once after 512 (32 bit periods after the last stop bit's reading); cleared by ICR
//   or by emptying the FIFO, and counts again only after the next start bit. RTRIS (3.3.11, note a): "the
//   raw interrupt cannot be set unless the mask is set, this is because the mask acts as an enable for
//   power saving. That is, the same status can be read from UARTMIS and UARTRIS": while RTIM is clear the
//   timeout is held at 0 and RTRIS clear; setting RTIM starts the count afresh (the TRM is silent on that).
// - FIFO flush (3.3.8, the note's sequence): "3. Flush the transmit FIFO by setting the FEN bit to 0".
//   An LCR_H write that clears FEN empties the TX FIFO (the character being shifted out completes),
//   without a TX interrupt (silent). The TRM names no flush of the receive FIFO, and (2.4.3, Disabling
//   the FIFOs) "the FIFOs are not physically disabled, but the flags are manipulated to give the illusion
//   of a 1-byte register": the RX FIFO keeps its characters, its flags read as a holding register (RXFF
//   while it holds any) and each DR read still pops one.
// - Modem interrupts: any change (either edge) of CTS, DSR, DCD or RI as FR shows them, raised one
//   UARTCLK cycle after FR shows the change.
// - Loopback (LBE): the receiver takes TXD (no synchroniser: same clock); CTS/DSR/DCD/RI take
//   RTS/DTR/OUT1/OUT2; the TXD and modem outputs still drive the pins.
// - RTSEN: nRTS follows the RX FIFO alone (CR.RTS is ignored): deasserted while the fill is at or above
//   the RX trigger level, asserted below it.
// - DMA: TXDMASREQ while the TX FIFO has room, TXDMABREQ while its fill is at or below the TX level,
//   RXDMASREQ while the RX FIFO holds data, RXDMABREQ while its fill is at or above the RX level; burst
//   requests only with FEN=1; DMAONERR masks the RX requests while the masked error interrupt is set.
//   A clear input (registered once) holds that direction's requests low. All of them are low while
//   UARTEN is 0 (2.7): "All request signals are deasserted if the UART is disabled or the relevant DMA
//   enable bit, TXDMAE or RXDMAE, in the DMA Control Register, UARTDMACR is cleared."
module pl011 #(
    parameter int FIFO_DEPTH = 32  // 32 in r1p5; 16 in earlier revisions
) (
    input  logic        clk,
    input  logic        rst_n,
    // register port
    input  logic        sel,
    input  logic        write,
    input  logic [9:0]  addr,      // word index: byte offset >> 2
    input  logic [3:0]  strb,      // byte lanes of a write
    input  logic [31:0] wdata,
    output logic [31:0] rdata,
    output logic        rd_err,    // `addr` names no readable register
    output logic        wr_err,    // `addr` names no writable register
    // serial line and modem lines (active low, as on the PrimeCell)
    output logic        txd,
    input  logic        rxd,
    input  logic        ncts,
    input  logic        ndsr,
    input  logic        ndcd,
    input  logic        nri,
    output logic        nrts,
    output logic        ndtr,
    output logic        nout1,
    output logic        nout2,
    output logic        intr,      // UARTINTR: OR of the masked interrupts
    // DMA requests and their clears (active high)
    output logic        txdmasreq,
    output logic        txdmabreq,
    output logic        rxdmasreq,
    output logic        rxdmabreq,
    input  logic        txdmaclr,
    input  logic        rxdmaclr,
    // observation
    output logic [5:0]  tx_level,
    output logic [5:0]  rx_level,
    output logic [8:0]  flags,     // the FR register
    // exact time skipping
    input  logic [16:0] fast_fwd,
    input  logic [7:0]  skip_ticks, // k > 0: this edge is the k-th Baud16 enable from now
    output logic [16:0] b16_wait,
    output logic [5:0]  b16_acc,
    output logic [21:0] baud_div,  // {IBRD, FBRD} in effect
    output logic [7:0]  ev_ticks,
    output logic [7:0]  reg_ticks, // Baud16 enables until one that can change a register's value
    output logic        synced,    // the input registers and modem change detector hold their inputs
    output logic        quiet
);
    localparam int LW = $clog2(FIFO_DEPTH) + 1;

    // Register map (word index), from the TRM.
    localparam logic [9:0] A_DR = 10'h000, A_RSR = 10'h001, A_FR = 10'h006, A_ILPR = 10'h008,
        A_IBRD = 10'h009, A_FBRD = 10'h00A, A_LCRH = 10'h00B, A_CR = 10'h00C, A_IFLS = 10'h00D,
        A_IMSC = 10'h00E, A_RIS = 10'h00F, A_MIS = 10'h010, A_ICR = 10'h011, A_DMACR = 10'h012,
        A_PID0 = 10'h3F8, A_PID1 = 10'h3F9, A_PID2 = 10'h3FA, A_PID3 = 10'h3FB, A_CID0 = 10'h3FC,
        A_CID1 = 10'h3FD, A_CID2 = 10'h3FE, A_CID3 = 10'h3FF;
    // Reset values and writable bits.
    localparam logic [15:0] CR_RESET = 16'h0300, CR_MASK = 16'hFF87;
    localparam logic [5:0] IFLS_RESET = 6'h12;
    // PeriphID2[7:4] is the revision; Linux takes revision < 3 to mean 16-entry FIFOs.
    localparam logic [7:0] PID2 = FIFO_DEPTH == 32 ? 8'h34 : 8'h14;

    // LCR_H fields
    localparam int BRK = 0, PEN = 1, EPS = 2, STP2 = 3, FEN = 4, SPS = 7;
    // CR fields
    localparam int UARTEN = 0, LBE = 7, TXE = 8, RXE = 9, DTR = 10, RTS = 11, OUT1 = 12, OUT2 = 13,
        RTSEN = 14, CTSEN = 15;
    // DMACR fields
    localparam int RXDMAE = 0, TXDMAE = 1, DMAONERR = 2;
    // interrupt bits (IMSC/RIS/MIS/ICR); [3:0] are the modem bits RI, CTS, DCD, DSR
    localparam int RXI = 4, TXI = 5, RTI = 6, FEI = 7, PEI = 8, BEI = 9, OEI = 10;
    // receive timeout: 32 bit periods of Baud16 enables
    localparam logic [9:0] RT_TICKS = 10'd512;

    // ---------------------------------------------------------------- registers
    logic [15:0] cr, ibrd, ibrd_l;
    logic [5:0] fbrd, fbrd_l, ifls;
    logic [7:0] lcrh, ilpr;
    logic [10:0] imsc, ris;
    logic [2:0] dmacr;
    logic [3:0] rsr;  // FE, PE, BE, OE

    wire acc_wr = sel && write;
    // Merged write data: the written byte lanes from `wdata`, the others from the register; the upper
    // lanes hold no register bits. (A mask, not a function that assigns to its input: Yosys 0.23 reads
    // such a function called with a constant argument as returning that constant.)
    wire [31:0] lanes = {{8{strb[3]}}, {8{strb[2]}}, {8{strb[1]}}, {8{strb[0]}}};
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] w_cr = ({16'b0, cr} & ~lanes) | (wdata & lanes);
    wire [31:0] w_ibrd = ({16'b0, ibrd} & ~lanes) | (wdata & lanes);
    wire [31:0] w_imsc = ({21'b0, imsc} & ~lanes) | (wdata & lanes);
    wire [31:0] w_icr = wdata & lanes;
    /* verilator lint_on UNUSEDSIGNAL */

    // Input synchronisers: two flops, as on the PrimeCell.
    logic [4:0] in_s1, in_s2;
    wire [4:0] in_raw = {rxd, ncts, ndsr, ndcd, nri};
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            in_s1 <= 5'b11111;
            in_s2 <= 5'b11111;
        end else begin
            in_s1 <= in_raw;
            in_s2 <= in_s1;
        end
    end
    wire rxd_s = in_s2[4];
    // The DMA clears come from the same clock domain: one register.
    logic [1:0] clr_q;  // {rx, tx}
    always_ff @(posedge clk) clr_q <= rst_n ? {rxdmaclr, txdmaclr} : 2'b00;

    // ---------------------------------------------------------------- transmit FIFO
    wire fen = lcrh[FEN];
    logic [7:0] tx_head;
    logic [LW-1:0] tx_count;
    logic tx_empty, tx_full, tx_pop;
    wire tx_push = acc_wr && addr == A_DR && strb[0];
    wire lcrh_wr = acc_wr && addr == A_LCRH && strb[0];
    // Clearing FEN flushes the transmit FIFO (not the character being shifted out).
    wire tx_flush = lcrh_wr && fen && !wdata[FEN];
    pl011_fifo #(.DEPTH(FIFO_DEPTH), .WIDTH(8)) u_txf (
        .clk, .clear(!rst_n || tx_flush), .one_entry(!fen), .push(tx_push), .push_data(wdata[7:0]), .pop(tx_pop),
        .head(tx_head), .level(tx_count), .empty(tx_empty), .full(tx_full));

    // ---------------------------------------------------------------- receive FIFO
    // Entries: {OE, BE, PE, FE, data}, as DR reads them.
    logic [11:0] rx_head, rx_entry;
    logic [LW-1:0] rx_count;
    logic rx_empty, rx_full, rx_push;
    wire rx_pop = sel && !write && addr == A_DR;
    pl011_fifo #(.DEPTH(FIFO_DEPTH), .WIDTH(12)) u_rxf (
        .clk, .clear(!rst_n), .one_entry(!fen), .push(rx_push), .push_data(rx_entry), .pop(rx_pop),
        .head(rx_head), .level(rx_count), .empty(rx_empty), .full(rx_full));
    wire rx_push_ok = rx_push && !rx_full, rx_pop_ok = rx_pop && !rx_empty;
    wire [LW-1:0] rx_count_next = rx_count + LW'(rx_push_ok) - LW'(rx_pop_ok);

    // Trigger levels from IFLS; codes 5..7 are reserved and act as 7/8.
    function automatic logic [LW-1:0] fifo_level(input logic [2:0] code);
        case (code)
            3'd0: fifo_level = LW'(FIFO_DEPTH / 8);
            3'd1: fifo_level = LW'(FIFO_DEPTH / 4);
            3'd2: fifo_level = LW'(FIFO_DEPTH / 2);
            3'd3: fifo_level = LW'(FIFO_DEPTH * 3 / 4);
            default: fifo_level = LW'(FIFO_DEPTH * 7 / 8);
        endcase
    endfunction
    // In character mode the RX level is "holding register full".
    wire [LW-1:0] rx_trigger = fen ? fifo_level(ifls[5:3]) : LW'(1);

    // ---------------------------------------------------------------- modem lines
    // RTSEN: RTS asserted while the RX FIFO is below its level. Loopback feeds RTS, DTR, OUT1 and OUT2
    // back as CTS, DSR, DCD and RI.
    wire lbe = cr[LBE];
    wire rts_out = cr[RTSEN] ? rx_count < rx_trigger : cr[RTS];
    wire cts = lbe ? rts_out : !in_s2[3];
    wire dsr = lbe ? cr[DTR] : !in_s2[2];
    wire dcd = lbe ? cr[OUT1] : !in_s2[1];
    wire ri = lbe ? cr[OUT2] : !in_s2[0];
    wire [3:0] ms = {dsr, dcd, cts, ri};  // RIS bit order
    logic [3:0] ms_q;  // as FR showed them one cycle ago: a difference raises a modem interrupt
    always_ff @(posedge clk) ms_q <= rst_n ? ms : 4'b0;

    // ---------------------------------------------------------------- baud generator
    // A Baud16 enable every IBRD + FBRD/64 UARTCLK cycles on average: a period is IBRD cycles, one more
    // whenever the 6-bit fractional accumulator carries. The generator runs only while something needs
    // it and restarts from a fixed state, so an idle UART holds still (and a simulator may skip it).
    logic tx_active;
    logic [16:0] b16_cnt;
    logic [5:0] acc;
    wire tx_can_start = cr[UARTEN] && cr[TXE] && !tx_empty && !lcrh[BRK] && (!cr[CTSEN] || cts);
    logic rx_need;  // the receiver's share, below
    wire run = (tx_active || tx_can_start || rx_need) && ibrd_l != 0;
    wire baud16 = run && (b16_cnt == 17'd1 || skip_ticks != 0);
    // `nt` enables at once: the accumulator takes nt * FBRD; the next period carries if the last of
    // those additions carried.
    wire [7:0] nt = skip_ticks == 0 ? 8'd1 : skip_ticks;
    wire [13:0] acc_sum = {8'b0, acc} + 14'(nt) * {8'b0, fbrd_l};
    wire [7:0] hi_before_last = 8'((acc_sum - {8'b0, fbrd_l}) >> 6);
    wire last_carry = acc_sum[13:6] != hi_before_last;
    always_ff @(posedge clk) begin
        if (!rst_n || !run) begin
            b16_cnt <= {1'b0, ibrd_l};
            acc <= '0;
        end else if (baud16) begin
            b16_cnt <= {1'b0, ibrd_l} + {16'b0, last_carry};
            acc <= acc_sum[5:0];
        end else begin
            b16_cnt <= b16_cnt - (fast_fwd == 0 ? 17'd1 : fast_fwd);
        end
    end

    // ---------------------------------------------------------------- transmitter
    // The frame is built when a character starts, so the format in force then applies to all of it.
    logic [11:0] tx_shift;  // bits still to send, LSB next
    logic [3:0] tx_left;    // bits after the one on the line
    logic [3:0] tx_tick;    // Baud16 enables into the current bit
    logic tx_q;
    wire [1:0] wlen = lcrh[6:5];
    wire [7:0] data_mask = 8'hFF >> (2'd3 - wlen);
    wire [7:0] tx_data = tx_head & data_mask;
    wire tx_parity = lcrh[SPS] ? !lcrh[EPS] : (^tx_data) ^ !lcrh[EPS];
    wire [3:0] n_data = 4'd5 + {2'b0, wlen};
    // LSB first: start, 5..8 data bits, optional parity, then ones (the stop bits).
    // (PEN as a wire of its own: Icarus Verilog 11 does not take constant bit-selects in always_comb.)
    wire tx_pen = lcrh[PEN];
    logic [11:0] tx_frame;
    always_comb begin
        tx_frame = '1;
        tx_frame[0] = 1'b0;
        for (int i = 0; i < 8; i++) if (4'(i) < n_data) tx_frame[i+1] = tx_data[i];
        if (tx_pen) tx_frame[n_data+1] = tx_parity;
    end
    wire [3:0] tx_nbits = 4'd7 + {2'b0, wlen} + {3'b0, lcrh[PEN]} + {3'b0, lcrh[STP2]};
    // The enable this edge stands for is the nt-th. The ones before it counted into bits and ended
    // `crossed` bits that put the level already on the line back on it.
    wire [7:0] tick_pos = {4'b0, tx_tick} + nt - 8'd1;
    wire [3:0] tick_now = tick_pos[3:0];
    wire [3:0] crossed = tick_pos[7:4];
    wire [11:0] shift_now = (tx_shift >> crossed) | ~(12'hFFF >> crossed);
    wire [3:0] left_now = tx_left - crossed;
    wire tx_bit_end = baud16 && tx_active && tick_now == 4'd15;
    wire tx_char_end = tx_bit_end && left_now == 0;
    wire tx_start = baud16 && tx_can_start && (!tx_active || tx_char_end);
    assign tx_pop = tx_start;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            tx_active <= 1'b0;
            tx_q <= 1'b1;
            tx_shift <= '1;
            tx_left <= '0;
            tx_tick <= '0;
        end else if (tx_start) begin
            tx_active <= 1'b1;
            tx_q <= 1'b0;
            tx_shift <= tx_frame >> 1;
            tx_left <= tx_nbits - 4'd1;
            tx_tick <= '0;
        end else if (tx_char_end) begin
            tx_active <= 1'b0;
            tx_q <= 1'b1;
        end else if (tx_bit_end) begin
            tx_q <= shift_now[0];
            tx_shift <= {1'b1, shift_now[11:1]};
            tx_left <= left_now - 4'd1;
            tx_tick <= '0;
        end else if (baud16 && tx_active) begin
            tx_shift <= shift_now;
            tx_left <= left_now;
            tx_tick <= tick_now + 4'd1;
        end
    end
    // BRK drives the line low once the character in progress has finished.
    assign txd = tx_q && !(lcrh[BRK] && !tx_active);

    // ---------------------------------------------------------------- receiver
    // Everything happens on Baud16 enables: `rx_cnt` counts the enables to the next sample point, which
    // is the middle of the bit `rx_bit` (0: start bit, then data, parity, stop).
    wire rx_in = lbe ? txd : rxd_s;
    logic rx_active, rx_wait_mark;
    logic [4:0] rx_cnt;
    logic [3:0] rx_bit, rx_stop;  // the next sample's bit; the stop bit's
    logic [7:0] rx_data;          // data bits shift in from the top
    logic rx_par;
    logic [1:0] rx_wlen;
    logic rx_pen, rx_eps, rx_sps;
    wire rx_can_detect = !rx_active && !rx_wait_mark && !rx_in && cr[UARTEN] && cr[RXE];
    wire rx_detect = baud16 && rx_can_detect;
    wire rx_sample = baud16 && rx_active && {3'b0, rx_cnt} == nt;
    wire rx_stop_now = rx_sample && rx_bit == rx_stop;
    // The character as it stands at its stop bit's sample.
    wire [7:0] rx_char = rx_data >> (2'd3 - rx_wlen);
    wire rx_par_want = rx_sps ? !rx_eps : (^rx_char) ^ !rx_eps;
    wire rx_fe = !rx_in;
    wire rx_pe = rx_pen && rx_par != rx_par_want;
    wire rx_be = rx_fe && rx_char == 0 && !(rx_pen && rx_par);
    logic rx_ovr;  // a character was lost: the next one pushed carries OE
    assign rx_entry = {rx_ovr, rx_be, rx_pe, rx_fe, rx_char};
    assign rx_push = rx_stop_now;
    wire rx_overrun = rx_stop_now && rx_full;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rx_active <= 1'b0;
            rx_wait_mark <= 1'b0;
            rx_cnt <= '0;
            rx_bit <= '0;
            rx_stop <= '0;
            rx_data <= '0;
            rx_par <= 1'b0;
            rx_wlen <= '0;
            {rx_pen, rx_eps, rx_sps} <= '0;
            rx_ovr <= 1'b0;
        end else begin
            if (rx_wait_mark && rx_in) rx_wait_mark <= 1'b0;
            if (rx_detect) begin
                rx_active <= 1'b1;
                rx_cnt <= 5'd8;
                rx_bit <= '0;
                rx_stop <= 4'd6 + {2'b0, wlen} + {3'b0, lcrh[PEN]};
                rx_data <= '0;
                rx_par <= 1'b0;
                rx_wlen <= wlen;
                {rx_pen, rx_eps, rx_sps} <= {lcrh[PEN], lcrh[EPS], lcrh[SPS]};
            end else if (rx_sample) begin
                rx_cnt <= 5'd16;
                rx_bit <= rx_bit + 4'd1;
                if (rx_bit == 0) begin
                    if (rx_in) rx_active <= 1'b0;  // no longer low at its middle: a glitch
                end else if (rx_stop_now) begin
                    rx_active <= 1'b0;
                    rx_wait_mark <= !rx_in;
                    if (rx_full) rx_ovr <= 1'b1;
                    else rx_ovr <= 1'b0;
                end else if (rx_bit <= 4'd5 + {2'b0, rx_wlen}) begin
                    rx_data <= {rx_in, rx_data[7:1]};
                end else begin
                    rx_par <= rx_in;
                end
            end else if (baud16 && rx_active) begin
                rx_cnt <= rx_cnt - nt[4:0];
            end
        end
    end

    // Receive timeout: Baud16 enables of silence while the RX FIFO holds data and RTIM enables it.
    wire [10:0] imsc_next = acc_wr && addr == A_IMSC ? w_imsc[10:0] : imsc;
    wire rtim = imsc[RTI], rtim_next = imsc_next[RTI];
    logic [8:0] rt_cnt;
    logic rt_fired;
    wire rt_counting = !rx_empty && !rx_active && !rt_fired && rtim;
    wire [9:0] rt_sum = {1'b0, rt_cnt} + {2'b0, nt};
    wire rt_fire = baud16 && rt_counting && rt_sum >= RT_TICKS;
    always_ff @(posedge clk) begin
        if (!rst_n || rx_detect || (rx_pop_ok && rx_count_next == 0) || !rtim_next) begin
            rt_cnt <= '0;
            rt_fired <= 1'b0;
        end else if (rt_fire) begin
            rt_cnt <= '0;
            rt_fired <= 1'b1;
        end else if (baud16 && rt_counting) begin
            rt_cnt <= rt_sum[8:0];
        end
    end
    assign rx_need = rx_active || rx_can_detect || rt_counting;

    // ---------------------------------------------------------------- interrupts
    // TX interrupt, as the TRM describes it: raised when the FIFO level passes down through the trigger
    // level (a character leaving it), not merely for being at or below it; cleared by ICR or by a write
    // that fills the FIFO above the level. In character mode the level is "holding register empty".
    wire [LW-1:0] tx_trigger = fen ? fifo_level(ifls[2:0]) : '0;
    wire [LW-1:0] tx_count_next = tx_count - LW'(tx_pop);
    wire tx_irq_set = tx_pop && tx_count > tx_trigger && tx_count_next <= tx_trigger;
    wire tx_irq_clr = tx_push && !tx_full && tx_count + 1'b1 > tx_trigger;
    // RX interrupt: raised when a character takes the fill from below the level to it.
    wire rx_irq_set = rx_push_ok && rx_count < rx_trigger && rx_count_next >= rx_trigger;

    // ---------------------------------------------------------------- register writes
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            cr <= CR_RESET;
            lcrh <= '0;
            ibrd <= '0;
            fbrd <= '0;
            ibrd_l <= '0;
            fbrd_l <= '0;
            ilpr <= '0;
            ifls <= IFLS_RESET;
            imsc <= '0;
            dmacr <= '0;
            ris <= '0;
            rsr <= '0;
        end else begin
            if (acc_wr) begin
                case (addr)
                    A_ILPR: if (strb[0]) ilpr <= wdata[7:0];
                    A_IBRD: ibrd <= w_ibrd[15:0];
                    A_FBRD: if (strb[0]) fbrd <= wdata[5:0];
                    A_LCRH:
                        // Writing LCR_H latches IBRD and FBRD with it.
                        if (strb[0]) begin
                            lcrh <= wdata[7:0];
                            ibrd_l <= ibrd;
                            fbrd_l <= fbrd;
                        end
                    A_CR: cr <= w_cr[15:0] & CR_MASK;
                    A_IFLS: if (strb[0]) ifls <= wdata[5:0];
                    A_IMSC: imsc <= w_imsc[10:0];
                    A_DMACR: if (strb[0]) dmacr <= wdata[2:0];
                    default: ;
                endcase
            end
            // ICR clears; events of this same edge win over the clear.
            if (acc_wr && addr == A_ICR) ris <= ris & ~w_icr[10:0];
            if (tx_irq_clr) ris[TXI] <= 1'b0;
            if (tx_irq_set) ris[TXI] <= 1'b1;
            ris[3:0] <= (acc_wr && addr == A_ICR ? ris[3:0] & ~w_icr[3:0] : ris[3:0]) | (ms ^ ms_q);
            if (rx_pop_ok && rx_count_next < rx_trigger) ris[RXI] <= 1'b0;
            if (rx_irq_set) ris[RXI] <= 1'b1;
            if (rx_pop_ok && rx_count_next == 0) ris[RTI] <= 1'b0;
            if (rt_fire) ris[RTI] <= 1'b1;
            if (!rtim_next) ris[RTI] <= 1'b0;  // the mask is the timeout's enable
            if (rx_push_ok) begin
                if (rx_fe) ris[FEI] <= 1'b1;
                if (rx_pe) ris[PEI] <= 1'b1;
                if (rx_be) ris[BEI] <= 1'b1;
            end
            if (rx_overrun) ris[OEI] <= 1'b1;
            // RSR: a DR read reports the popped character's errors; OE at the overrun; ECR clears.
            if (acc_wr && addr == A_RSR) rsr <= '0;
            if (rx_pop_ok) rsr[2:0] <= rsr[2:0] | rx_head[10:8];
            if (rx_overrun) rsr[3] <= 1'b1;
        end
    end

    // ---------------------------------------------------------------- reads
    wire busy = !tx_empty || tx_active;
    assign flags = {ri, tx_empty, rx_full, tx_full, rx_empty, busy, dcd, dsr, cts};
    always_comb begin
        rdata = '0;
        rd_err = 1'b0;
        case (addr)
            A_DR: rdata = rx_empty ? '0 : {20'b0, rx_head};
            A_RSR: rdata = {28'b0, rsr};
            A_FR: rdata = {23'b0, flags};
            A_ILPR: rdata = {24'b0, ilpr};
            A_IBRD: rdata = {16'b0, ibrd};
            A_FBRD: rdata = {26'b0, fbrd};
            A_LCRH: rdata = {24'b0, lcrh};
            A_CR: rdata = {16'b0, cr};
            A_IFLS: rdata = {26'b0, ifls};
            A_IMSC: rdata = {21'b0, imsc};
            A_RIS: rdata = {21'b0, ris};
            A_MIS: rdata = {21'b0, ris & imsc};
            A_DMACR: rdata = {29'b0, dmacr};
            A_PID0: rdata = 32'h11;
            A_PID1: rdata = 32'h10;
            A_PID2: rdata = {24'b0, PID2};
            A_PID3: rdata = 32'h00;
            A_CID0: rdata = 32'h0D;
            A_CID1: rdata = 32'hF0;
            A_CID2: rdata = 32'h05;
            A_CID3: rdata = 32'hB1;
            default: rd_err = 1'b1;  // A_ICR is write-only; the rest is outside the map
        endcase
        case (addr)
            A_DR, A_RSR, A_ILPR, A_IBRD, A_FBRD, A_LCRH, A_CR, A_IFLS, A_IMSC, A_ICR, A_DMACR:
                wr_err = 1'b0;
            default: wr_err = 1'b1;
        endcase
    end

    assign intr = |(ris & imsc);
    assign nrts = !rts_out;
    assign ndtr = !cr[DTR];
    assign nout1 = !cr[OUT1];
    assign nout2 = !cr[OUT2];
    assign tx_level = 6'(tx_count);
    assign rx_level = 6'(rx_count);

    // DMA requests. DMAONERR: the RX requests pause while the (masked) error interrupt is set.
    wire err_intr = |(ris[OEI:FEI] & imsc[OEI:FEI]);
    wire uarten = cr[UARTEN];
    wire tx_dma = dmacr[TXDMAE] && uarten && !clr_q[0];
    wire rx_dma = dmacr[RXDMAE] && uarten && !clr_q[1] && !(dmacr[DMAONERR] && err_intr);
    assign txdmasreq = tx_dma && !tx_full;
    assign txdmabreq = tx_dma && fen && tx_count <= tx_trigger;
    assign rxdmasreq = rx_dma && !rx_empty;
    assign rxdmabreq = rx_dma && fen && rx_count >= rx_trigger;

    // ---------------------------------------------------------------- time skipping
    assign b16_wait = run ? b16_cnt : '0;
    assign b16_acc = acc;
    assign baud_div = {ibrd_l, fbrd_l};
    // TXD, the flags, the levels and the TX interrupt change only where a bit ends or a character starts.
    // Bits ahead that put the level already on TXD back on it (the character's end always counts).
    logic [3:0] same_run;
    always_comb begin
        same_run = '0;
        for (int j = 0; j < 12; j++)
            if (32'(same_run) == j && 4'(j) < tx_left && tx_shift[j] == tx_q) same_run = same_run + 4'd1;
    end
    wire [7:0] to_bit_end = 8'd16 - {4'b0, tx_tick};
    // Each part's next event in Baud16 enables (NEVER: none); the outputs take the nearest.
    // TXD, the flags, the levels and the TX interrupt change only where a bit ends or a character starts;
    // the receiver acts at its sample points (the start bit's may end a glitch, the stop bit's pushes);
    // the timeout where it fires.
    localparam logic [9:0] NEVER = 10'h3FF;
    wire [9:0] tx_ev = tx_active ? {2'b0, to_bit_end} + {2'b0, same_run, 4'b0}
                     : tx_can_start ? 10'd1 : NEVER;
    wire [9:0] rx_ev = rx_active ? {5'b0, rx_cnt} : rx_can_detect ? 10'd1 : NEVER;
    wire [9:0] rt_ev = rt_counting ? RT_TICKS - {1'b0, rt_cnt} : NEVER;
    // Registers (FR, RIS, RSR, DR, the levels) change where a character starts or ends on either side,
    // or where the timeout fires.
    wire [9:0] tx_reg = tx_active ? {2'b0, to_bit_end} + {2'b0, tx_left, 4'b0}
                      : tx_can_start ? 10'd1 : NEVER;
    wire [9:0] rx_reg = rx_active ? {5'b0, rx_cnt} + {2'b0, rx_stop - rx_bit, 4'b0}
                      : rx_can_detect ? 10'd1 : NEVER;
    function automatic logic [7:0] nearest(input logic [9:0] a, input logic [9:0] b, input logic [9:0] c);
        logic [9:0] m;
        m = a < b ? a : b;
        m = m < c ? m : c;
        nearest = m > 10'd255 ? 8'd255 : m[7:0];
    endfunction
    assign ev_ticks = !run ? 8'd0 : nearest(tx_ev, rx_ev, rt_ev);
    assign reg_ticks = !run ? 8'd0 : nearest(tx_reg, rx_reg, rt_ev);
    assign synced = in_s1 == in_raw && in_s2 == in_s1 && clr_q == {rxdmaclr, txdmaclr} && ms_q == ms;
    // Quiet also needs the divider at its rest state, which the first idle edge restores, and no mark
    // awaited on a line already high.
    assign quiet = !run && synced && rst_n && acc == 0 && b16_cnt == {1'b0, ibrd_l}
                   && !(rx_wait_mark && rx_in);
endmodule
