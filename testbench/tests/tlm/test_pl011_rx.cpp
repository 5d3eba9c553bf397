// SPDX-License-Identifier: Apache-2.0
// The PL011's receive side against the TRM (DDI0183 r1p5), through the TLM wrapper with the RX injector
// on RXD: characters at several rates (one with a fractional divisor, and a few percent off), every
// frame format, the receive errors in DR[11:8], RSR and RIS, ECR, overrun, character mode, the RX, TX
// and RT interrupts at every FIFO level, loopback, the modem lines and their interrupts, RTS flow
// control, the DMA requests, and an idle line that costs nothing.
#include <string>

#include <gtest/gtest.h>

#include "pl011_bench.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::test;
using sc_core::SC_SEC;
using sc_core::sc_time;

namespace {

constexpr std::uint32_t DR_FE = 1 << 8, DR_PE = 1 << 9, DR_BE = 1 << 10, DR_OE = 1 << 11;
constexpr std::uint32_t RSR_FE = 1 << 0, RSR_PE = 1 << 1, RSR_BE = 1 << 2, RSR_OE = 1 << 3;
constexpr std::uint32_t CR_EN = 0x301, CR_LBE = 1 << 7, CR_DTR = 1 << 10, CR_RTS = 1 << 11, CR_OUT1 = 1 << 12,
                        CR_OUT2 = 1 << 13, CR_RTSEN = 1 << 14, CR_CTSEN = 1 << 15;
constexpr std::uint32_t DMACR_RXDMAE = 1 << 0, DMACR_TXDMAE = 1 << 1, DMACR_DMAONERR = 1 << 2;

// Bit period the divisor programs, in seconds: 16 * (IBRD + FBRD/64) / UARTCLK.
double programmed_bit_s(std::uint64_t uartclk, std::uint64_t baud) {
    const auto [ibrd, fbrd] = divisor(uartclk, baud);
    return 16.0 * (ibrd + fbrd / 64.0) / static_cast<double>(uartclk);
}

// Waits until the injector has sent everything, then one more bit period.
void wait_sent(pl011_bench& b, double bit_s) {
    while (!b.inj.idle())
        sc_core::wait(b.inj.done_event());
    sc_core::wait(sc_time(bit_s, SC_SEC));
}

// Every DR entry until RXFE, whole (data and error bits).
std::vector<std::uint32_t> drain(pl011_bench& b) {
    std::vector<std::uint32_t> v;
    while (!(b.rd(reg::FR) & fr::RXFE))
        v.push_back(b.rd(reg::DR, 2));
    return v;
}
std::string text_of(const std::vector<std::uint32_t>& v) {
    std::string s;
    for (std::uint32_t e : v)
        s += static_cast<char>(e & 0xFF);
    return s;
}

const std::string text = "Hello, PL011 012"; // fits a 16-entry FIFO

// Sends `text` at `inj_baud` to a UART programmed for `baud`, and reads it back without errors. The
// first character lands in the FIFO at its stop bit's last reading, one Baud16 period past its middle,
// within another period (the start bit is seen on the next enable) and the synchroniser's two cycles.
void receive_at(std::uint64_t uartclk, std::uint64_t baud, double inj_baud, unsigned depth = 32) {
    pl011_config cfg;
    cfg.clock_hz = uartclk;
    cfg.fifo_depth = depth;
    run_bench(cfg, [=](pl011_bench& b) {
        b.setup(baud);
        b.inj.set_format(inj_baud, serial_format{});
        const sc_time start = sc_core::sc_time_stamp() + sc_time(10, sc_core::SC_US);
        b.inj.send(text.substr(0, 1), start);
        sc_core::wait(b.uart.rx_fifo_level.value_changed_event());
        const double bit = programmed_bit_s(uartclk, baud), tick = bit / 16;
        const double pushed = (sc_core::sc_time_stamp() - start).to_seconds();
        const double mid_stop = 9.5 / inj_baud; // the sender's stop bit
        EXPECT_GT(pushed, mid_stop - 0.6 * bit) << "pushed before the stop bit";
        if (inj_baud == static_cast<double>(baud)) {
            EXPECT_GE(pushed, mid_stop - 1.0 / inj_baud / 32);
            EXPECT_LE(pushed, 9.5 * bit + 2 * tick + 3.0 / uartclk);
        }
        b.inj.send(text.substr(1));
        wait_sent(b, bit);
        const std::vector<std::uint32_t> got = drain(b);
        EXPECT_EQ(text_of(got), text);
        for (std::uint32_t e : got)
            EXPECT_EQ(e & 0xF00, 0u) << "errors with '" << char(e & 0xFF) << "'";
        EXPECT_EQ(b.rd(reg::RSR), 0u);
        EXPECT_EQ(b.rd(reg::RIS) & (irq::FE | irq::PE | irq::BE | irq::OE), 0u);
    });
}

} // namespace

TEST(Pl011Rx, ReceivesAt115200) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 115200, 115200);
}
TEST(Pl011Rx, ReceivesAt9600_Depth16) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 9600, 9600, 16);
}
TEST(Pl011Rx, ReceivesAt921600_FractionalDivisor) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 921600, 921600); // IBRD 1, FBRD 40
}
TEST(Pl011Rx, ReceivesAt38400_At7_3728MHz) {
    UARTVP_SIM_TEST();
    receive_at(7'372'800, 38400, 38400);
}
TEST(Pl011Rx, ReceivesFromASenderThreePercentFast) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 115200, 115200 * 1.03);
}
TEST(Pl011Rx, ReceivesFromASenderThreePercentSlow) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 115200, 115200 * 0.97);
}
TEST(Pl011Rx, ReceivesFromASenderTwoPercentOff_FractionalDivisor) {
    UARTVP_SIM_TEST();
    receive_at(24'000'000, 921600, 921600 * 1.02);
}

