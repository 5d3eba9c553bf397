// SPDX-License-Identifier: Apache-2.0
// The 16550 model against the PC16550D datasheet, through its TLM socket: reset values, THRE/TEMT on
// TXD in both modes and the THRE delay rule, 16450 THR overwrite, a full FIFO, FCR rules, IIR priority
// and clearing, the character timeout, trigger levels, DLAB, loopback with its modem wiring, MSR
// deltas, frame formats (line monitor and RX injector), LSR errors, bad accesses, debug transport,
// read promises, reset, a slow part's latencies.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "sim_main.h"
#include "uart16550_bench.h"

using namespace uartvp;
using namespace uartvp::test;
using namespace uartvp::test::r16550;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_US;

namespace {

constexpr std::uint64_t bit_cycles = 16; // XIN cycles per bit at divisor 1 (16 BAUDOUT cycles)
constexpr std::uint64_t frame_8n1 = 10 * bit_cycles;
const double baudout_ns = 1e9 / 1'843'200.0;

uart16550_config mmio_config() {
    uart16550_config c;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    return c;
}

// Enough bus traffic to leave the model in a non-reset state.
void dirty(uart16550_bench& b) {
    b.setup(3, 0x1B);
    b.wr(IER, 0x0F);
    b.wr(FCR, 0xC1);
    b.wr(MCR, 0x1F);
    b.wr(SCR, 0x5A);
}

} // namespace

TEST(Uart16550, ResetValuesAndMasterReset) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        EXPECT_EQ(b.rd(IER), 0x00);
        EXPECT_EQ(b.rd(IIR), 0x01);
        EXPECT_EQ(b.rd(LCR), 0x00);
        EXPECT_EQ(b.rd(MCR), 0x00);
        EXPECT_EQ(b.rd(LSR), 0x60);
        EXPECT_EQ(b.rd(MSR), 0x00) << "modem inputs inactive";
        EXPECT_TRUE(b.txd.read());
        EXPECT_FALSE(b.irq.read());
        EXPECT_TRUE(b.nrts.read() && b.ndtr.read() && b.nout1.read() && b.nout2.read());
        dirty(b);
        b.wr(MCR, 0x0F);
        EXPECT_FALSE(b.nrts.read()) << "RTS active";
        b.nreset.write(false);
        b.wait_us(1);
        EXPECT_EQ(b.rd(IER), 0x00);
        EXPECT_EQ(b.rd(IIR), 0x01) << "FIFOs off again";
        EXPECT_EQ(b.rd(LCR), 0x00);
        EXPECT_EQ(b.rd(MCR), 0x00);
        EXPECT_EQ(b.rd(LSR), 0x60);
        EXPECT_TRUE(b.nrts.read()) << "outputs inactive in reset";
        b.nreset.write(true);
        b.wait_us(1);
        EXPECT_EQ(b.rd(SCR), 0x5A) << "MR does not touch SCR";
        b.wr(LCR, LCR_DLAB);
        EXPECT_EQ(b.rd(DLL), 3) << "nor the divisor latches";
        EXPECT_EQ(b.rd(DLM), 0);
    });
}

TEST(Uart16550, ConstructibleWithJustANameAndRejectsImpossibleLayouts) {
    UARTVP_SIM_TEST();
    uart16550 u("u");
    EXPECT_EQ(u.config().clock_hz, 1'843'200u);
    EXPECT_EQ(u.config().reg_shift, 0u);
    EXPECT_EQ(u.map_size(), 8u);
    uart16550_config bad;
    bad.reg_io_width = 4; // four registers at once at stride 1
    EXPECT_THROW(uart16550("v", bad), std::invalid_argument);
}

// 16450 mode: THR moves into the idle TSR at once; a second byte waits in THR (THRE=0) until the first
// frame ends, which is when the second start bit falls; TEMT rises at the end of the second stop bit.
TEST(Uart16550, ThreAndTemtIn16450ModeMeasuredOnTxd) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wait_us(3.3);
        const sc_time t0 = sc_time_stamp();
        b.wr(THR, 'A');
        EXPECT_EQ(b.rd(LSR) & (LSR_THRE | LSR_TEMT), LSR_THRE) << "A is in the TSR: THRE=1, TEMT=0";
        b.wait_us(20);
        const sc_time t1 = sc_time_stamp();
        b.wr(THR, 'B');
        EXPECT_EQ(b.rd(LSR) & (LSR_THRE | LSR_TEMT), 0) << "B waits in THR";
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        const auto falls = b.starts();
        ASSERT_EQ(falls.size(), 2u);
        const std::uint64_t e0 = b.xin_at(t0);
        // Start bit 16 BAUDOUT cycles after the write (datasheet: 8 to 24).
        EXPECT_EQ(falls[0], b.xin(e0 + 16));
        const double start_delay = (falls[0] - t0).to_seconds() * 1e9 / baudout_ns;
        EXPECT_GE(start_delay, 8);
        EXPECT_LE(start_delay, 24);
        EXPECT_EQ(falls[1], b.xin(e0 + 16 + frame_8n1)) << "B follows A without a gap";
        EXPECT_EQ(b.first(b.thre_log, false), t1);
        EXPECT_EQ(b.first(b.thre_log, true, t1), falls[1]) << "THRE rises as B moves into the TSR";
        EXPECT_EQ(b.first(b.temt_log, true, t1), b.xin(e0 + 16 + 2 * frame_8n1))
            << "TEMT at B's stop bit end";
        EXPECT_EQ(b.monitor.text(), "AB");
    });
}

