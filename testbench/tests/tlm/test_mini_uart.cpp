// SPDX-License-Identifier: Apache-2.0
// The BCM2835 AUX mini UART (uart16550_part::bcm2835_mini) against the BCM2835 ARM Peripherals
// datasheet (section 2.2), through its TLM socket as Linux's 8250 driver maps it (AUX_MU_IO at offset 0,
// 4-byte stride): reset values, the baud rate from AUX_MU_BAUD, the 8-entry FIFOs, LSR bit 5 "can
// accept a byte" and bit 6 "FIFO empty and transmitter idle" measured on TXD, 7 and 8 data bits with
// no parity and one stop bit whatever LCR asks, level interrupts, FIFO clearing through IIR, RTS-only
// MCR (no loopback), CTS in MSR without deltas, no character timeout, read promises.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <gtest/gtest.h>

#include "sim_main.h"
#include "uart16550_bench.h"

using namespace uartvp;
using namespace uartvp::test;
using namespace uartvp::test::r16550;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_US;

namespace {

constexpr std::uint64_t core_clock = 250'000'000; // the Pi 3B+'s VPU clock with a fixed core frequency
constexpr unsigned aux_mu_baud = 270;             // 250 MHz / (8 x 271) = 115,313 baud
constexpr std::uint64_t bit_cycles = 8 * (aux_mu_baud + 1);
constexpr double baud = static_cast<double>(core_clock) / bit_cycles;

uart16550_config mini_config() {
    uart16550_config c;
    c.part = uart16550_part::bcm2835_mini;
    c.clock_hz = core_clock;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    return c;
}

// 115,313 baud 8N1 with the line monitor and the RX injector following.
void setup_8n1(uart16550_bench& b) {
    b.setup(aux_mu_baud, LCR_8N1);
    b.monitor.set_format(baud, serial_format{});
    b.injector.set_format(baud, serial_format{});
}

} // namespace

TEST(MiniUart, ResetValues) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        EXPECT_EQ(b.rd(IER), 0x00);
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_NONE) << "FIFOs always enabled: bits 7:6 read 11";
        EXPECT_EQ(b.rd(LCR), 0x00);
        EXPECT_EQ(b.rd(MCR), 0x00);
        EXPECT_EQ(b.rd(LSR), LSR_THRE | LSR_TEMT) << "can accept a byte, transmitter idle";
        EXPECT_EQ(b.rd(MSR), 0x00) << "CTS inactive";
        EXPECT_TRUE(b.uart.fifo_enabled.read());
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.uart.map_size(), 32u) << "the eight 16550-compatible AUX_MU_* registers";
    });
}

TEST(MiniUart, RejectsWhatThePartDoesNotHave) {
    UARTVP_SIM_TEST();
    uart16550_config late = mini_config();
    late.thre_delay = sc_time(10, SC_US);
    EXPECT_THROW(uart16550("late", late), std::invalid_argument);
    uart16550_config gated = mini_config();
    gated.out2_gates_irq = true;
    EXPECT_THROW(uart16550("gated", gated), std::invalid_argument);
}

// baud = system clock / (8 x (AUX_MU_BAUD + 1)): every bit 2168 clocks at 270, the start bit one bit
// time after the write's clock edge, back-to-back frames of 10 bits.
TEST(MiniUart, BaudRateFromAuxMuBaud) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wr(LCR, LCR_8N1 | LCR_DLAB);
        EXPECT_EQ(b.rd(DLL), aux_mu_baud & 0xFF);
        EXPECT_EQ(b.rd(DLM), aux_mu_baud >> 8) << "AUX_MU_BAUD is 16 bits under DLAB";
        b.wr(LCR, LCR_8N1);
        b.wait_us(1.01);
        const sc_time t0 = sc_time_stamp();
        b.wr(THR, 0x55); // 0 1010 1010 1: an edge every bit
        b.wr(THR, 'K');
        b.poll_lsr(LSR_TEMT, 5);
        b.wait_us(20);
        const std::uint64_t e0 = b.xin_at(t0);
        const auto falls = b.txd_falls();
        ASSERT_GE(falls.size(), 5u);
        EXPECT_EQ(falls[0], b.xin(e0 + bit_cycles));
        for (std::size_t k = 1; k < 5; ++k)
            EXPECT_EQ(falls[k], b.xin(e0 + bit_cycles + 2 * k * bit_cycles)) << "falling edge " << k;
        const auto starts = b.starts();
        ASSERT_EQ(starts.size(), 2u);
        EXPECT_EQ(starts[1], b.xin(e0 + bit_cycles + 10 * bit_cycles)) << "no gap between frames";
        EXPECT_EQ(b.monitor.text(), "\x55K");
        EXPECT_NEAR(115313.6, baud, 0.1);
    });
}