TEST(Pl011Rx, EveryFrameFormat) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        const parity_mode modes[] = {parity_mode::none, parity_mode::odd, parity_mode::even,
                                     parity_mode::mark, parity_mode::space};
        for (unsigned wlen = 0; wlen < 4; ++wlen)
            for (unsigned p = 0; p < 5; ++p)
                for (unsigned stp2 = 0; stp2 < 2; ++stp2) {
                    const std::uint32_t lcr = (wlen << 5) | 0x10 | (stp2 << 3) | (p == 0 ? 0 : 0x2) |
                                              (p == 2 || p == 4 ? 0x4 : 0) | (p >= 3 ? 0x80 : 0);
                    b.wr(reg::LCR_H, lcr);
                    b.inj.set_format(115200, serial_format{5 + wlen, modes[p], 1 + stp2});
                    b.inj.send(std::string("\xA7\x5A\x00\xFF", 4));
                    wait_sent(b, bit);
                    const std::vector<std::uint32_t> got = drain(b);
                    const std::uint32_t mask = (1u << (5 + wlen)) - 1;
                    ASSERT_EQ(got.size(), 4u) << "lcr 0x" << std::hex << lcr;
                    const std::uint32_t want[] = {0xA7, 0x5A, 0x00, 0xFF};
                    for (unsigned i = 0; i < 4; ++i)
                        EXPECT_EQ(got[i], want[i] & mask) << "lcr 0x" << std::hex << lcr << " char " << i;
                }
        EXPECT_EQ(b.rd(reg::RSR), 0u);
    });
}

TEST(Pl011Rx, FramingErrorInDrRsrAndRisAndEcrClearsRsr) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.send("f", sc_core::SC_ZERO_TIME, {sc_core::SC_ZERO_TIME, true, false});
        b.inj.send("g");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & (irq::FE | irq::PE | irq::BE | irq::OE), irq::FE);
        EXPECT_EQ(b.rd(reg::RSR), 0u) << "RSR follows DR reads";
        EXPECT_EQ(b.rd(reg::DR), DR_FE | 'f');
        EXPECT_EQ(b.rd(reg::RSR), RSR_FE);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('g')) << "the next character is clean";
        EXPECT_EQ(b.rd(reg::RSR), RSR_FE) << "RSR holds until ECR";
        b.wr(reg::RSR, 0); // ECR
        EXPECT_EQ(b.rd(reg::RSR), 0u);
        b.wr(reg::ICR, irq::FE);
        EXPECT_EQ(b.rd(reg::RIS) & irq::FE, 0u);
    });
}

TEST(Pl011Rx, ParityErrorInDrRsrAndRis) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x76); // 8E1
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.set_format(115200, serial_format{8, parity_mode::even, 1});
        b.inj.send("p", sc_core::SC_ZERO_TIME, {sc_core::SC_ZERO_TIME, false, true});
        b.inj.send("q");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & (irq::FE | irq::PE | irq::BE | irq::OE), irq::PE);
        b.wr(reg::IMSC, irq::PE);
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd(reg::MIS), irq::PE);
        EXPECT_EQ(b.rd(reg::DR), DR_PE | 'p');
        EXPECT_EQ(b.rd(reg::RSR), RSR_PE);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('q'));
        b.wr(reg::ICR, irq::PE);
        EXPECT_FALSE(b.irq.read());
        b.wr(reg::RSR, 0xFF);
        EXPECT_EQ(b.rd(reg::RSR), 0u);
    });
}

TEST(Pl011Rx, BreakGivesOneZeroCharacterWithBe) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.send("a");
        b.inj.send_break(sc_time(40 * bit, SC_SEC)); // four frames long: still one character
        b.inj.send("b");
        wait_sent(b, bit);
        const std::vector<std::uint32_t> got = drain(b);
        ASSERT_EQ(got.size(), 3u);
        EXPECT_EQ(got[0], static_cast<std::uint32_t>('a'));
        EXPECT_EQ(got[1] & (DR_BE | 0xFF), DR_BE) << "a zero character with BE";
        EXPECT_TRUE(got[1] & DR_FE) << "its stop bit was low too";
        EXPECT_EQ(got[2], static_cast<std::uint32_t>('b')) << "received again after the mark";
        EXPECT_EQ(b.rd(reg::RSR) & (RSR_BE | RSR_OE), RSR_BE);
        EXPECT_EQ(b.rd(reg::RIS) & (irq::BE | irq::OE), irq::BE);
    });
}

TEST(Pl011Rx, AZeroCharacterWithAGoodStopBitIsNoBreak) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        b.inj.send(std::string(1, '\0'));
        wait_sent(b, programmed_bit_s(24'000'000, 115200));
        EXPECT_EQ(b.rd(reg::DR), 0u);
        EXPECT_EQ(b.rd(reg::RIS) & (irq::FE | irq::BE), 0u);
    });
}

TEST(Pl011Rx, GlitchShorterThanHalfABitIsNoStartBit) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.send_break(sc_time(0.3 * bit, SC_SEC)); // a short low pulse
        wait_sent(b, 12 * bit);
        EXPECT_TRUE(b.rd(reg::FR) & fr::RXFE);
        b.inj.send("g");
        wait_sent(b, bit);
        EXPECT_EQ(drain(b), std::vector<std::uint32_t>{'g'});
        EXPECT_EQ(b.rd(reg::RIS) & (irq::FE | irq::PE | irq::BE | irq::OE), 0u);
    });
}

