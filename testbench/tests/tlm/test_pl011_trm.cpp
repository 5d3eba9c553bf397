// SPDX-License-Identifier: Apache-2.0
// The PL011 against the TRM (DDI0183 r1p5), through the TLM wrapper: register reset values and IDs,
// the transmit path's flags and timing on TXD, frame formats, the IBRD/FBRD latch, access widths and
// bad accesses, reset in the middle of a character.
#include <set>

#include <gtest/gtest.h>

#include "pl011_bench.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::test;
using sc_core::SC_SEC;
using sc_core::sc_time;

namespace {

// Bit period the divisor programs, in seconds: 16 * (IBRD + FBRD/64) / UARTCLK.
double programmed_bit_s(std::uint64_t uartclk, std::uint64_t baud) {
    const auto [ibrd, fbrd] = divisor(uartclk, baud);
    return 16.0 * (ibrd + fbrd / 64.0) / static_cast<double>(uartclk);
}

std::vector<double> edge_times_s(const pl011_bench& b) {
    std::vector<double> t;
    for (const auto& e : b.txd_log)
        t.push_back(e.first.to_seconds());
    return t;
}

} // namespace

TEST(Pl011Trm, ResetValuesAndIdentification_Depth32) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        EXPECT_EQ(b.rd(reg::FR), 0x90u);  // TXFE, RXFE; modem inputs inactive
        EXPECT_EQ(b.rd(reg::CR), 0x300u); // TXE, RXE
        EXPECT_EQ(b.rd(reg::IFLS), 0x12u);
        for (auto r : {reg::RSR, reg::ILPR, reg::IBRD, reg::FBRD, reg::LCR_H, reg::IMSC, reg::RIS, reg::MIS,
                       reg::DMACR})
            EXPECT_EQ(b.rd(r), 0u) << "offset 0x" << std::hex << r;
        const std::uint32_t pid[] = {0x11, 0x10, 0x34, 0x00}, cid[] = {0x0D, 0xF0, 0x05, 0xB1};
        for (unsigned i = 0; i < 4; ++i) {
            EXPECT_EQ(b.rd(0xFE0 + 4 * i), pid[i]) << "PeriphID" << i;
            EXPECT_EQ(b.rd(0xFF0 + 4 * i), cid[i]) << "PCellID" << i;
        }
        EXPECT_TRUE(b.txd.read());
        EXPECT_FALSE(b.irq.read());
    });
}

TEST(Pl011Trm, PeriphId2SaysRevisionBelow3ForSixteenEntryFifos) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.fifo_depth = 16;
    run_bench(cfg, [](pl011_bench& b) {
        const std::uint32_t pid2 = b.rd(0xFE8);
        EXPECT_LT(pid2 >> 4, 3u); // Linux: revision < 3 means 16 entries
        EXPECT_EQ(pid2 & 0xF, 0x4u);
    });
}

TEST(Pl011Trm, FlagTransitionsOfOneCharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::DR, 'U', 1);
        // In the FIFO: not empty, busy.
        std::uint32_t f = b.rd(reg::FR);
        EXPECT_EQ(f & (fr::TXFE | fr::BUSY | fr::TXFF), fr::BUSY);
        // Wait for the start bit: the character left the FIFO for the shift register, TXFE set,
        // BUSY still set (it covers the shift register).
        while (b.txd_log.empty())
            b.wait_us(1);
        f = b.rd(reg::FR);
        EXPECT_EQ(f & (fr::TXFE | fr::BUSY), fr::TXFE | fr::BUSY);
        const sc_time start = b.txd_log.front().first;
        // Still busy during the stop bit ...
        sc_core::wait(start + sc_time(9.5 * bit, SC_SEC) - sc_core::sc_time_stamp());
        EXPECT_TRUE(b.rd(reg::FR) & fr::BUSY);
        EXPECT_TRUE(b.uart.busy.read());
        // ... and clear once the stop bit has left.
        sc_core::wait(sc_time(0.6 * bit, SC_SEC));
        EXPECT_FALSE(b.rd(reg::FR) & fr::BUSY);
        EXPECT_FALSE(b.uart.busy.read());
    });
}