// FIFO mode, a burst: THRE means "FIFO empty": it rises when the last byte moves into the TSR (the FIFO
// held two bytes at once, so no delay), TEMT when that byte's stop bit ends.
TEST(Uart16550, ThreAndTemtInFifoModeMeasuredOnTxd) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        b.wr(THR, 'x'); // the first THRE after enabling the FIFO is immediate: use it up
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        const sc_time t0 = sc_time_stamp();
        for (char c : std::string("abc"))
            b.wr(THR, c);
        EXPECT_EQ(b.rd(LSR) & LSR_THRE, 0) << "not empty: THRE=0 although the FIFO has room";
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        const auto falls = b.starts();
        ASSERT_EQ(falls.size(), 4u);
        const std::uint64_t e0 = b.xin_at(t0);
        EXPECT_EQ(falls[1], b.xin(e0 + 16));
        EXPECT_EQ(falls[3], b.xin(e0 + 16 + 2 * frame_8n1));
        EXPECT_EQ(b.first(b.thre_log, true, t0), falls[3]) << "THRE when 'c' leaves the FIFO";
        EXPECT_EQ(b.first(b.temt_log, true, t0), b.xin(e0 + 16 + 3 * frame_8n1));
        EXPECT_EQ(b.monitor.text(), "xabc");
    });
}

// The THRE delay in FIFO interrupt mode (FCR0=1, IER.ETBEI=1): with THRE=1 and never two bytes in the
// FIFO since, THRE rises one character time minus the last stop bit after the byte left; the first
// rise after changing FCR0 is immediate; a FIFO that held two bytes is not delayed.
TEST(Uart16550, ThreDelayRuleForSingleBytesInFifoInterruptMode) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(IER, IER_THRE);
        b.wr(FCR, FCR_EN);
        const sc_time t0 = sc_time_stamp();
        b.wr(THR, '1');
        EXPECT_TRUE(b.rd(LSR) & LSR_THRE) << "first THRE after changing FCR0: immediate";
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        const sc_time t1 = sc_time_stamp();
        b.wr(THR, '2');
        EXPECT_FALSE(b.rd(LSR) & LSR_THRE) << "byte in the TSR, FIFO empty, but THRE delayed";
        b.poll_lsr(LSR_TEMT, 1);
        const sc_time thre2 = b.first(b.thre_log, true, t1);
        EXPECT_EQ(thre2, b.xin(b.xin_at(t1) + frame_8n1 - bit_cycles)) << "char time minus one stop bit";
        // Per character: the next byte waits for THRE, so it is written before the frame ends and the line
        // stays busy (the console's per-character path runs at the line rate on a real 16550).
        b.wait_us(3.3);
        const sc_time t2 = sc_time_stamp();
        for (char c : std::string("345")) // '3' into the TSR, then two bytes at once in the FIFO
            b.wr(THR, c);
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        const auto starts = b.starts();
        ASSERT_EQ(starts.size(), 5u);
        EXPECT_EQ(b.first(b.thre_log, true, t2), starts[4]) << "'5' leaves the FIFO: THRE at once";
        EXPECT_EQ(b.first(b.thre_log, false), t1) << "no visible THRE fall for '1': it left THR at once";
        EXPECT_EQ(b.monitor.text(), "12345");
        (void)t0;
    });
}

// FIFO polled mode (FCR0=1, IER.ETBEI=0): the datasheet describes LSR5 there without the delay, so THRE
// rises as the single byte leaves the FIFO; the line still runs back to back (the next byte waits in
// the FIFO for the TSR).
TEST(Uart16550, NoThreDelayInFifoPolledMode) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(IER, IER_RDA | IER_RLS | IER_MS); // every source but the transmitter's
        b.wr(FCR, FCR_EN);
        b.wr(THR, '1'); // the first THRE after changing FCR0: immediate in any mode
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        const sc_time t1 = sc_time_stamp();
        b.wr(THR, '2');
        EXPECT_TRUE(b.rd(LSR) & LSR_THRE) << "byte in the TSR at once, FIFO empty: THRE at once";
        const sc_time t3 = sc_time_stamp();
        b.wr(THR, '3'); // waits in the FIFO for the TSR
        EXPECT_EQ(b.first(b.thre_log, false, t1), t3) << "no visible THRE low for '2'";
        EXPECT_FALSE(b.rd(LSR) & LSR_THRE);
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        const auto starts = b.starts();
        ASSERT_EQ(starts.size(), 3u);
        EXPECT_EQ(starts[2], starts[1] + b.xin(frame_8n1) - b.xin(0)) << "back to back";
        EXPECT_EQ(b.first(b.thre_log, true, t1 + sc_time(1, sc_core::SC_PS)), starts[2])
            << "THRE when '3' leaves the FIFO for the TSR, not a character time later";
        EXPECT_EQ(b.monitor.text(), "123");
    });
}