template <unsigned depth> void overrun_at_depth() {
    pl011_config cfg;
    cfg.fifo_depth = depth;
    run_bench(cfg, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        std::string s;
        for (unsigned i = 0; i < depth + 3; ++i)
            s += static_cast<char>('A' + i % 26);
        b.inj.send(s.substr(0, depth));
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::FR) & (fr::RXFF | fr::RXFE), fr::RXFF);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), depth);
        EXPECT_EQ(b.rd(reg::RIS) & irq::OE, 0u);
        b.inj.send(s.substr(depth)); // three more: lost
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & irq::OE, irq::OE);
        EXPECT_EQ(b.rd(reg::RSR), RSR_OE) << "OE is in RSR at once";
        const std::vector<std::uint32_t> got = drain(b);
        EXPECT_EQ(text_of(got), s.substr(0, depth)) << "the FIFO's contents stay valid";
        for (std::uint32_t e : got)
            EXPECT_EQ(e & 0xF00, 0u);
        b.inj.send("Z"); // the first character that fits again carries OE
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::DR), DR_OE | 'Z');
        b.inj.send("Y");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('Y'));
        b.wr(reg::RSR, 0);
        EXPECT_EQ(b.rd(reg::RSR), 0u);
    });
}
TEST(Pl011Rx, OverrunWhenTheFifoIsFull_Depth32) {
    UARTVP_SIM_TEST();
    overrun_at_depth<32>();
}
TEST(Pl011Rx, OverrunWhenTheFifoIsFull_Depth16) {
    UARTVP_SIM_TEST();
    overrun_at_depth<16>();
}

TEST(Pl011Rx, CharacterModeHoldsOneCharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x60); // 8 bits, FEN=0
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::IMSC, irq::RX);
        b.inj.send("a");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::FR) & (fr::RXFF | fr::RXFE), fr::RXFF) << "full with one character";
        EXPECT_TRUE(b.irq.read()) << "RX interrupt: the holding register is filled";
        b.inj.send("b"); // overrun
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & irq::OE, irq::OE);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('a'));
        EXPECT_FALSE(b.irq.read()) << "a single read clears the RX interrupt";
        EXPECT_EQ(b.rd(reg::FR) & (fr::RXFF | fr::RXFE), fr::RXFE);
        b.inj.send("c");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::DR), DR_OE | 'c');
    });
}

// RX interrupt at every IFLS level: raised by the character that brings the fill up to the level, cleared
// by reading below it or by ICR; masked, RIS shows it and the line stays low.
TEST(Pl011Rx, RxInterruptAtEveryLevelWithMaskingAndClearing) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(921600);
        b.inj.set_format(921600, serial_format{});
        const double bit = programmed_bit_s(24'000'000, 921600);
        const unsigned levels[] = {4, 8, 16, 24, 28, 28, 28, 28}; // codes 5..7 reserved: as 7/8
        for (unsigned code = 0; code < 8; ++code) {
            const unsigned level = levels[code];
            b.wr(reg::IFLS, code << 3 | 2);
            b.wr(reg::IMSC, irq::RX);
            b.inj.send(std::string(level - 1, 'r'));
            wait_sent(b, bit);
            EXPECT_FALSE(b.irq.read()) << "one below level " << level << ", code " << code;
            EXPECT_EQ(b.rd(reg::RIS) & irq::RX, 0u);
            b.inj.send("R");
            sc_core::wait(b.irq.posedge_event());
            EXPECT_EQ(b.uart.rx_fifo_level.read(), level) << "code " << code;
            b.rd(reg::DR);
            EXPECT_FALSE(b.irq.read()) << "read below the level";
            b.inj.send("S");
            sc_core::wait(b.irq.posedge_event());
            b.wr(reg::ICR, irq::RX);
            EXPECT_FALSE(b.irq.read()) << "ICR clears it";
            EXPECT_EQ(b.uart.rx_fifo_level.read(), level);
            // Masked: RIS sets, MIS and the line stay low (read below the level first: only a character
            // that passes up through it raises the interrupt).
            b.rd(reg::DR);
            b.wr(reg::IMSC, 0);
            b.inj.send("T");
            wait_sent(b, bit);
            EXPECT_EQ(b.rd(reg::RIS) & irq::RX, irq::RX);
            EXPECT_EQ(b.rd(reg::MIS), 0u);
            EXPECT_FALSE(b.irq.read());
            drain(b);
            b.wr(reg::ICR, 0x7FF);
        }
    });
}

// TX interrupt at every IFLS level: raised when the fill passes down through the level.
TEST(Pl011Rx, TxInterruptAtEveryLevel) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(921600, 0x70, 0x300);
        const unsigned levels[] = {4, 8, 16, 24, 28};
        for (unsigned code = 0; code < 5; ++code) {
            b.wr(reg::CR, 0x300);
            b.wr(reg::IFLS, 2 << 3 | code);
            b.wr(reg::IMSC, irq::TX);
            for (unsigned i = 0; i < levels[code] + 2; ++i)
                b.wr(reg::DR, 't', 1);
            EXPECT_FALSE(b.irq.read());
            b.wr(reg::CR, 0x301);
            sc_core::wait(b.irq.posedge_event());
            EXPECT_EQ(b.uart.tx_fifo_level.read(), levels[code]) << "code " << code;
            b.wr(reg::IMSC, 0);
            EXPECT_FALSE(b.irq.read()) << "masked";
            EXPECT_EQ(b.rd(reg::RIS) & irq::TX, irq::TX);
            b.wr(reg::ICR, irq::TX);
            b.wait_idle();
        }
    });
}