// LSR5 is "the TX FIFO can accept at least one byte", not "empty": it stays set with 7 queued, falls
// at the eighth and rises when a byte leaves for the shift register; LSR6 rises when the last stop
// bit ends. A ninth byte into the full FIFO is lost.
TEST(MiniUart, LsrBit5CanAcceptAndBit6IdleMeasuredOnTxd) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wait_us(1.01);
        const sc_time t0 = sc_time_stamp();
        const std::uint64_t e0 = b.xin_at(t0);
        b.wr(THR, '0'); // into the shift register at once
        EXPECT_EQ(b.rd(LSR) & (LSR_THRE | LSR_TEMT), LSR_THRE) << "sending: can accept, not idle";
        for (char c : std::string("1234567")) {
            b.wr(THR, c);
            EXPECT_EQ(b.rd(LSR) & LSR_THRE, LSR_THRE) << "room left after '" << c << "'";
        }
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 7u);
        b.wr(THR, '8');
        EXPECT_EQ(b.rd(LSR) & LSR_THRE, 0) << "eight queued: full";
        b.wr(THR, '9');
        EXPECT_EQ(b.uart.tx_lost(), 1u) << "a write into the full FIFO is lost";
        b.poll_lsr(LSR_TEMT, 5);
        b.wait_us(20);
        const sc_time fell = b.first(b.thre_log, false, t0);
        const sc_time rose = b.first(b.thre_log, true, fell);
        EXPECT_EQ(fell, t0) << "full with the eighth byte queued";
        EXPECT_EQ(b.monitor.text(), "012345678");
        const auto starts = b.starts();
        ASSERT_EQ(starts.size(), 9u);
        EXPECT_EQ(rose, starts[1]) << "room again as '1' moves into the shift register";
        EXPECT_EQ(b.first(b.temt_log, true, t0), b.xin(e0 + bit_cycles + 9 * 10 * bit_cycles))
            << "idle at the end of the last stop bit";
        EXPECT_LT(rose, starts[8]) << "not the 16550's 'FIFO empty': room came with 7 bytes still queued";
    });
}

// AUX_MU_LCR: 8 data bits with bits 1:0 = 11, 7 otherwise; parity and stop-bit fields do not exist:
// the frame stays no parity, one stop bit. Both sizes on TXD and RXD.
TEST(MiniUart, SevenOrEightDataBitsNoParityOneStopBit) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wr(LCR, 0x1F); // a 16550's 8E2
        EXPECT_EQ(b.rd(LCR), 0x03) << "only data size, break and DLAB exist";
        const std::string text = "\x55\xAA\x01\xFE";
        for (unsigned bits : {8u, 7u}) {
            const serial_format f{bits, parity_mode::none, 1};
            b.wr(LCR, bits == 8 ? 0x03 : 0x02);
            b.monitor.set_format(baud, f);
            b.monitor.clear_text();
            b.decoded.clear();
            b.txd_log.clear();
            for (char c : text)
                b.wr(THR, c);
            b.poll_lsr(LSR_TEMT, 5);
            b.wait_us(100);
            std::string expect;
            for (char c : text)
                expect += static_cast<char>(c & f.data_mask());
            EXPECT_EQ(b.monitor.text(), expect) << bits << " bits";
            for (const decoded_char& d : b.decoded)
                EXPECT_FALSE(d.framing_error) << bits << " bits";
            const auto starts = b.starts();
            ASSERT_EQ(starts.size(), 4u);
            EXPECT_EQ(starts[1] - starts[0], b.xin(bit_cycles * (bits + 2)) - b.xin(0)) << bits << " bits";
            b.injector.set_format(baud, f);
            b.injector.send(text, sc_time_stamp());
            sc_core::wait(b.injector.done_event());
            b.wait_us(10);
            std::string got;
            while (b.rd(LSR) & LSR_DR)
                got += static_cast<char>(b.rd(RBR));
            EXPECT_EQ(got, expect) << bits << " bits";
        }
    });
}

// Interrupts are levels: RX while the receive FIFO holds a byte, TX while the transmit FIFO is empty;
// reading IIR clears neither; RX is reported before TX.
TEST(MiniUart, LevelInterruptsFromTheFifos) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wr(IER, IER_THRE);
        EXPECT_TRUE(b.irq.read()) << "TX FIFO empty";
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_THRE);
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_THRE) << "reading IIR does not clear it";
        b.wr(THR, 'a'); // straight into the shift register: the FIFO is empty again
        EXPECT_TRUE(b.irq.read());
        b.wr(THR, 'b');
        EXPECT_FALSE(b.irq.read()) << "one byte queued";
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_NONE);
        b.poll_lsr(LSR_THRE | LSR_TEMT, 5);
        EXPECT_TRUE(b.irq.read());
        b.wr(IER, IER_RDA | IER_THRE);
        b.injector.send("r", sc_time_stamp());
        sc_core::wait(b.injector.done_event());
        b.wait_us(1);
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_RDA) << "one byte is enough; RX before TX";
        EXPECT_EQ(b.rd(RBR), 'r');
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_THRE);
        b.wr(IER, 0);
        EXPECT_FALSE(b.irq.read());
    });
}