TEST(Pl011Trm, BusyClearsExactlyAtTheEndOfTheLastStopBit) {
    UARTVP_SIM_TEST();
    std::vector<std::pair<sc_time, bool>> busy_log;
    run_bench(pl011_config{}, [&](pl011_bench& b) {
        b.setup(115200);
        b.wr(reg::DR, 0x00, 1);
        b.wr(reg::DR, 0xFF, 1);
        bool last = true;
        sc_time cleared;
        while (b.uart.busy.read()) {
            sc_core::wait(b.uart.busy.value_changed_event());
            last = b.uart.busy.read();
            cleared = sc_core::sc_time_stamp();
        }
        EXPECT_FALSE(last);
        // Two 10-bit frames from the first start bit; the divisor is 13 + 1/64, so 16 Baud16 periods
        // are 208 or 209 UARTCLK cycles: the end lies within a cycle or two of 20 ideal bit times.
        const double start = b.txd_log.front().first.to_seconds();
        const double ideal = start + 20 * programmed_bit_s(24'000'000, 115200);
        EXPECT_NEAR(cleared.to_seconds(), ideal, 2.0 / 24e6);
        // And TXD's last rising edge (into the stop bit of 0x00... the 0xFF frame has its only edge at the
        // start of its data) happened before BUSY cleared.
        EXPECT_LT(b.txd_log.back().first, cleared);
    });
}

TEST(Pl011Trm, BusyWhileTxFifoHoldsDataEvenWithUartDisabled) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x300); // UARTEN clear
        b.wr(reg::DR, 'A', 1);
        b.wait_us(500);
        EXPECT_EQ(b.rd(reg::FR) & (fr::BUSY | fr::TXFE), fr::BUSY);
        EXPECT_TRUE(b.txd_log.empty()) << "a disabled UART must not transmit";
        b.wr(reg::CR, 0x301); // enable: it goes out, then BUSY clears
        b.wait_idle();
        EXPECT_EQ(b.rd(reg::FR) & (fr::BUSY | fr::TXFE), fr::TXFE);
        EXPECT_FALSE(b.txd_log.empty());
    });
}

TEST(Pl011Trm, DisablingMidCharacterCompletesTheCharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::DR, 0x0F, 1);
        b.wr(reg::DR, 0xF0, 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        sc_core::wait(sc_time(3 * bit, SC_SEC));
        b.wr(reg::CR, 0x300); // disable in the middle of the first character
        b.wait_us(2000);
        const auto frames = decode_frames(b.txd_log, bit, 9);
        ASSERT_EQ(frames.size(), 1u) << "the first character completes, the second waits";
        EXPECT_EQ(frames[0].bits, (std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0, 1}));
        EXPECT_EQ(b.rd(reg::FR) & (fr::BUSY | fr::TXFE), fr::BUSY);
        EXPECT_TRUE(b.txd.read());
    });
}

template <unsigned depth> void txff_at_depth() {
    pl011_config cfg;
    cfg.fifo_depth = depth;
    run_bench(cfg, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x300); // FIFO on, UART disabled so nothing drains
        for (unsigned i = 0; i < depth - 1; ++i)
            b.wr(reg::DR, 'a' + (i % 26), 1);
        EXPECT_FALSE(b.rd(reg::FR) & fr::TXFF) << "one below the depth";
        EXPECT_EQ(b.uart.tx_fifo_level.read(), depth - 1);
        b.wr(reg::DR, '!', 1);
        EXPECT_TRUE(b.rd(reg::FR) & fr::TXFF) << "exactly at the depth";
        b.wr(reg::DR, '?', 1); // lost: the FIFO is full
        EXPECT_EQ(b.uart.tx_fifo_level.read(), depth);
        b.wr(reg::CR, 0x301);
        b.wait_idle();
        const auto frames = decode_frames(b.txd_log, programmed_bit_s(24'000'000, 115200), 9);
        ASSERT_EQ(frames.size(), depth);
        int last = 0;
        for (int k = 0; k < 8; ++k)
            last |= frames.back().bits[k] << k;
        EXPECT_EQ(last, '!');
    });
}

TEST(Pl011Trm, TxffSetExactlyAtDepth32AndOverflowingWriteIsLost) {
    UARTVP_SIM_TEST();
    txff_at_depth<32>();
}
TEST(Pl011Trm, TxffSetExactlyAtDepth16AndOverflowingWriteIsLost) {
    UARTVP_SIM_TEST();
    txff_at_depth<16>();
}