// RT: 32 bit periods after the last character (from its stop bit's last reading, where it was pushed).
TEST(Pl011Rx, ReceiveTimeoutAfter32BitPeriods) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200), tick = bit / 16;
        b.wr(reg::IMSC, irq::RT);
        const sc_time start = sc_core::sc_time_stamp() + sc_time(5, sc_core::SC_US);
        b.inj.send("xy", start); // below the RX level (16)
        sc_core::wait(b.irq.posedge_event());
        const double t = (sc_core::sc_time_stamp() - start).to_seconds();
        EXPECT_GE(t, (10 + 9.5 + 32) * bit);
        EXPECT_LE(t, (10 + 9.5 + 32) * bit + 3 * tick);
        EXPECT_EQ(b.rd(reg::MIS), irq::RT);
        // ICR clears it; it does not fire again without new data.
        b.wr(reg::ICR, irq::RT);
        EXPECT_FALSE(b.irq.read());
        sc_core::wait(sc_time(100 * bit, SC_SEC));
        EXPECT_FALSE(b.irq.read());
        // A new character restarts the count; emptying the FIFO clears it.
        b.inj.send("z");
        sc_core::wait(b.irq.posedge_event());
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 3u);
        b.rd(reg::DR);
        EXPECT_TRUE(b.irq.read()) << "still data in the FIFO";
        b.rd(reg::DR);
        b.rd(reg::DR);
        EXPECT_FALSE(b.irq.read()) << "cleared by emptying the FIFO";
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, 0u);
    });
}

TEST(Pl011Rx, LoopbackFeedsTxdAndTheModemOutputsBack) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, CR_EN | CR_LBE);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.send("X"); // RXD is not listened to in loopback
        for (char ch : std::string("loop"))
            b.wr(reg::DR, ch, 1);
        b.wait_idle();
        wait_sent(b, bit);
        EXPECT_EQ(text_of(drain(b)), "loop");
        EXPECT_EQ(b.txd_log.size() > 0, true) << "TXD still drives the pin";
        // RTS -> CTS, DTR -> DSR, OUT1 -> DCD, OUT2 -> RI, each change a modem interrupt.
        EXPECT_EQ(b.rd(reg::FR) & (fr::CTS | fr::DSR | fr::DCD | fr::RI), 0u);
        b.wr(reg::ICR, 0x7FF);
        b.wr(reg::CR, CR_EN | CR_LBE | CR_RTS);
        EXPECT_EQ(b.rd(reg::FR) & (fr::CTS | fr::DSR | fr::DCD | fr::RI), fr::CTS);
        b.wr(reg::CR, CR_EN | CR_LBE | CR_RTS | CR_DTR);
        EXPECT_EQ(b.rd(reg::FR) & (fr::CTS | fr::DSR | fr::DCD | fr::RI), fr::CTS | fr::DSR);
        b.wr(reg::CR, CR_EN | CR_LBE | CR_RTS | CR_DTR | CR_OUT1 | CR_OUT2);
        EXPECT_EQ(b.rd(reg::FR) & (fr::CTS | fr::DSR | fr::DCD | fr::RI),
                  fr::CTS | fr::DSR | fr::DCD | fr::RI);
        EXPECT_EQ(b.rd(reg::RIS) & 0xF, irq::RI | irq::CTS | irq::DCD | irq::DSR);
        EXPECT_FALSE(b.nrts.read()) << "the outputs still drive the pins";
        // Loopback off: the inputs count again (all inactive).
        b.wr(reg::CR, CR_EN);
        EXPECT_EQ(b.rd(reg::FR) & (fr::CTS | fr::DSR | fr::DCD | fr::RI), 0u);
    });
}

TEST(Pl011Rx, ModemInterruptsOnEitherEdgeOfEachInput) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        struct line {
            sc_core::sc_signal<bool>* sig;
            std::uint32_t fr_bit, irq_bit;
        } lines[] = {{&b.ncts, fr::CTS, irq::CTS},
                     {&b.ndsr, fr::DSR, irq::DSR},
                     {&b.ndcd, fr::DCD, irq::DCD},
                     {&b.nri, fr::RI, irq::RI}};
        for (const line& l : lines)
            for (bool level : {false, true}) {
                b.wr(reg::IMSC, l.irq_bit);
                l.sig->write(level);
                b.wait_cycles(4);
                EXPECT_EQ(!!(b.rd(reg::FR) & l.fr_bit), !level);
                EXPECT_EQ(b.rd(reg::RIS), l.irq_bit);
                EXPECT_TRUE(b.irq.read());
                b.wr(reg::IMSC, 0);
                EXPECT_FALSE(b.irq.read()) << "masked";
                b.wr(reg::ICR, l.irq_bit);
                EXPECT_EQ(b.rd(reg::RIS), 0u);
            }
    });
}

// RTSEN: nRTS deasserted when the RX FIFO reaches its level, asserted again when there is room.
TEST(Pl011Rx, RtsFollowsTheRxFifoLevel) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, CR_EN);
        const double bit = programmed_bit_s(24'000'000, 115200);
        EXPECT_TRUE(b.nrts.read()) << "RTS clear in CR";
        b.wr(reg::CR, CR_EN | CR_RTS);
        EXPECT_FALSE(b.nrts.read());
        b.wr(reg::IFLS, 0x02); // RX level 1/8: 4 of 32
        b.wr(reg::CR, CR_EN | CR_RTSEN);
        EXPECT_FALSE(b.nrts.read()) << "asserted while the FIFO is below its level";
        b.inj.send("abc");
        wait_sent(b, bit);
        EXPECT_FALSE(b.nrts.read());
        b.inj.send("d");
        sc_core::wait(b.nrts.posedge_event());
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 4u) << "deasserted at the level";
        b.rd(reg::DR);
        EXPECT_FALSE(b.nrts.read()) << "room again";
    });
}