// 8 receive entries; the ninth and tenth characters are lost with LSR.OE (cleared by the read); no
// character timeout (one byte raises the RX interrupt at once and it stays that).
TEST(MiniUart, ReceiveFifoOverrunAndNoTimeout) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wr(IER, IER_RDA);
        b.injector.send("ABCDEFGHIJ", sc_time_stamp());
        sc_core::wait(b.injector.done_event());
        b.wait_us(10);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 8u);
        EXPECT_EQ(b.uart.rx_overruns(), 2u);
        EXPECT_EQ(b.rd(LSR) & (LSR_DR | LSR_OE), LSR_DR | LSR_OE);
        EXPECT_EQ(b.rd(LSR) & LSR_OE, 0) << "OE clears on read";
        std::string got;
        while (b.rd(LSR) & LSR_DR)
            got += static_cast<char>(b.rd(RBR));
        EXPECT_EQ(got, "ABCDEFGH");
        b.injector.send("z", sc_time_stamp());
        sc_core::wait(b.injector.done_event());
        b.wait_us(1000); // more than 4 character times
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_RDA) << "no 0xCC timeout on the mini UART";
        EXPECT_EQ(b.rd(LSR) & (LSR_PE | LSR_FE | LSR_BI), 0);
    });
}

// Writing AUX_MU_IIR bit 1 clears the receive FIFO, bit 2 the transmit FIFO; bit 0 cannot turn
// the FIFOs off.
TEST(MiniUart, FifoClearThroughIir) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.injector.send("xy", sc_time_stamp());
        sc_core::wait(b.injector.done_event());
        b.wait_us(10);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 2u);
        b.wr(FCR, 0x00);
        EXPECT_EQ(b.rd(IIR) & IIR_FIFOS, IIR_FIFOS) << "still enabled";
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 2u) << "FCR0=0 changes nothing";
        b.wr(FCR, FCR_CLR_RX);
        EXPECT_EQ(b.rd(LSR) & LSR_DR, 0);
        for (char c : std::string("abcd"))
            b.wr(THR, c);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 3u);
        b.wr(FCR, FCR_CLR_TX);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 0u);
        b.poll_lsr(LSR_TEMT, 5);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "a") << "only the byte in the shift register went out";
    });
}

// AUX_MU_MCR has RTS only (no DTR, OUT1/2, loopback: TX stays on the pin), AUX_MU_MSR bit 4 is CTS
// with no delta bits and no modem interrupt.
TEST(MiniUart, RtsOnlyNoLoopbackCtsWithoutDeltas) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        b.wr(MCR, MCR_DTR | MCR_RTS | MCR_OUT1 | MCR_OUT2 | MCR_LOOP);
        EXPECT_EQ(b.rd(MCR), MCR_RTS);
        EXPECT_FALSE(b.nrts.read()) << "RTS active";
        EXPECT_TRUE(b.ndtr.read() && b.nout1.read() && b.nout2.read());
        b.wr(THR, 'L');
        b.poll_lsr(LSR_TEMT, 5);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "L") << "no loopback: the byte is on TXD";
        EXPECT_EQ(b.rd(LSR) & LSR_DR, 0) << "and not received";
        b.wr(IER, 0x0F);
        b.wr(THR, 'M');
        b.wr(THR, 'N'); // TX FIFO not empty: no TX interrupt
        b.ncts.write(false);
        b.ndsr.write(false);
        b.wait_us(1);
        EXPECT_EQ(b.rd(MSR), 0x10) << "CTS only, no DCTS";
        EXPECT_EQ(b.rd(IIR), IIR_FIFOS | IIR_NONE) << "no modem status interrupt";
    });
}

// Polling LSR while sending (what the console's per-character wait does): the promised value holds
// until LSR changes, to the picosecond, on a part whose flags follow the FIFO's fill.
TEST(MiniUart, ReadPromiseOnLsrHoldsUntilTheFifoHasRoom) {
    UARTVP_SIM_TEST();
    run_bench(mini_config(), [](uart16550_bench& b) {
        setup_8n1(b);
        for (char c : std::string("012345678"))
            b.wr(THR, c);
        read_promise p;
        const std::uint8_t lsr = b.rd(LSR, &p);
        ASSERT_TRUE(p.valid);
        EXPECT_EQ(lsr & LSR_THRE, 0);
        ASSERT_GT(p.until, sc_time_stamp());
        ASSERT_LT(p.until, sc_core::sc_max_time());
        sc_core::wait(p.until - sc_time_stamp() - sc_time(1, sc_core::SC_PS));
        EXPECT_EQ(b.rd(LSR), lsr) << "still full 1 ps before";
        sc_core::wait(sc_time(1, sc_core::SC_PS));
        EXPECT_EQ(b.rd(LSR) & LSR_THRE, LSR_THRE) << "room at the promised time";
        read_promise iir;
        b.rd(IIR, &iir);
        EXPECT_TRUE(iir.valid) << "reading IIR has no side effect here";
    });
}