TEST(Pl011Trm, CharacterModeHoldsOneCharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x60, 0x300); // 8 bits, FEN=0, UART disabled
        b.wr(reg::DR, 'x', 1);
        EXPECT_EQ(b.rd(reg::FR) & (fr::TXFF | fr::TXFE | fr::BUSY), fr::TXFF | fr::BUSY);
        b.wr(reg::DR, 'y', 1); // the holding register is full: lost
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 1u);
        b.wr(reg::CR, 0x301);
        while (b.txd_log.empty())
            b.wait_us(1);
        // Moved to the shift register: the holding register is empty and can take the next one.
        EXPECT_EQ(b.rd(reg::FR) & (fr::TXFF | fr::TXFE), fr::TXFE);
        b.wr(reg::DR, 'z', 1);
        EXPECT_TRUE(b.rd(reg::FR) & fr::TXFF);
        b.wait_idle();
        const auto frames = decode_frames(b.txd_log, programmed_bit_s(24'000'000, 115200), 9);
        ASSERT_EQ(frames.size(), 2u);
        int c0 = 0, c1 = 0;
        for (int k = 0; k < 8; ++k) {
            c0 |= frames[0].bits[k] << k;
            c1 |= frames[1].bits[k] << k;
        }
        EXPECT_EQ(c0, 'x');
        EXPECT_EQ(c1, 'z');
    });
}

// Bit period measured on TXD: 0x55 gives an edge at every bit boundary; each edge must lie within two
// UARTCLK cycles of start + k * (16 * divisor / UARTCLK).
void check_bit_period(std::uint64_t uartclk, std::uint64_t baud) {
    pl011_config cfg;
    cfg.clock_hz = uartclk;
    run_bench(cfg, [=](pl011_bench& b) {
        b.setup(baud);
        for (int i = 0; i < 4; ++i)
            b.wr(reg::DR, 0x55, 1);
        b.wait_idle(1000);
        const std::vector<double> t = edge_times_s(b);
        ASSERT_EQ(t.size(), 4u * 10); // start, 8 alternating data bits, stop: an edge at every boundary
        const double bit = programmed_bit_s(uartclk, baud);
        for (std::size_t k = 0; k < t.size(); ++k)
            EXPECT_NEAR(t[k] - t[0], k * bit, 2.0 / uartclk) << "edge " << k;
        // The programmed rate differs from the requested one only by FBRD's rounding (half of 1/64).
        const double div = static_cast<double>(uartclk) / (16.0 * baud);
        EXPECT_NEAR(1.0 / bit, static_cast<double>(baud), baud * (0.5 / 64) / div);
    });
}

TEST(Pl011Trm, BitPeriodOnTxd_9600) {
    UARTVP_SIM_TEST();
    check_bit_period(24'000'000, 9600); // IBRD 156, FBRD 16
}
TEST(Pl011Trm, BitPeriodOnTxd_115200) {
    UARTVP_SIM_TEST();
    check_bit_period(24'000'000, 115200); // IBRD 13, FBRD 1
}
TEST(Pl011Trm, BitPeriodOnTxd_921600_Fractional) {
    UARTVP_SIM_TEST();
    check_bit_period(24'000'000, 921600); // IBRD 1, FBRD 40
}
TEST(Pl011Trm, BitPeriodOnTxd_38400_At7_3728MHz_WholeDivisor) {
    UARTVP_SIM_TEST();
    check_bit_period(7'372'800, 38400); // IBRD 12, FBRD 0
}

// Every frame format: 5..8 data bits, no/odd/even/stick parity, 1 or 2 stop bits.
TEST(Pl011Trm, EveryFrameFormat) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        const std::uint8_t data = 0xA7; // 1010 0111: parity differs between widths
        for (unsigned wlen = 0; wlen < 4; ++wlen)
            for (unsigned par = 0; par < 5; ++par) // none, odd, even, stick 1, stick 0
                for (unsigned stp2 = 0; stp2 < 2; ++stp2) {
                    const std::uint32_t lcr = (wlen << 5) | 0x10 | (stp2 << 3) | (par == 0 ? 0 : 0x2) |
                                              (par == 2 || par == 4 ? 0x4 : 0) | (par >= 3 ? 0x80 : 0);
                    b.wr(reg::LCR_H, lcr);
                    b.txd_log.clear();
                    b.wr(reg::DR, data, 1);
                    b.wr(reg::DR, data, 1); // back to back: the stop bits' length shows
                    b.wait_idle();
                    const unsigned n = 5 + wlen, np = par ? 1 : 0, ns = 1 + stp2;
                    const auto frames = decode_frames(b.txd_log, bit, n + np + ns);
                    ASSERT_EQ(frames.size(), 2u) << "lcr 0x" << std::hex << lcr;
                    const auto& f = frames[0];
                    unsigned ones = 0;
                    for (unsigned k = 0; k < n; ++k) {
                        EXPECT_EQ(f.bits[k], (data >> k) & 1) << "lcr 0x" << std::hex << lcr << " bit " << k;
                        ones += (data >> k) & 1;
                    }
                    if (par) {
                        const int want = par == 1 ? !(ones & 1) : par == 2 ? (ones & 1) : par == 3 ? 1 : 0;
                        EXPECT_EQ(f.bits[n], want) << "parity, lcr 0x" << std::hex << lcr;
                    }
                    for (unsigned k = 0; k < ns; ++k)
                        EXPECT_EQ(f.bits[n + np + k], 1) << "stop bit " << k;
                    // The second start bit follows the last stop bit immediately.
                    const double frame_s = (1 + n + np + ns) * bit;
                    EXPECT_NEAR((frames[1].start - f.start).to_seconds(), frame_s, 2.0 / 24e6)
                        << "lcr 0x" << std::hex << lcr;
                }
    });
}