// Loopback with RTSEN and CTSEN: the transmitter stops when the receiver's FIFO reaches its level, no
// character is lost, and reading makes room for one more.
TEST(Pl011Rx, HardwareFlowControlInLoopbackLosesNothing) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, CR_EN | CR_LBE | CR_RTSEN | CR_CTSEN); // RX level 1/2: 16
        for (unsigned i = 0; i < 30; ++i)
            b.wr(reg::DR, 'a' + i % 26, 1);
        b.wait_us(30 * 90);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 16u);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 14u);
        EXPECT_EQ(b.rd(reg::RIS) & irq::OE, 0u);
        b.rd(reg::DR);
        b.wait_us(5 * 90);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 16u);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 13u);
    });
}

TEST(Pl011Rx, DmaRequests) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x201); // transmitter disabled: the TX FIFO only fills
        const double bit = programmed_bit_s(24'000'000, 115200);
        EXPECT_FALSE(b.txdmasreq.read() || b.txdmabreq.read() || b.rxdmasreq.read() || b.rxdmabreq.read())
            << "off until DMACR enables them";
        b.wr(reg::DMACR, DMACR_TXDMAE);
        EXPECT_TRUE(b.txdmasreq.read()) << "TX single: room in the FIFO";
        EXPECT_TRUE(b.txdmabreq.read()) << "TX burst: at or below the level (16)";
        for (unsigned i = 0; i < 17; ++i)
            b.wr(reg::DR, 'd', 1);
        EXPECT_FALSE(b.txdmabreq.read()) << "above the level";
        EXPECT_TRUE(b.txdmasreq.read());
        for (unsigned i = 0; i < 15; ++i)
            b.wr(reg::DR, 'd', 1);
        EXPECT_FALSE(b.txdmasreq.read()) << "full";
        b.wr(reg::CR, 0x301);
        while (b.uart.tx_fifo_level.read() > 16)
            sc_core::wait(b.uart.tx_fifo_level.value_changed_event());
        EXPECT_TRUE(b.txdmasreq.read() && b.txdmabreq.read()) << "drained to the level";
        b.txdmaclr.write(true); // the DMA controller's clear holds them low
        b.wait_cycles(2);
        EXPECT_FALSE(b.txdmasreq.read() || b.txdmabreq.read());
        b.txdmaclr.write(false);
        b.wait_cycles(2);
        EXPECT_TRUE(b.txdmasreq.read());
        b.wr(reg::DMACR, 0);
        b.wait_idle();

        // Receive: single from the first character, burst at the level (4 with IFLS RX 1/8).
        b.wr(reg::IFLS, 0x02);
        b.wr(reg::DMACR, DMACR_RXDMAE);
        EXPECT_FALSE(b.rxdmasreq.read());
        b.inj.send("123");
        wait_sent(b, bit);
        EXPECT_TRUE(b.rxdmasreq.read());
        EXPECT_FALSE(b.rxdmabreq.read());
        b.inj.send("4");
        wait_sent(b, bit);
        EXPECT_TRUE(b.rxdmabreq.read());
        b.rxdmaclr.write(true);
        b.wait_cycles(2);
        EXPECT_FALSE(b.rxdmasreq.read() || b.rxdmabreq.read());
        b.rxdmaclr.write(false);
        b.wait_cycles(2);
        EXPECT_TRUE(b.rxdmasreq.read() && b.rxdmabreq.read());
        b.rd(reg::DR);
        EXPECT_FALSE(b.rxdmabreq.read()) << "below the level";
        // DMAONERR: the RX requests pause while the error interrupt is asserted.
        b.wr(reg::DMACR, DMACR_RXDMAE | DMACR_DMAONERR);
        b.wr(reg::IMSC, irq::FE);
        b.inj.send("e", sc_core::SC_ZERO_TIME, {sc_core::SC_ZERO_TIME, true, false});
        wait_sent(b, bit);
        EXPECT_TRUE(b.irq.read());
        EXPECT_FALSE(b.rxdmasreq.read());
        b.wr(reg::ICR, irq::FE);
        EXPECT_TRUE(b.rxdmasreq.read());
        // In character mode only the single requests are used.
        drain(b);
        b.wr(reg::LCR_H, 0x60);
        b.wr(reg::DMACR, DMACR_RXDMAE | DMACR_TXDMAE);
        EXPECT_TRUE(b.txdmasreq.read());
        EXPECT_FALSE(b.txdmabreq.read());
    });
}

TEST(Pl011Rx, ReceiverDisabledReceivesNothing) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x101); // RXE clear
        b.inj.send("nope");
        wait_sent(b, programmed_bit_s(24'000'000, 115200));
        EXPECT_TRUE(b.rd(reg::FR) & fr::RXFE);
    });
}

// RXD idle and the RX FIFO empty: nothing is evaluated, however long the wait. After a character, once
// the timeout has fired, the same.
TEST(Pl011Rx, AnIdleLineCostsNoEvaluation) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const std::uint64_t e0 = b.uart.edges_evaluated();
        b.wait_us(10'000);
        EXPECT_EQ(b.uart.edges_evaluated(), e0);
        b.inj.send("i");
        wait_sent(b, programmed_bit_s(24'000'000, 115200));
        b.wait_us(500); // the timeout fires
        const std::uint64_t e1 = b.uart.edges_evaluated();
        EXPECT_GT(e1, e0);
        EXPECT_LT(e1 - e0, 200u) << "a character costs a few evaluations per bit, not one per cycle";
        b.wait_us(10'000);
        EXPECT_EQ(b.uart.edges_evaluated(), e1);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('i'));
    });
}