// The mode is decided while the rise is pending: clearing ETBEI during the delay raises THRE at the
// write; a byte that left in polled mode raised THRE then, and ETBEI set later raises the interrupt.
TEST(Uart16550, IerWriteDuringTheThreDelayReDecidesIt) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(IER, IER_THRE);
        b.wr(FCR, FCR_EN);
        b.wr(THR, '1'); // use up the immediate first THRE
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        b.wr(THR, '2');
        b.wait_us(30);
        EXPECT_FALSE(b.rd(LSR) & LSR_THRE) << "delayed: interrupt mode";
        const sc_time cleared = sc_time_stamp();
        b.wr(IER, 0);
        EXPECT_TRUE(b.rd(LSR) & LSR_THRE) << "polled mode from now: the FIFO is empty";
        EXPECT_EQ(b.first(b.thre_log, true, cleared), cleared);
        EXPECT_EQ(b.rd(IIR) & 0x0F, IIR_NONE) << "no THRE interrupt with ETBEI clear";
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        // Polled mode when the byte leaves, then interrupt mode before THRE was read: nothing pending
        // any more, THRE stays 1 and ETBEI raises the interrupt at once.
        b.wr(THR, '3');
        EXPECT_TRUE(b.rd(LSR) & LSR_THRE);
        b.wr(IER, IER_THRE);
        EXPECT_EQ(b.rd(IIR) & 0x0F, IIR_THRE);
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "123");
    });
}

// A slow part's rise pending in polled mode, then ETBEI set: the datasheet's later time wins.
TEST(Uart16550, EtbeiSetDuringASlowPartsLatencyDelaysThreToTheDatasheetsTime) {
    UARTVP_SIM_TEST();
    uart16550_config slow;
    slow.thre_delay = sc_time(20, SC_US);
    run_bench(slow, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        b.wr(THR, '1');
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(3.3);
        const sc_time t = sc_time_stamp();
        b.wr(THR, '2'); // leaves at once; THRE due 20 us later
        b.wait_us(5);
        b.wr(IER, IER_THRE);
        b.poll_lsr(LSR_TEMT, 1);
        EXPECT_EQ(b.first(b.thre_log, true, t + sc_time(1, sc_core::SC_PS)),
                  b.xin(b.xin_at(t) + frame_8n1 - bit_cycles))
            << "one character time minus one stop bit, not the 20 us latency";
    });
}

TEST(Uart16550, ThrOverwriteIn16450ModeLosesTheWaitingByte) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(THR, 'A'); // into the TSR
        b.wr(THR, 'B'); // waits in THR
        b.wr(THR, 'C'); // overwrites B
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "AC");
        EXPECT_EQ(b.uart.tx_lost(), 1u);
    });
}

TEST(Uart16550, WriteIntoAFullTxFifoIsLost) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        const std::string s = "0123456789abcdefgh"; // 1 into the TSR, 16 in the FIFO, 'h' lost
        for (char c : s)
            b.wr(THR, c);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 16u);
        b.poll_lsr(LSR_TEMT, 5);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "0123456789abcdefg");
        EXPECT_EQ(b.uart.tx_lost(), 1u);
    });
}

TEST(Uart16550, FcrRules) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, 0xC6); // FCR0=0: the other bits do nothing
        EXPECT_EQ(b.rd(IIR), 0x01) << "FIFOs stay off";
        b.wr(FCR, 0xC1);
        EXPECT_EQ(b.rd(IIR), 0xC1) << "FCR cannot be read: offset 2 reads IIR, bits 7:6 set with FIFOs on";
        // Fill the TX FIFO behind a character on the line; clearing it (bit 2) leaves the TSR alone.
        for (char c : std::string("ABCD"))
            b.wr(THR, c);
        b.wr(FCR, FCR_EN | FCR_CLR_TX);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 0u);
        EXPECT_EQ(b.rd(LSR) & (LSR_THRE | LSR_TEMT), LSR_THRE) << "FIFO empty, A still shifting";
        // RX data through loopback, then bit 1 clears the RX FIFO.
        b.poll_lsr(LSR_TEMT, 1);
        b.wr(MCR, MCR_LOOP);
        b.wr(THR, 'x');
        b.wr(THR, 'y');
        b.poll_lsr(LSR_DR | LSR_TEMT, 1);
        b.wait_us(100);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 2u);
        b.wr(FCR, FCR_EN | FCR_CLR_RX);
        EXPECT_EQ(b.rd(LSR) & LSR_DR, 0);
        // Changing FCR0 clears both FIFOs.
        b.wr(THR, 'z');
        b.wr(THR, 'w');
        b.wait_us(100); // 'z' received, 'w' shifting
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 1u);
        b.wr(FCR, 0);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 0u);
        EXPECT_EQ(b.rd(IIR), 0x01);
        b.wr(MCR, 0);
        EXPECT_EQ(b.monitor.text(), "A") << "loopback traffic never reaches TXD";
    });
}