TEST(Pl011Trm, DivisorTakesEffectOnlyWhenLcrHIsWritten) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        auto measure_bit = [&]() {
            b.txd_log.clear();
            b.wr(reg::DR, 0x55, 1);
            b.wait_idle();
            return (b.txd_log[8].first - b.txd_log[0].first).to_seconds() / 8;
        };
        const double fast = measure_bit();
        const auto [ibrd, fbrd] = divisor(24'000'000, 9600);
        b.wr(reg::IBRD, ibrd);
        b.wr(reg::FBRD, fbrd);
        EXPECT_EQ(b.rd(reg::IBRD), ibrd); // reads back what was written...
        EXPECT_NEAR(measure_bit(), fast, 1e-9) << "...but the old divisor stays in force";
        b.wr(reg::LCR_H, 0x70);
        EXPECT_NEAR(measure_bit(), programmed_bit_s(24'000'000, 9600), 2.0 / 24e6);
    });
}

TEST(Pl011Trm, ByteHalfwordAndWordAccessesWithByteEnables) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        // CR = 0x0300: lane 0 reads 0x00, lane 1 reads 0x03.
        EXPECT_EQ(b.rd(reg::CR, 1), 0x00u);
        EXPECT_EQ(b.rd(reg::CR + 1, 1), 0x03u);
        EXPECT_EQ(b.rd(reg::CR, 2), 0x0300u);
        EXPECT_EQ(b.rd(reg::CR + 2, 2), 0x0000u);
        EXPECT_EQ(b.rd(reg::CR, 4), 0x0300u);
        // A byte write touches only its lane.
        b.wr(reg::CR, 0x01, 1);
        EXPECT_EQ(b.rd(reg::CR), 0x0301u);
        b.wr(reg::CR + 1, 0x01, 1);
        EXPECT_EQ(b.rd(reg::CR), 0x0101u);
        b.wr(reg::CR, 0x0300, 2);
        EXPECT_EQ(b.rd(reg::CR), 0x0300u);
        // A word write with byte enables on lane 1 only.
        std::uint32_t v = 0x00000703;
        const std::vector<unsigned char> be{0x00, 0xFF, 0x00, 0x00};
        EXPECT_EQ(b.access(true, reg::IMSC, 4, v, &be), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(b.rd(reg::IMSC), 0x0700u);
        // A word read with lane 0 disabled leaves that byte of the buffer alone.
        std::uint32_t r = 0xEEEEEEEE;
        const std::vector<unsigned char> be2{0x00, 0xFF, 0xFF, 0xFF};
        EXPECT_EQ(b.access(false, reg::CR, 4, r, &be2), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(r, 0x000003EEu);
        // DR takes 8-bit, 16-bit and 32-bit stores alike (Linux uses all three).
        b.setup(115200, 0x70, 0x300);
        b.wr(reg::DR, 'a', 1);
        b.wr(reg::DR, 'b', 2);
        b.wr(reg::DR, 'c', 4);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 3u);
    });
}