// Debug transport sees the present: the receive timeout, fired while nothing polled, shows in a debug
// read of RIS (the line rose with it).
TEST(Pl011Rx, DebugReadShowsTheReceiveTimeoutInFastMode) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::IMSC, irq::RT);
        b.inj.send("q", sc_core::sc_time_stamp() + sc_time(5, sc_core::SC_US));
        wait_sent(b, bit);
        sc_core::wait(sc_time(40 * bit, SC_SEC)); // past the 32 bit periods of silence
        auto dbg_ris = [&] {
            std::uint32_t v = 0;
            tlm::tlm_generic_payload tx;
            tx.set_command(tlm::TLM_READ_COMMAND);
            tx.set_address(reg::RIS);
            tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
            tx.set_data_length(4);
            tx.set_streaming_width(4);
            EXPECT_EQ(b.socket->transport_dbg(tx), 4u);
            return v;
        };
        EXPECT_NE(dbg_ris() & irq::RT, 0u) << "RT fired 32 bit periods after the character";
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, irq::RT) << "and a bus read agrees";
        EXPECT_TRUE(b.irq.read());
    });
}

// RTRIS (TRM 3.3.11, note a): "the raw interrupt cannot be set unless the mask is set ... the same
// status can be read from UARTMIS and UARTRIS for the receive timeout interrupt". The mask enables the
// timeout: it counts its 32 bit periods from when RTIM is set, and clearing RTIM clears RTRIS.
TEST(Pl011Rx, ReceiveTimeoutRawStatusNeedsItsMask) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200), tick = bit / 16;
        b.wr(reg::IMSC, irq::RX); // RTIM clear
        b.inj.send("ab");
        wait_sent(b, bit);
        sc_core::wait(sc_time(100 * bit, SC_SEC)); // three times the timeout
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, 0u) << "RTRIS stays clear while RTIM is clear";
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, b.rd(reg::MIS) & irq::RT);
        EXPECT_FALSE(b.irq.read());
        // Setting RTIM starts the count: 32 bit periods later the timeout fires, in RIS and MIS alike.
        b.wr(reg::IMSC, irq::RX | irq::RT);
        const sc_time set = sc_core::sc_time_stamp();
        sc_core::wait(b.irq.posedge_event());
        const double t = (sc_core::sc_time_stamp() - set).to_seconds();
        EXPECT_GE(t, 32 * bit - tick);
        EXPECT_LE(t, 32 * bit + 2 * tick);
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, irq::RT);
        EXPECT_EQ(b.rd(reg::MIS) & irq::RT, irq::RT);
        // Clearing the mask clears the raw status with it.
        b.wr(reg::IMSC, irq::RX);
        EXPECT_EQ(b.rd(reg::RIS) & irq::RT, 0u);
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(text_of(drain(b)), "ab");
    });
}

// The RX interrupt follows the fill passing up through the trigger level (TRM 3.3.9), not the level
// itself. A FIFO already above the level when RXIM is set raises nothing however many characters follow,
// the stall Linux's pl011_enable_interrupts works around; its sequence (clear RX and RT, read DR until
// RXFE, then unmask) makes the next character to reach the level raise it.
TEST(Pl011Rx, RxInterruptStallsAboveTheLevelAndTheDriversDrainRecovers) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(921600);
        b.inj.set_format(921600, serial_format{});
        const double bit = programmed_bit_s(24'000'000, 921600);
        b.wr(reg::IFLS, 0x02); // RX level 1/8: 4 of 32
        b.wr(reg::IMSC, 0);
        b.inj.send("012345"); // above the level before anyone unmasks
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & irq::RX, irq::RX) << "passing through 4 raised it";
        b.wr(reg::ICR, irq::RX);
        b.wr(reg::IMSC, irq::RX);
        b.inj.send("67");
        wait_sent(b, bit);
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 8u);
        EXPECT_EQ(b.rd(reg::RIS) & irq::RX, 0u) << "no transition through the level: stuck off";
        EXPECT_FALSE(b.irq.read());
        b.rd(reg::DR); // 7 left: still above the level
        b.inj.send("8");
        wait_sent(b, bit);
        EXPECT_FALSE(b.irq.read()) << "7 to 8 does not pass through 4 either";
        // pl011_enable_interrupts: clear RX and RT, drain until RXFE, unmask RT and RX.
        b.wr(reg::ICR, irq::RX | irq::RT);
        EXPECT_EQ(text_of(drain(b)), "12345678");
        b.wr(reg::IMSC, irq::RX | irq::RT);
        b.inj.send("abc");
        wait_sent(b, bit);
        EXPECT_EQ(b.rd(reg::RIS) & irq::RX, 0u) << "below the level";
        b.inj.send("d");
        sc_core::wait(b.irq.posedge_event());
        EXPECT_EQ(b.rd(reg::MIS), irq::RX) << "the fourth character passes up through the level";
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 4u);
    });
}