// Line status > received data (or timeout) > THRE > modem status; each cleared by its own action.
TEST(Uart16550, IirPriorityAndClearingRules) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN); // RX trigger 1
        b.wr(IER, IER_THRE);
        EXPECT_TRUE(b.irq.read()) << "enabling THRE while THRE=1 raises it at once";
        EXPECT_EQ(b.rd(IIR), 0xC2);
        EXPECT_EQ(b.rd(IIR), 0xC1) << "reading IIR cleared it";
        EXPECT_FALSE(b.irq.read());
        b.wr(IER, 0);
        b.wr(IER, IER_THRE);
        EXPECT_EQ(b.peek(IIR), 0xC2);
        b.wr(THR, 'a'); // writing THR clears it; THRE rises again as 'a' moves on
        EXPECT_EQ(b.rd(IIR), 0xC2) << "'a' left the FIFO at once (first rise after FCR0 is immediate)";
        b.wr(THR, 'b');
        EXPECT_EQ(b.rd(IIR), 0xC1) << "writing THR cleared it";
        b.poll_lsr(LSR_TEMT, 1);
        b.wr(IER, IER_RDA | IER_THRE | IER_RLS | IER_MS);
        b.ncts.write(false); // DCTS
        rx_injector::options bad;
        bad.bad_stop = true;
        b.injector.send("Q", sc_time_stamp(), bad);
        b.wait_us(120);
        EXPECT_EQ(b.rd(IIR), 0xC6) << "line status first";
        EXPECT_EQ(b.rd(LSR) & (LSR_FE | LSR_DR), LSR_FE | LSR_DR);
        EXPECT_EQ(b.rd(IIR), 0xC4) << "then received data";
        EXPECT_EQ(b.rd(RBR), 'Q');
        EXPECT_EQ(b.rd(IIR), 0xC2) << "then THRE (still pending from the line going idle)";
        EXPECT_EQ(b.rd(IIR), 0xC0) << "then modem status";
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd(MSR), 0x11) << "DCTS and CTS";
        EXPECT_EQ(b.rd(IIR), 0xC1);
        EXPECT_FALSE(b.irq.read());
    });
}

// Character timeout: data below the trigger level, nothing received or read for 4 character times.
TEST(Uart16550, CharacterTimeoutAfterFourCharacterTimes) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN | 0x80); // trigger 8
        b.wr(IER, IER_RDA);
        b.injector.send("abc", sc_time_stamp() + sc_time(5, SC_US));
        b.wait_us(5 + 3 * 86.8 + 10);
        const sc_time third = b.first(b.rx_level_log, 3u);
        ASSERT_NE(third, sc_core::SC_ZERO_TIME);
        EXPECT_EQ(b.rd(IIR), 0xC1) << "3 < 8: no interrupt yet";
        const sc_time expected = b.xin(b.xin_at(third) + 4 * frame_8n1);
        sc_core::wait(expected - sc_time_stamp() - sc_time(1, SC_NS));
        EXPECT_EQ(b.rd(IIR), 0xC1) << "not before 4 character times";
        sc_core::wait(sc_time(2, SC_NS));
        EXPECT_EQ(b.rd(IIR), 0xCC) << "timeout";
        EXPECT_EQ(b.first(b.irq_log, true), expected);
        const sc_time read_at = sc_time_stamp();
        EXPECT_EQ(b.rd(RBR), 'a');
        EXPECT_EQ(b.rd(IIR), 0xC1) << "reading a character clears it and restarts the timer";
        sc_core::wait(b.xin(b.xin_at(read_at) + 4 * frame_8n1) - sc_time_stamp() + sc_time(1, SC_NS));
        EXPECT_EQ(b.rd(IIR), 0xCC) << "again 4 character times after the read";
        EXPECT_EQ(b.rd(RBR), 'b');
        EXPECT_EQ(b.rd(RBR), 'c');
        b.wait_us(2000);
        EXPECT_EQ(b.rd(IIR), 0xC1) << "no timeout with an empty FIFO";
    });
}

TEST(Uart16550, RxTriggerLevels) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(IER, IER_RDA);
        const unsigned levels[4] = {1, 4, 8, 14};
        for (unsigned code = 0; code < 4; ++code) {
            b.wr(FCR, static_cast<std::uint8_t>(code << 6 | FCR_EN | FCR_CLR_RX));
            const unsigned n = levels[code];
            b.injector.send(std::string(n, 'k'), sc_time_stamp());
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.uart.rx_fifo_level.read(), n) << "trigger " << n;
            EXPECT_EQ(b.rd(IIR), 0xC4) << "trigger " << n << " reached";
            EXPECT_EQ(b.rd(RBR), 'k');
            EXPECT_EQ(b.rd(IIR), 0xC1) << "trigger " << n << ": below it after one read";
        }
        // The level just below the trigger does not interrupt.
        b.wr(FCR, static_cast<std::uint8_t>(3 << 6 | FCR_EN | FCR_CLR_RX));
        b.injector.send(std::string(13, 'k'), sc_time_stamp());
        sc_core::wait(b.injector.done_event());
        b.wait_us(1);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 13u);
        EXPECT_EQ(b.rd(IIR), 0xC1);
    });
}

TEST(Uart16550, DivisorLatchAndScratch) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.wr(IER, 0x05);
        b.wr(LCR, LCR_DLAB | LCR_8N1);
        b.wr(DLL, 12); // 9600 baud
        b.wr(DLM, 0);
        EXPECT_EQ(b.rd(DLL), 12);
        EXPECT_EQ(b.rd(DLM), 0);
        b.wr(LCR, LCR_8N1);
        EXPECT_EQ(b.rd(IER), 0x05) << "DLM writes did not touch IER";
        b.wr(SCR, 0xA5);
        EXPECT_EQ(b.rd(SCR), 0xA5);
        b.wr(IER, 0);
        b.wr(THR, 0x55); // 0,1,0,1,0,1,0,1,0,1: an edge every bit
        b.poll_lsr(LSR_TEMT, 10);
        ASSERT_GE(b.txd_log.size(), 10u);
        const double bit_us = (b.txd_log[9].first - b.txd_log[0].first).to_seconds() * 1e6 / 9;
        EXPECT_NEAR(bit_us, 1e6 / 9600, 0.001);
        EXPECT_EQ(b.txd_log[1].first, b.xin(b.xin_at(b.txd_log[0].first) + 16 * 12));
    });
}