TEST(Pl011Trm, BadAccessesGetErrorResponsesAndChangeNothing) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        std::uint32_t v = 0xFF;
        EXPECT_EQ(b.access(false, 0x1000, 4, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "outside the map";
        EXPECT_EQ(b.access(true, 0x008, 4, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "reserved hole";
        EXPECT_EQ(b.access(false, 0x04C, 4, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "reserved hole";
        EXPECT_EQ(b.access(true, reg::FR, 4, v), tlm::TLM_COMMAND_ERROR_RESPONSE) << "FR is read-only";
        EXPECT_EQ(b.access(true, 0xFE0, 4, v), tlm::TLM_COMMAND_ERROR_RESPONSE) << "PeriphID is read-only";
        EXPECT_EQ(b.access(false, reg::ICR, 4, v), tlm::TLM_COMMAND_ERROR_RESPONSE) << "ICR is write-only";
        EXPECT_EQ(b.access(false, reg::CR + 1, 2, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "misaligned";
        EXPECT_EQ(b.access(false, reg::CR, 3, v), tlm::TLM_BURST_ERROR_RESPONSE) << "3 bytes";
        std::uint64_t big = 0;
        tlm::tlm_generic_payload tx;
        tx.set_command(tlm::TLM_READ_COMMAND);
        tx.set_address(reg::CR);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&big));
        tx.set_data_length(8);
        tx.set_streaming_width(8);
        sc_time d = sc_core::SC_ZERO_TIME;
        b.socket->b_transport(tx, d);
        EXPECT_EQ(tx.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE) << "8 bytes";
        tx.set_data_length(4);
        tx.set_streaming_width(1);
        b.socket->b_transport(tx, d);
        EXPECT_EQ(tx.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE) << "streaming";
        tx.set_streaming_width(4);
        unsigned char dummy = 0xFF;
        tx.set_byte_enable_ptr(&dummy);
        tx.set_byte_enable_length(0);
        b.socket->b_transport(tx, d);
        EXPECT_EQ(tx.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE) << "empty byte enables";
        // Nothing changed.
        EXPECT_EQ(b.rd(reg::FR), 0x90u);
        EXPECT_EQ(b.rd(reg::CR), 0x300u);
        EXPECT_EQ(b.rd(reg::IMSC), 0u);
    });
}

TEST(Pl011Trm, DebugTransportReadsWithoutSideEffects) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x300);
        b.wr(reg::DR, 'q', 1);
        const std::uint64_t cycle = b.uart.cycle();
        auto dbg = [&](bool write, std::uint64_t off, unsigned len, std::uint32_t& v) {
            tlm::tlm_generic_payload tx;
            tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            tx.set_address(off);
            tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
            tx.set_data_length(len);
            tx.set_streaming_width(len);
            return b.socket->transport_dbg(tx);
        };
        std::uint32_t v = 0;
        EXPECT_EQ(dbg(false, reg::FR, 4, v), 4u);
        EXPECT_EQ(v, 0x98u & ~0x80u); // BUSY, RXFE; TXFE clear
        v = 0;
        EXPECT_EQ(dbg(false, reg::CR + 1, 1, v), 1u);
        EXPECT_EQ(v, 0x03u);
        v = 0;
        EXPECT_EQ(dbg(false, reg::DR, 4, v), 4u); // reading DR does not pop anything
        std::uint32_t w = 'z';
        EXPECT_EQ(dbg(true, reg::DR, 1, w), 0u) << "debug writes are refused";
        EXPECT_EQ(dbg(false, 0x1000, 4, v), 0u);
        EXPECT_EQ(b.uart.cycle(), cycle) << "no edge was taken";
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 1u);
    });
}

TEST(Pl011Trm, ResetInTheMiddleOfACharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::DR, 0x00, 1); // a long low stretch
        b.wr(reg::DR, 'B', 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        sc_core::wait(sc_time(4.5 * bit, SC_SEC));
        ASSERT_FALSE(b.txd.read());
        const sc_time asserted = sc_core::sc_time_stamp();
        b.nreset.write(false);
        b.wait_cycles(3);
        b.nreset.write(true);
        b.wait_cycles(3);
        // TXD went high at the first edge after reset was asserted.
        ASSERT_GE(b.txd_log.size(), 2u);
        EXPECT_TRUE(b.txd_log.back().second);
        EXPECT_EQ(b.txd_log.back().first,
                  b.uart.clock().time_of(b.uart.clock().edge_at_or_before(asserted) + 1));
        // Registers and FIFO are back to their reset state; nothing more is sent.
        EXPECT_EQ(b.rd(reg::FR), 0x90u);
        EXPECT_EQ(b.rd(reg::CR), 0x300u);
        EXPECT_EQ(b.rd(reg::IBRD), 0u);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 0u);
        const auto n = b.txd_log.size();
        b.wait_us(500);
        EXPECT_EQ(b.txd_log.size(), n);
    });
}