// TRM 2.7: "All request signals are deasserted if the UART is disabled or the relevant DMA enable bit
// ... is cleared."
TEST(Pl011Rx, DmaRequestsAreDeassertedWhileTheUartIsDisabled) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x201); // UARTEN and RXE: the transmitter stays off, the TX FIFO only fills
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::IFLS, 0x02); // RX burst at 4
        b.inj.send("wxyz");
        wait_sent(b, bit);
        b.wr(reg::DMACR, DMACR_RXDMAE | DMACR_TXDMAE);
        EXPECT_TRUE(b.txdmasreq.read() && b.txdmabreq.read() && b.rxdmasreq.read() && b.rxdmabreq.read());
        b.wr(reg::CR, 0x200); // UARTEN clear: every request falls, whatever the FIFOs hold
        EXPECT_FALSE(b.txdmasreq.read() || b.txdmabreq.read() || b.rxdmasreq.read() || b.rxdmabreq.read());
        b.wr(reg::DR, 't', 1);
        EXPECT_FALSE(b.txdmasreq.read() || b.txdmabreq.read());
        b.wr(reg::CR, 0x201);
        EXPECT_TRUE(b.txdmasreq.read() && b.txdmabreq.read() && b.rxdmasreq.read() && b.rxdmabreq.read());
        b.wr(reg::DMACR, 0);
        EXPECT_FALSE(b.txdmasreq.read() || b.txdmabreq.read() || b.rxdmasreq.read() || b.rxdmabreq.read());
    });
}

// TRM 3.3.6, note: the divisor "not updated until transmission or reception of the current character is
// complete". Changed in the middle of a character being received, it applies from the next one.
TEST(Pl011Rx, ANewDivisorWaitsForTheCharacterBeingReceived) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double fast = programmed_bit_s(24'000'000, 115200), slow = programmed_bit_s(24'000'000, 57600);
        const sc_time start = sc_core::sc_time_stamp() + sc_time(10, sc_core::SC_US);
        b.inj.send("U", start);
        sc_core::wait(start + sc_time(3.3 * fast, SC_SEC) - sc_core::sc_time_stamp());
        const auto [ibrd, fbrd] = divisor(24'000'000, 57600);
        b.wr(reg::IBRD, ibrd);
        b.wr(reg::FBRD, fbrd);
        b.wr(reg::LCR_H, 0x70);
        wait_sent(b, fast);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('U')) << "received whole at the old rate";
        b.inj.set_format(57600, serial_format{});
        b.inj.send("s");
        wait_sent(b, slow);
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('s')) << "the next one at the new rate";
    });
}

// The generator is common to both directions, so the divisor waits until neither has a character in
// progress: A is being sent and a character being received when it is written; B starts as A ends,
// while the reception goes on, at the old rate; C, after B, at the new one.
TEST(Pl011Rx, ANewDivisorWaitsUntilNeitherDirectionHasACharacterInProgress) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double fast = programmed_bit_s(24'000'000, 115200), slow = programmed_bit_s(24'000'000, 57600);
        for (int i = 0; i < 3; ++i)
            b.wr(reg::DR, 0x55, 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        const sc_time a_start = b.txd_log.front().first;
        b.inj.send("r", a_start + sc_time(5 * fast, SC_SEC)); // received until about 14.6 bits into A
        sc_core::wait(a_start + sc_time(6.3 * fast, SC_SEC) - sc_core::sc_time_stamp());
        const auto [ibrd, fbrd] = divisor(24'000'000, 57600);
        b.wr(reg::IBRD, ibrd);
        b.wr(reg::FBRD, fbrd);
        b.wr(reg::LCR_H, 0x70);
        b.wait_idle();
        std::vector<double> t;
        for (const auto& e : b.txd_log)
            t.push_back(e.first.to_seconds());
        ASSERT_EQ(t.size(), 30u);
        for (std::size_t k = 1; k <= 20; ++k)
            EXPECT_NEAR(t[k] - t[0], k * fast, 2.0 / 24e6) << "A and B at the old rate, edge " << k;
        for (std::size_t k = 1; k < 10; ++k)
            EXPECT_NEAR(t[20 + k] - t[20], k * slow, 2.0 / 24e6) << "C at the new rate, edge " << k;
        EXPECT_EQ(b.rd(reg::DR), static_cast<std::uint32_t>('r'));
    });
}

namespace {
// RXD drawn cycle by cycle for a UART at 18.432 MHz and 115200 baud: IBRD 10, FBRD 0, so Baud16 enables
// fall every 10 cycles from the divisor's latch (cycle 14 of program_uart's set-up) and a bit is 160
// cycles. A frame's start edge is first seen by edge `fall`; the receiver sees RXD two edges later
// (the synchroniser) and starts on the next enable; bit b's readings are that enable's 7th, 8th and 9th
// enables plus 16 b. `level` gives the input level for each cycle from `fall` on.
constexpr std::uint64_t wave_hz = 18'432'000, wave_latch = 14, wave_b16 = 10, wave_bit = 160;
pl011_config wave_config() {
    pl011_config cfg;
    cfg.clock_hz = wave_hz;
    return cfg;
}
std::uint64_t wave_detect(std::uint64_t fall) {
    std::uint64_t e = wave_latch + wave_b16;
    while (e < fall + 2)
        e += wave_b16;
    return e;
}
// The input cycle whose level reading k (0..2) of bit b sees.
std::uint64_t wave_reading(std::uint64_t fall, unsigned b, unsigned k) {
    return wave_detect(fall) + b * wave_bit + (7 + k) * wave_b16 - 2;
}
void append_wave(std::vector<bus_op>& ops, std::uint64_t from, const std::vector<bool>& level) {
    bool now = true;
    for (std::size_t i = 0; i < level.size(); ++i)
        if (level[i] != now) {
            now = level[i];
            ops.push_back({from + i, now, 0, 0, 0, bus_op::pin_rxd});
        }
    if (!now) ops.push_back({from + level.size(), true, 0, 0, 0, bus_op::pin_rxd});
}
// One 8N1 frame of `bits` (start, 8 data, stop) from `fall`: a bit marked `away` has its level only
// around its three readings (a reading's width either side) and the other level in the rest of the bit;
// `glitch[b]` = k + 1 flips reading k's cycles (and no other reading's) of bit b.
std::vector<bool> frame_wave(std::uint64_t fall, const std::vector<bool>& bits, const std::vector<bool>& away,
                             const std::vector<unsigned>& glitch) {
    std::vector<bool> level(bits.size() * wave_bit + wave_bit, true);
    for (unsigned b = 0; b < bits.size(); ++b)
        for (std::uint64_t c = 0; c < wave_bit; ++c) {
            const std::uint64_t at = fall + b * wave_bit + c;
            bool v = bits[b];
            if (away[b] && (at + 5 < wave_reading(fall, b, 0) || at > wave_reading(fall, b, 2) + 5)) v = !v;
            if (glitch[b]) {
                const std::uint64_t r = wave_reading(fall, b, glitch[b] - 1);
                if (at + 4 >= r && at <= r + 4) v = !v;
            }
            level[b * wave_bit + c] = v;
        }
    return level;
}
} // namespace