// Loopback: TX looped to RX inside, TXD held at mark, RTS->CTS, DTR->DSR, OUT1->RI, OUT2->DCD, the
// modem outputs inactive. Linux's autoconfig checks MSR & 0xF0 == 0x90 with MCR = LOOP|RTS|OUT2.
TEST(Uart16550, LoopbackAndItsModemWiring) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(MCR, MCR_LOOP);
        EXPECT_EQ(b.rd(MSR) & 0xF0, 0x00);
        b.wr(MCR, MCR_LOOP | MCR_RTS | MCR_OUT2);
        EXPECT_EQ(b.rd(MSR), 0x99) << "CTS, DCD and their deltas";
        b.wr(MCR, MCR_LOOP | 0x0F);
        EXPECT_EQ(b.rd(MSR), 0xF2) << "DSR from DTR, RI from OUT1 (no TERI: RI went active)";
        b.wr(MCR, MCR_LOOP | MCR_DTR | MCR_RTS | MCR_OUT2);
        EXPECT_EQ(b.rd(MSR), 0xB4) << "TERI: RI went inactive";
        EXPECT_TRUE(b.nrts.read() && b.ndtr.read() && b.nout1.read() && b.nout2.read())
            << "modem outputs inactive in loopback";
        b.wr(THR, 'L');
        b.poll_lsr(LSR_DR, 1);
        EXPECT_EQ(b.rd(RBR), 'L');
        EXPECT_TRUE(b.txd_log.empty()) << "TXD held at mark";
        b.wr(MCR, MCR_DTR | MCR_RTS | MCR_OUT1 | MCR_OUT2);
        EXPECT_FALSE(b.nrts.read() || b.ndtr.read() || b.nout1.read() || b.nout2.read());
        EXPECT_EQ(b.rd(MSR) & 0xF0, 0x00) << "back to the (inactive) inputs";
        b.wr(THR, 'T');
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "T");
        EXPECT_EQ(b.rd(LSR) & LSR_DR, 0) << "not looped back any more";
    });
}

TEST(Uart16550, ModemStatusDeltasAndInterrupt) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.wr(IER, IER_MS);
        b.ncts.write(false);
        b.ndsr.write(false);
        b.wait_us(1);
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd(IIR), 0x00);
        EXPECT_EQ(b.rd(MSR), 0x33);
        EXPECT_EQ(b.rd(MSR), 0x30) << "deltas cleared by the read";
        EXPECT_FALSE(b.irq.read());
        b.nri.write(false); // RI active: no TERI
        b.wait_us(1);
        EXPECT_EQ(b.rd(MSR), 0x70);
        b.nri.write(true); // RI inactive: TERI
        b.ndcd.write(false);
        b.wait_us(1);
        EXPECT_EQ(b.rd(MSR), 0xBC);
    });
}

// Every frame format: TX decoded by the line monitor, RX from the injector read back from RBR.
TEST(Uart16550, EveryFrameFormatOnTxdAndRxd) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        const parity_mode parities[] = {parity_mode::none, parity_mode::even, parity_mode::odd,
                                        parity_mode::mark, parity_mode::space};
        const std::uint8_t pbits[] = {0x00, 0x18, 0x08, 0x28, 0x38};
        const std::string text = "\x55\x2A\x01\x7E";
        for (unsigned data = 5; data <= 8; ++data)
            for (unsigned p = 0; p < 5; ++p)
                for (unsigned stop = 1; stop <= 2; ++stop) {
                    serial_format f{data, parities[p], stop};
                    const std::string name = f.name();
                    b.wr(LCR, static_cast<std::uint8_t>((data - 5) | (stop == 2 ? 0x04 : 0) | pbits[p]));
                    serial_format mon = f;
                    if (data == 5) mon.stop_bits = 1; // 1.5 stop bits: the monitor checks the first
                    b.monitor.set_format(115200, mon);
                    b.monitor.clear_text();
                    b.decoded.clear();
                    for (char c : text)
                        b.wr(THR, c);
                    b.poll_lsr(LSR_TEMT, 5);
                    b.wait_us(30);
                    std::string expect;
                    for (char c : text)
                        expect += static_cast<char>(c & f.data_mask());
                    EXPECT_EQ(b.monitor.text(), expect) << name;
                    for (const decoded_char& d : b.decoded)
                        EXPECT_FALSE(d.parity_error || d.framing_error) << name;
                    // RX: the injector sends in the same format.
                    b.injector.set_format(115200, f);
                    b.injector.send(text, sc_time_stamp());
                    sc_core::wait(b.injector.done_event());
                    b.wait_us(1);
                    std::string got;
                    while (b.rd(LSR) & LSR_DR) {
                        EXPECT_EQ(b.rd(LSR) & (LSR_PE | LSR_FE | LSR_BI), 0) << name;
                        got += static_cast<char>(b.rd(RBR));
                    }
                    EXPECT_EQ(got, expect) << name;
                }
        // 5 data bits with LCR.STB: 1.5 stop bits, so back-to-back frames are 7.5 bits apart.
        b.wr(LCR, 0x04);
        b.txd_log.clear();
        b.wr(THR, 0x1F);
        b.wr(THR, 0x1F);
        b.poll_lsr(LSR_TEMT, 5);
        const auto falls = b.txd_falls();
        ASSERT_EQ(falls.size(), 2u);
        EXPECT_EQ(falls[1], b.xin(b.xin_at(falls[0]) + 7 * 16 + 8));
    });
}