TEST(Pl011Trm, BreakHoldsTxdLowAfterTheCurrentCharacter) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.wr(reg::DR, 0xFF, 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        const sc_time start = b.txd_log.front().first;
        b.wr(reg::LCR_H, 0x71); // BRK during the character
        sc_core::wait(sc_time(20 * bit, SC_SEC));
        // The character finished (its stop bit high for a bit time) before the line went low.
        ASSERT_GE(b.txd_log.size(), 3u);
        EXPECT_NEAR((b.txd_log[2].first - start).to_seconds(), 10 * bit, 2.0 / 24e6);
        EXPECT_FALSE(b.txd.read());
        b.wr(reg::LCR_H, 0x70);
        b.wait_cycles(2);
        EXPECT_TRUE(b.txd.read());
    });
}

TEST(Pl011Trm, TxInterruptOnPassingDownThroughTheTriggerLevel) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200, 0x70, 0x300);
        b.wr(reg::IMSC, 1u << 5); // TXIM
        b.wr(reg::IFLS, 0x02);    // TX level 1/2: 16 of 32
        // Empty FIFO after reset: at or below the level, but no transition, so no interrupt.
        EXPECT_EQ(b.rd(reg::RIS) & (1u << 5), 0u);
        EXPECT_FALSE(b.irq.read());
        for (int i = 0; i < 20; ++i)
            b.wr(reg::DR, 'a' + i, 1);
        b.wr(reg::CR, 0x301);
        // It fires when the level drops from 17 to 16.
        while (!b.irq.read() && b.uart.tx_fifo_level.read() > 0)
            sc_core::wait(b.irq.value_changed_event() | b.uart.tx_fifo_level.value_changed_event());
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 16u);
        EXPECT_EQ(b.rd(reg::MIS), 1u << 5);
        b.wr(reg::ICR, 1u << 5);
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.rd(reg::RIS) & (1u << 5), 0u);
        b.wait_idle();
        EXPECT_FALSE(b.irq.read()) << "draining further does not pass through the level again";
        // Masked: RIS sets, MIS and the line stay low.
        b.wr(reg::IMSC, 0);
        b.wr(reg::CR, 0x300);
        for (int i = 0; i < 17; ++i)
            b.wr(reg::DR, 'a', 1);
        b.wr(reg::CR, 0x301);
        b.wait_idle();
        EXPECT_NE(b.rd(reg::RIS) & (1u << 5), 0u);
        EXPECT_EQ(b.rd(reg::MIS), 0u);
        EXPECT_FALSE(b.irq.read());
        // Writing above the level clears it.
        b.wr(reg::CR, 0x300);
        for (int i = 0; i < 17; ++i)
            b.wr(reg::DR, 'a', 1);
        EXPECT_EQ(b.rd(reg::RIS) & (1u << 5), 0u);
    });
}

TEST(Pl011Trm, CtsFlowControlHoldsTheTransmitterBetweenCharacters) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.setup(115200, 0x70, 0x8301); // CTSEN
        b.ncts.write(true);            // CTS deasserted
        b.wr(reg::DR, 'a', 1);
        sc_core::wait(sc_time(30 * bit, SC_SEC));
        EXPECT_TRUE(b.txd_log.empty());
        EXPECT_FALSE(b.rd(reg::FR) & fr::CTS);
        b.ncts.write(false);
        b.wr(reg::DR, 'b', 1);
        sc_core::wait(sc_time(5 * bit, SC_SEC)); // in the middle of 'a'
        EXPECT_TRUE(b.rd(reg::FR) & fr::CTS);
        b.ncts.write(true); // 'a' completes, 'b' waits
        sc_core::wait(sc_time(30 * bit, SC_SEC));
        EXPECT_EQ(decode_frames(b.txd_log, bit, 9).size(), 1u);
        b.ncts.write(false);
        b.wait_idle();
        EXPECT_EQ(decode_frames(b.txd_log, bit, 9).size(), 2u);
    });
}