// TRM 2.4.3: "For each sample of data, three readings are taken and the majority value is kept ... the
// middle sampling point is defined, and one sample is taken either side of it"; the start bit "is
// valid if UARTRXD is still LOW on the eighth cycle of Baud16"; data bits "are sampled on every 16th
// cycle of Baud16". One frame whose bits differ from their level away from their readings, or carry a
// glitch over one reading (the start bit's middle one, the stop bit's too), reads as the level that two
// readings of three saw: 0x55, no errors.
TEST(Pl011Rx, EachBitIsTheMajorityOfThreeReadingsAroundItsMiddle) {
    UARTVP_SIM_TEST();
    std::vector<bus_op> ops;
    program_uart(ops, 5, wave_hz, 115200, 0x70);
    const std::uint64_t fall = 1000;
    //                           start d0     d1     d2     d3     d4     d5     d6     d7     stop
    const std::vector<bool> bits{false, true, false, true, false, true, false, true, false, true};
    const std::vector<bool> away{false, true, true, false, false, false, false, false, false, false};
    const std::vector<unsigned> glitch{2, 0, 0, 2, 2, 1, 3, 0, 0, 2};
    append_wave(ops, fall, frame_wave(fall, bits, away, glitch));
    const std::uint64_t after = fall + 12 * wave_bit;
    ops.push_back({after, false, reg::DR, 4, 0});
    ops.push_back({after + 3, false, reg::RSR, 4, 0});
    ops.push_back({after + 6, false, reg::FR, 4, 0});
    const observed ref = run_reference(ops, 32, after + 100);
    tlm_bench b(wave_config(), ops);
    b.run_to(after + 100);
    ASSERT_EQ(b.ob.reads.size(), 3u);
    EXPECT_EQ(b.ob.reads[0], 0x55u) << "data 0x55, and no FE/PE/BE/OE";
    EXPECT_EQ(b.ob.reads[1], 0u) << "RSR";
    EXPECT_TRUE(b.ob.reads[2] & fr::RXFE) << "one character, no second one from a glitch";
    EXPECT_EQ(b.ob.reads, ref.reads) << "fast path against plain clocking";
}

// TRM 2.4.3: "The start bit is valid if UARTRXD is still LOW on the eighth cycle of Baud16, otherwise a
// false start bit is detected and it is ignored." A one-cycle LOW glitch on an enable is seen as a start
// bit and dropped at its readings; so is a LOW that lasts through the first reading only. A frame after
// them is received whole.
TEST(Pl011Rx, AGlitchIsAFalseStartBitAndIgnored) {
    UARTVP_SIM_TEST();
    std::vector<bus_op> ops;
    program_uart(ops, 5, wave_hz, 115200, 0x70);
    // One cycle LOW, seen by the receiver on an enable (cycle 1004).
    ops.push_back({1002, false, 0, 0, 0, bus_op::pin_rxd});
    ops.push_back({1003, true, 0, 0, 0, bus_op::pin_rxd});
    ops.push_back({1400, false, reg::FR, 4, 0});
    // LOW from 2000 until just after the first reading's cycle: two readings of three HIGH.
    const std::uint64_t fall2 = 2000;
    ops.push_back({fall2, false, 0, 0, 0, bus_op::pin_rxd});
    ops.push_back({wave_reading(fall2, 0, 0) + 3, true, 0, 0, 0, bus_op::pin_rxd});
    ops.push_back({fall2 + 2 * wave_bit, false, reg::FR, 4, 0});
    // 'A', plain.
    const std::uint64_t fall3 = 3000;
    const std::vector<bool> bits{false, true, false, false, false, false, false, true, false, true};
    append_wave(ops, fall3,
                frame_wave(fall3, bits, std::vector<bool>(10, false), std::vector<unsigned>(10, 0)));
    const std::uint64_t after = fall3 + 12 * wave_bit;
    ops.push_back({after, false, reg::DR, 4, 0});
    ops.push_back({after + 3, false, reg::FR, 4, 0});
    const observed ref = run_reference(ops, 32, after + 100);
    tlm_bench b(wave_config(), ops);
    b.run_to(after + 100);
    ASSERT_EQ(b.ob.reads.size(), 4u);
    EXPECT_TRUE(b.ob.reads[0] & fr::RXFE) << "the one-cycle glitch gave no character";
    EXPECT_TRUE(b.ob.reads[1] & fr::RXFE) << "LOW for one reading of three gave no character";
    EXPECT_EQ(b.ob.reads[2], static_cast<std::uint32_t>('A'));
    EXPECT_TRUE(b.ob.reads[3] & fr::RXFE);
    EXPECT_EQ(b.ob.reads, ref.reads) << "fast path against plain clocking";
}