TEST(Uart16550, LineStatusErrorsFromTheReceiver) {
    UARTVP_SIM_TEST();
    run_bench(
        uart16550_config{},
        [](uart16550_bench& b) {
            b.setup(1, 0x1B); // 8E1
            b.wr(FCR, FCR_EN);
            rx_injector::options bad_parity;
            bad_parity.bad_parity = true;
            b.injector.send("p", sc_time_stamp(), bad_parity);
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.rd(LSR), LSR_FIFOE | LSR_THRE | LSR_TEMT | LSR_PE | LSR_DR);
            EXPECT_EQ(b.rd(LSR), LSR_THRE | LSR_TEMT | LSR_DR) << "PE and LSR7 cleared by the read";
            EXPECT_EQ(b.rd(RBR), 'p');
            rx_injector::options bad_stop;
            bad_stop.bad_stop = true;
            b.injector.send("f", sc_time_stamp(), bad_stop);
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.rd(LSR) & (LSR_FE | LSR_PE | LSR_BI), LSR_FE);
            EXPECT_EQ(b.rd(RBR), 'f');
            // The receiver resynchronised on the low stop bit (sampled as the next start bit): the mark
            // after it gives one more character, 0xFF.
            b.wait_us(200);
            EXPECT_EQ(b.rd(RBR), 0xFF);
            EXPECT_EQ(b.rd(LSR) & LSR_DR, 0);
            b.injector.send_break(sc_time(500, SC_US), sc_time_stamp());
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.uart.rx_fifo_level.read(), 1u) << "one zero character per break";
            EXPECT_EQ(b.rd(LSR) & (LSR_BI | LSR_FE | LSR_PE), LSR_BI | LSR_FE);
            EXPECT_EQ(b.rd(RBR), 0);
            // Overrun, FIFO mode: the 17th character is lost, the 16 stay.
            b.injector.send("ABCDEFGHIJKLMNOPQ", sc_time_stamp());
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.rd(LSR) & LSR_OE, LSR_OE);
            EXPECT_EQ(b.uart.rx_fifo_level.read(), 16u);
            EXPECT_EQ(b.rd(RBR), 'A');
            EXPECT_EQ(b.uart.rx_overruns(), 1u);
            // Overrun, 16450 mode: the newer character overwrites RBR.
            b.wr(FCR, 0);
            b.injector.send("XY", sc_time_stamp());
            sc_core::wait(b.injector.done_event());
            b.wait_us(1);
            EXPECT_EQ(b.rd(LSR) & (LSR_OE | LSR_DR), LSR_OE | LSR_DR);
            EXPECT_EQ(b.rd(RBR), 'Y');
        },
        serial_format{8, parity_mode::even, 1});
}