// The UARTCR note's programming sequence: "3. Flush the transmit FIFO by setting the FEN bit to 0". The
// character already being shifted out completes; the receive FIFO, which the TRM does not flush, keeps
// its characters and reads as a holding register (2.4.3: "the FIFOs are not physically disabled, but
// the flags are manipulated to give the illusion of a 1-byte register").
TEST(Pl011Trm, ClearingFenFlushesTheTransmitFifoNotTheReceiveFifo) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double bit = programmed_bit_s(24'000'000, 115200);
        b.inj.send("rx");
        while (!b.inj.idle())
            sc_core::wait(b.inj.done_event());
        b.wait_us(20);
        ASSERT_EQ(b.uart.rx_fifo_level.read(), 2u);
        for (char c : std::string("01234"))
            b.wr(reg::DR, c, 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        b.wr(reg::CR, 0x300);   // 1. disable the UART
        b.wr(reg::LCR_H, 0x60); // 3. flush the transmit FIFO
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 0u);
        EXPECT_EQ(b.rd(reg::FR) & (fr::TXFE | fr::BUSY | fr::RXFF | fr::RXFE), fr::TXFE | fr::BUSY | fr::RXFF)
            << "the character on the line still counts as busy; the RX FIFO holds its two characters";
        b.wait_idle();
        const auto frames = decode_frames(b.txd_log, bit, 9);
        ASSERT_EQ(frames.size(), 1u) << "only the character in the shift register went out";
        EXPECT_EQ(frames[0].bits, (std::vector<int>{0, 0, 0, 0, 1, 1, 0, 0, 1})); // '0'
        EXPECT_EQ(b.uart.rx_fifo_level.read(), 2u);
        EXPECT_EQ(b.rd(reg::DR) & 0xFF, static_cast<std::uint32_t>('r'));
        EXPECT_EQ(b.rd(reg::DR) & 0xFF, static_cast<std::uint32_t>('x'));
        EXPECT_TRUE(b.rd(reg::FR) & fr::RXFE);
        // FEN already 0: writing it 0 again flushes nothing.
        b.wr(reg::DR, 'h', 1);
        b.wr(reg::LCR_H, 0x60);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 1u);
        // Setting FEN keeps what the holding register has.
        b.wr(reg::LCR_H, 0x70);
        EXPECT_EQ(b.uart.tx_fifo_level.read(), 1u);
    });
}

// TRM 2.2.3: "The baud rate generator contains free-running counters that generate the internal x16
// clocks, Baud16 ...". It (re)starts where the divisor is latched: enable j falls IBRD * j + FBRD * (j-1)
// / 64 (rounded down) cycles later. A character written to an idle UART starts on the next enable, so its
// start bit's delay after the write follows the generator's phase.
TEST(Pl011Trm, TheBaudGeneratorRunsFreeAndAnIdleUartStartsOnItsNextEnable) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        const auto [ibrd, fbrd] = divisor(24'000'000, 115200); // 13 + 1/64: a carry every 64 enables
        b.wr(reg::IBRD, ibrd);
        b.wr(reg::FBRD, fbrd);
        b.wr(reg::LCR_H, 0x70);
        const std::uint64_t latch = b.now_cycle();
        b.wr(reg::CR, 0x301);
        auto enable = [&](std::uint64_t j) { return latch + j * ibrd + (j - 1) * fbrd / 64; };
        std::set<std::uint64_t> delays;
        for (unsigned i = 0; i < 24; ++i) {
            b.wait_cycles(1000 + 7 * i); // idle: a different phase each time
            b.txd_log.clear();
            b.wr(reg::DR, 0xFF, 1);
            const std::uint64_t written = b.now_cycle();
            std::uint64_t j = 1;
            while (enable(j) <= written)
                ++j;
            while (b.txd_log.empty())
                b.wait_us(1);
            const std::uint64_t start = b.uart.clock().edge_at_or_after(b.txd_log.front().first);
            EXPECT_EQ(start, enable(j)) << "character " << i << " written on cycle " << written;
            delays.insert(start - written);
            b.wait_idle();
        }
        EXPECT_GT(delays.size(), 6u) << "the start bit's delay follows the generator's phase";
    });
}