TEST(Uart16550, BadAccessesGetErrorResponsesAndChangeNothing) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        std::uint32_t v = 0x77;
        EXPECT_EQ(b.access(true, 8, 1, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "outside the map";
        EXPECT_EQ(b.access(false, 0x100, 1, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(b.access(true, 6, 2, v), tlm::TLM_BURST_ERROR_RESPONSE) << "2 bytes at stride 1";
        EXPECT_EQ(b.access(false, 4, 4, v), tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(b.access(false, 0, 3, v), tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(b.rd(SCR), 0x00) << "nothing written";
        EXPECT_EQ(b.rd(LCR), 0x00);
        b.wr(LSR, 0x00); // factory test: ignored
        b.wr(MSR, 0xFF);
        EXPECT_EQ(b.rd(LSR), 0x60);
        EXPECT_EQ(b.rd(MSR), 0x00);
    });
}

TEST(Uart16550, MmioRegShift2With1And4ByteAccesses) {
    UARTVP_SIM_TEST();
    run_bench(mmio_config(), [](uart16550_bench& b) {
        EXPECT_EQ(b.uart.map_size(), 32u);
        std::uint32_t v = 0xFFFFFF5A;
        EXPECT_EQ(b.access(true, SCR << 2, 4, v), tlm::TLM_OK_RESPONSE);
        v = 0xDEADBEEF;
        EXPECT_EQ(b.access(false, SCR << 2, 4, v), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(v, 0x5Au) << "the register is the low byte; upper bytes read 0";
        v = 0;
        EXPECT_EQ(b.access(false, LSR << 2, 1, v), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(v, 0x60u) << "readb works too";
        EXPECT_EQ(b.access(false, (SCR << 2) + 1, 1, v), tlm::TLM_ADDRESS_ERROR_RESPONSE)
            << "between registers";
        EXPECT_EQ(b.access(false, SCR << 2, 2, v), tlm::TLM_BURST_ERROR_RESPONSE) << "16-bit not configured";
        EXPECT_EQ(b.access(false, 32, 4, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        const std::vector<unsigned char> upper_only{0, 0xFF, 0xFF, 0xFF};
        v = 0x11;
        EXPECT_EQ(b.access(true, SCR << 2, 4, v, nullptr, &upper_only), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(b.rd(SCR), 0x5A) << "lane 0 disabled: the register is not written";
        b.setup();
        b.wr(THR, 'M');
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(20);
        EXPECT_EQ(b.monitor.text(), "M");
    });
}

// transport_dbg reads RBR, IIR, LSR and MSR without popping or clearing anything, and refuses writes.
TEST(Uart16550, DebugTransportHasNoSideEffects) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        b.wr(IER, IER_THRE | IER_MS);
        b.ncts.write(false);
        rx_injector::options bad;
        bad.bad_stop = true;
        b.injector.send("d", sc_time_stamp(), bad);
        sc_core::wait(b.injector.done_event());
        b.wait_us(1);
        for (int i = 0; i < 3; ++i) {
            EXPECT_EQ(b.peek(RBR), 'd');
            EXPECT_EQ(b.peek(IIR), 0xC2);
            EXPECT_EQ(b.peek(LSR) & (LSR_FE | LSR_DR), LSR_FE | LSR_DR);
            EXPECT_EQ(b.peek(MSR), 0x11);
        }
        std::uint32_t v = 0x42;
        tlm::tlm_generic_payload tx;
        tx.set_command(tlm::TLM_WRITE_COMMAND);
        tx.set_address(SCR);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(1);
        tx.set_streaming_width(1);
        EXPECT_EQ(b.socket->transport_dbg(tx), 0u) << "debug writes refused";
        EXPECT_EQ(b.rd(IIR), 0xC2) << "THRE interrupt still pending";
        EXPECT_EQ(b.rd(LSR) & (LSR_FE | LSR_DR), LSR_FE | LSR_DR) << "FE still pending";
        EXPECT_EQ(b.rd(MSR), 0x11) << "DCTS still pending";
        EXPECT_EQ(b.rd(RBR), 'd') << "still in the FIFO";
        EXPECT_EQ(b.rd(SCR), 0x00);
    });
}

// A value promised until T holds until T and changes at T; reads that would clear something are not
// promised; `broken` fires on a bus write.
TEST(Uart16550, ReadPromiseHoldsUntilItsTimeAndBreaksOnWrites) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        b.wr(THR, '#');
        b.wr(THR, '$');
        read_promise p;
        const std::uint8_t lsr = b.rd(LSR, &p);
        ASSERT_TRUE(p.valid);
        EXPECT_EQ(lsr & LSR_THRE, 0);
        ASSERT_GT(p.until, sc_time_stamp());
        ASSERT_LT(p.until, sc_core::sc_max_time());
        sc_core::wait(p.until - sc_time_stamp() - sc_time(1, sc_core::SC_PS));
        EXPECT_EQ(b.rd(LSR), lsr) << "still the same 1 ps before";
        sc_core::wait(sc_time(1, sc_core::SC_PS));
        EXPECT_NE(b.rd(LSR), lsr) << "changed at the promised time";
        // Receiving: DR promised to stay 0 until the stop-bit sample of the character on the line.
        b.poll_lsr(LSR_TEMT, 1);
        b.injector.send("r", sc_time_stamp());
        b.wait_us(20);
        read_promise q;
        EXPECT_EQ(b.rd(LSR, &q) & LSR_DR, 0);
        ASSERT_TRUE(q.valid);
        sc_core::wait(q.until - sc_time_stamp());
        EXPECT_EQ(b.rd(LSR) & LSR_DR, LSR_DR);
        // Side effects: RBR with data, LSR with an error, MSR with a delta, IIR with THRE are not promised.
        read_promise none;
        b.rd(RBR, &none);
        EXPECT_FALSE(none.valid) << "RBR pops";
        b.wr(IER, IER_THRE);
        none.reset();
        b.rd(IIR, &none);
        EXPECT_FALSE(none.valid) << "IIR clears THRE";
        b.ncts.write(false);
        b.wait_us(1);
        none.reset();
        b.rd(MSR, &none);
        EXPECT_FALSE(none.valid) << "MSR clears DCTS";
        read_promise msr;
        b.rd(MSR, &msr);
        EXPECT_TRUE(msr.valid) << "no delta left";
        EXPECT_EQ(msr.until, sc_core::sc_max_time()) << "only an input can change it";
        read_promise scr;
        b.rd(SCR, &scr);
        ASSERT_TRUE(scr.valid);
        EXPECT_EQ(scr.until, sc_core::sc_max_time());
        // broken fires on a bus write by anyone.
        const sc_time write_at = sc_time_stamp() + sc_time(7, SC_US);
        sc_core::sc_spawn([&b, write_at] {
            sc_core::wait(write_at - sc_time_stamp());
            b.wr(SCR, 1);
        });
        sc_core::wait(sc_time(1, sc_core::SC_MS), *scr.broken);
        EXPECT_EQ(sc_time_stamp(), write_at);
        b.wait_us(1); // the writer's access ends (its payload freed) before the simulation stops
    });
}

TEST(Uart16550, ResetMidCharacterCutsTheFrame) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(THR, 0x00);
        b.wait_us(30);
        EXPECT_FALSE(b.txd.read());
        b.nreset.write(false);
        b.wait_us(1);
        EXPECT_TRUE(b.txd.read()) << "TXD back to mark at once";
        EXPECT_EQ(b.rd(LSR), 0x60);
        b.wr(THR, 'x');
        EXPECT_EQ(b.rd(LSR), 0x60) << "writes ignored while reset is held";
        b.nreset.write(true);
        b.wait_us(200);
        EXPECT_TRUE(b.txd.read());
    });
}

TEST(Uart16550, TxBreakHoldsTxdLow) {
    UARTVP_SIM_TEST();
    run_bench(uart16550_config{}, [](uart16550_bench& b) {
        b.setup();
        b.wr(LCR, LCR_8N1 | LCR_BREAK);
        EXPECT_FALSE(b.txd.read());
        b.wait_us(300);
        b.wr(LCR, LCR_8N1);
        EXPECT_TRUE(b.txd.read());
        b.wait_us(30);
        EXPECT_EQ(b.monitor.breaks(), 1u);
    });
}

TEST(Uart16550, Out2GatesTheIrqLineOnPcBoards) {
    UARTVP_SIM_TEST();
    uart16550_config cfg;
    cfg.out2_gates_irq = true;
    run_bench(cfg, [](uart16550_bench& b) {
        b.wr(IER, IER_THRE);
        EXPECT_EQ(b.peek(IIR), 0x02) << "INTR pending";
        EXPECT_FALSE(b.irq.read()) << "but OUT2 inactive";
        b.wr(MCR, MCR_OUT2);
        EXPECT_TRUE(b.irq.read());
        b.wr(MCR, MCR_OUT2 | MCR_LOOP);
        EXPECT_FALSE(b.irq.read()) << "the OUT2 pin is inactive in loopback";
    });
}

// A slow part: each byte waits tx_drain_time at the head of THR/FIFO, THRE rises thre_delay after the
// last byte left (in interrupt mode the datasheet's own delay wins if later; here IER is clear).
TEST(Uart16550, SlowPartDrainTimeAndLateThre) {
    UARTVP_SIM_TEST();
    uart16550_config cfg;
    cfg.tx_drain_time = sc_time(300, SC_US);
    cfg.thre_delay = sc_time(100, SC_US);
    run_bench(cfg, [](uart16550_bench& b) {
        b.setup();
        b.wr(FCR, FCR_EN);
        b.wr(THR, 'a'); // use up the immediate first THRE
        b.poll_lsr(LSR_TEMT, 1);
        const sc_time t0 = sc_time_stamp();
        b.wr(THR, 's');
        b.poll_lsr(LSR_TEMT, 1);
        const sc_time leave = t0 + sc_time(300, SC_US);
        b.wait_us(20);
        EXPECT_EQ(b.starts().back(), b.xin(b.xin_at(leave) + 16)) << "frame starts a bit after it left";
        EXPECT_EQ(b.first(b.thre_log, true, t0 + sc_time(1, sc_core::SC_PS)), leave + sc_time(100, SC_US))
            << "the late THRE, as the console sees it with IER cleared";
        const sc_time t1 = sc_time_stamp();
        b.wr(THR, '1');
        b.wr(THR, '2');
        b.wr(THR, '3');
        b.poll_lsr(LSR_TEMT, 1);
        b.wait_us(50);
        const auto starts = b.starts();
        ASSERT_EQ(starts.size(), 5u);
        const sc_time p = sc_time(300, SC_US);
        EXPECT_EQ(starts[2], b.xin(b.xin_at(t1 + p) + 16));
        EXPECT_EQ(starts[3], b.xin(b.xin_at(t1 + p + p) + 16)) << "one byte per drain time";
        EXPECT_EQ(b.first(b.thre_log, true, t1), t1 + 3 * p + sc_time(100, SC_US));
        EXPECT_EQ(b.monitor.text(), "as123");
    });
}

TEST(Uart16550, TraceWritesTheLinesAndObservationSignals) {
    UARTVP_SIM_TEST();
    const std::string base = "/tmp/uartvp-test-uart16550-trace";
    std::remove((base + ".vcd").c_str());
    {
        uart16550_bench b("bench", uart16550_config{}, [](uart16550_bench& b) {
            b.setup();
            b.wr(FCR, FCR_EN);
            b.wr(THR, 'v');
            b.wr(THR, 'c');
            b.poll_lsr(LSR_TEMT, 5);
        });
        sc_core::sc_trace_file* tf = sc_core::sc_create_vcd_trace_file(base.c_str());
        b.uart.trace(tf);
        sc_core::sc_start();
        sc_core::sc_close_vcd_trace_file(tf);
    }
    std::ifstream f(base + ".vcd");
    const std::string vcd((std::istreambuf_iterator<char>(f)), {});
    for (const char* name : {"txd", "rxd", "irq", "tx_fifo_level", "rx_fifo_level", "thre", "temt", "dr"})
        EXPECT_NE(vcd.find(std::string(" ") + name + " "), std::string::npos) << name;
    std::remove((base + ".vcd").c_str());
}