// TRM 3.3.6, note: "The contents of the UARTIBRD and UARTFBRD registers are not updated until
// transmission or reception of the current character is complete." A divisor latched by an LCR_H write
// in the middle of a character takes effect after its stop bit: the next character goes at the new rate.
TEST(Pl011Trm, ANewDivisorWaitsForTheCharacterBeingSent) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.setup(115200);
        const double fast = programmed_bit_s(24'000'000, 115200), slow = programmed_bit_s(24'000'000, 57600);
        b.wr(reg::DR, 0x55, 1); // an edge at every bit boundary
        b.wr(reg::DR, 0x55, 1);
        while (b.txd_log.empty())
            b.wait_us(1);
        sc_core::wait(sc_time(3.3 * fast, SC_SEC));
        const auto [ibrd, fbrd] = divisor(24'000'000, 57600);
        b.wr(reg::IBRD, ibrd);
        b.wr(reg::FBRD, fbrd);
        b.wr(reg::LCR_H, 0x70);
        b.wait_idle();
        const std::vector<double> t = edge_times_s(b);
        ASSERT_EQ(t.size(), 20u);
        for (std::size_t k = 1; k < 10; ++k)
            EXPECT_NEAR(t[k] - t[0], k * fast, 2.0 / 24e6) << "first character, edge " << k;
        EXPECT_NEAR(t[10] - t[0], 10 * fast, 2.0 / 24e6) << "its stop bit at the old rate";
        for (std::size_t k = 1; k < 10; ++k)
            EXPECT_NEAR(t[10 + k] - t[10], k * slow, 2.0 / 24e6) << "second character, edge " << k;
    });
}

// The largest divisor, IBRD 0xFFFF with FBRD 63 (3.3.6: IBRD is 16 bits): a Baud16 period of 65535
// cycles, 65536 when the accumulator carries (63 periods in 64), so a bit lasts 16 * 65535 cycles plus
// its carries. FR is polled 1.7 ms apart, so that accesses land anywhere inside a period.
TEST(Pl011Trm, TheLargestDivisorGivesBitsOfSixteenPeriodsOfIbrdOrIbrdPlusOneCycles) {
    UARTVP_SIM_TEST();
    run_bench(pl011_config{}, [](pl011_bench& b) {
        b.wr(reg::IBRD, 0xFFFF);
        b.wr(reg::FBRD, 63);
        b.wr(reg::LCR_H, 0x70);
        b.wr(reg::CR, 0x301);
        EXPECT_EQ(b.rd(reg::IBRD), 0xFFFFu);
        b.wr(reg::DR, 0x55, 1); // an edge at every bit boundary
        unsigned polls = 0;
        while ((b.rd(reg::FR) & fr::BUSY) && polls < 1000) {
            b.wait_us(1700);
            ++polls;
        }
        EXPECT_GT(polls, 200u); // 10 bits of 43.7 ms
        EXPECT_EQ(b.rd(reg::FR) & fr::BUSY, 0u);
        const std::vector<double> t = edge_times_s(b);
        ASSERT_EQ(t.size(), 10u);
        for (std::size_t k = 1; k < t.size(); ++k) {
            const double cycles = (t[k] - t[k - 1]) * 24e6;
            EXPECT_GE(cycles, 16 * 65535.0 + 15 - 0.5) << "bit " << k - 1;
            EXPECT_LE(cycles, 16 * 65536.0 + 0.5) << "bit " << k - 1;
        }
    });
}

// Every TX FIFO entry carries bit 7 (the top data bit) both ways: twice depth + 1 characters written at
// once, the first into the shift register and the rest filling the FIFO (TXFF), with bit 7 set, then
// clear; all sent as written.
void top_bit_through_every_entry(unsigned depth) {
    pl011_config cfg;
    cfg.fifo_depth = depth;
    run_bench(cfg, [depth](pl011_bench& b) {
        b.setup(115200);
        for (std::uint32_t top : {0x80u, 0x00u}) {
            for (std::uint32_t i = 0; i <= depth; ++i)
                b.wr(reg::DR, top | i, 1);
            EXPECT_TRUE(b.rd(reg::FR) & fr::TXFF);
            b.wait_idle();
        }
        const auto frames = decode_frames(b.txd_log, programmed_bit_s(24'000'000, 115200), 9);
        ASSERT_EQ(frames.size(), 2 * (depth + 1));
        for (std::uint32_t i = 0; i < frames.size(); ++i) {
            unsigned v = 0;
            for (unsigned k = 0; k < 8; ++k)
                v |= unsigned(frames[i].bits[k]) << k;
            EXPECT_EQ(v, (i <= depth ? 0x80 : 0x00) | i % (depth + 1)) << "character " << i;
            EXPECT_EQ(frames[i].bits[8], 1) << "stop bit of character " << i;
        }
    });
}
TEST(Pl011Trm, EveryTxFifoEntryCarriesTheTopDataBitBothWays_Depth32) {
    UARTVP_SIM_TEST();
    top_bit_through_every_entry(32);
}
TEST(Pl011Trm, EveryTxFifoEntryCarriesTheTopDataBitBothWays_Depth16) {
    UARTVP_SIM_TEST();
    top_bit_through_every_entry(16);
}
