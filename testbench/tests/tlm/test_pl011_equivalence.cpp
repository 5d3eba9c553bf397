// SPDX-License-Identifier: Apache-2.0
// The wrapper's skipping of UARTCLK cycles (idle sleep, Baud16 fast-forward, waking only where an
// output can change) against plain cycle-by-cycle clocking of the same RTL: every TXD/IRQ/nRTS edge,
// every DMA request, flag and FIFO-level change and every value read must fall on the same cycle, with
// both directions at work (RXD driven at, and a few percent off, the programmed rate).
#include <algorithm>
#include <cstdio>
#include <deque>
#include <set>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/line_monitor.h>
#include <uartvp/read_promise.h>
#include <uartvp/rx_injector.h>

#include "pl011_harness.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::test;

namespace {

// How a script leans: most of its time in loopback, or in character mode.
struct script_mix {
    bool loopback = false;
    bool char_mode = false;
};

// RXD traffic for cycles [from, to): bursts of characters at the programmed rate or a few percent off
// (random format, sometimes a bad stop bit), breaks, glitches shorter than half a bit. Returns the edges
// as pin ops (level in `write`), in order.
std::vector<bus_op> random_rxd(std::mt19937& rng, std::uint64_t from, std::uint64_t to, double bit_cycles) {
    auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    std::vector<bus_op> e;
    bool level = true;
    auto drive = [&](std::uint64_t c, bool v) {
        if (v == level) return;
        if (!e.empty() && e.back().cycle >= c) c = e.back().cycle + 1;
        e.push_back({c, v, 0, 0, 0, bus_op::pin_rxd});
        level = v;
    };
    std::uint64_t t = from + static_cast<std::uint64_t>(pick(40) * bit_cycles);
    while (t < to) {
        const unsigned k = pick(100);
        if (k < 70) {
            // A burst of characters, back to back or with gaps, at a rate up to 4.5 % off.
            const double errs[] = {0, 0, 0, 0.02, -0.02, 0.035, -0.035, 0.045, -0.045};
            const double bit = bit_cycles * (1 + errs[pick(9)]);
            const unsigned n = 1 + (pick(3) == 0 ? pick(40) : pick(6));
            const unsigned wlen = pick(3) ? 8 : 5 + pick(4), par = pick(3) ? 0 : 1 + pick(4),
                           stp = 1 + pick(2);
            for (unsigned j = 0; j < n && t < to; ++j) {
                const unsigned data = pick(256) & (pick(8) == 0 ? 0 : 0xFF); // some all-zero characters
                const bool bad_stop = pick(12) == 0;
                std::vector<bool> bits{false};
                unsigned ones = 0;
                for (unsigned i = 0; i < wlen; ++i) {
                    bits.push_back((data >> i) & 1);
                    ones += (data >> i) & 1;
                }
                if (par) bits.push_back(par == 1 ? !(ones & 1) : par == 2 ? (ones & 1) : par == 3);
                for (unsigned i = 0; i < stp; ++i)
                    bits.push_back(!bad_stop);
                for (std::size_t i = 0; i < bits.size(); ++i)
                    drive(t + static_cast<std::uint64_t>(i * bit + 0.5), bits[i]);
                t += static_cast<std::uint64_t>(bits.size() * bit + 0.5);
                if (bad_stop) t += static_cast<std::uint64_t>(bit); // mark before the next start bit
                drive(t, true);
                if (pick(3) == 0) t += 1 + pick(static_cast<unsigned>(3 * bit));
            }
        } else if (k < 80) {
            // A break: low for 12 to 40 bit periods.
            drive(t, false);
            t += static_cast<std::uint64_t>((12 + pick(29)) * bit_cycles);
            drive(t, true);
            t += static_cast<std::uint64_t>(bit_cycles);
        } else {
            // A glitch: low for a cycle up to half a bit.
            drive(t, false);
            t += 1 + pick(static_cast<unsigned>(bit_cycles / 2));
            drive(t, true);
        }
        t += 1 + static_cast<std::uint64_t>(pick(4) == 0 ? pick(static_cast<unsigned>(60 * bit_cycles))
                                                         : pick(static_cast<unsigned>(4 * bit_cycles)));
    }
    return e;
}

// A random but reproducible script: bursts of DR writes, FR polls at gaps from one cycle to many
// characters, DR reads (one or a drain of many), RSR reads and ECR writes, format changes (latched with
// the divisor), enable, loopback and flow-control changes, BRK, interrupt and DMA registers, modem input
// and DMA clear changes, resets; and RXD traffic throughout.
std::vector<bus_op> random_script(std::uint64_t uartclk, std::uint64_t baud, unsigned n, std::uint32_t seed,
                                  std::uint64_t& end, script_mix mix = {}) {
    std::mt19937 rng(seed);
    auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    std::vector<bus_op> ops;
    const std::uint32_t lcr0 = mix.char_mode ? 0x60 : 0x70;
    std::uint64_t c = program_uart(ops, 5, uartclk, baud, lcr0);
    const std::uint64_t bit = uartclk / baud;
    const auto [ibrd, fbrd] = divisor(uartclk, baud);
    for (unsigned i = 0; i < n; ++i) {
        // Gaps: back to back, within a bit, within a character, or across several characters.
        const unsigned g = pick(4);
        c += 1 + (g == 0   ? 0
                  : g == 1 ? pick(static_cast<unsigned>(bit))
                  : g == 2 ? pick(static_cast<unsigned>(12 * bit))
                           : pick(static_cast<unsigned>(60 * bit)));
        const unsigned k = pick(100);
        if (k < 30) {
            ops.push_back({c, true, reg::DR, 1, 0x20 + pick(0x5F)});
        } else if (k < 50) {
            ops.push_back({c, false, reg::FR, 4, 0});
        } else if (k < 58) {
            // DR reads: one, or a drain of up to 40 (an empty FIFO reads 0)
            const unsigned m = pick(3) == 0 ? 1 + pick(40) : 1;
            for (unsigned j = 0; j < m; ++j)
                ops.push_back(
                    {j ? c += 1 + pick(static_cast<unsigned>(bit)) : c, false, reg::DR, 2u << pick(2), 0});
        } else if (k < 61) {
            ops.push_back({c, pick(3) == 0, reg::RSR, 4, 0}); // a write is ECR
        } else if (k < 65) {
            // new frame format: WLEN, PEN, EPS, STP2, SPS, FEN; now and then another divisor (latched
            // once no character is in progress: the divider restarts there)
            const bool fifo = mix.char_mode ? pick(4) == 0 : pick(4) != 0;
            const std::uint32_t lcr = (pick(4) << 5) | (pick(2) << 1) | (pick(2) << 2) | (pick(2) << 3) |
                                      (fifo ? 0x10 : 0) | (pick(4) == 0 ? 0x80 : 0);
            const bool other = pick(4) == 0;
            ops.push_back({c, true, reg::IBRD, 4, other ? ibrd + ibrd / 4 + pick(2) : ibrd});
            ops.push_back({c += 1, true, reg::FBRD, 4, other ? pick(64) : fbrd});
            ops.push_back({c += 1, true, reg::LCR_H, 1, lcr});
        } else if (k < 71) {
            // UARTEN/TXE/RXE, LBE (0x80), RTS..OUT2 (0x3C00), RTSEN (0x4000), CTSEN (0x8000)
            const std::uint32_t cr[] = {0x301, 0x301, 0x300, 0x201, 0x101, 0x8301, 0x4301, 0xC301, 0x3F01};
            std::uint32_t v = cr[pick(9)];
            if (mix.loopback ? pick(4) != 0 : pick(5) == 0) v |= 0x80;
            ops.push_back({c, true, reg::CR, 2, v});
        } else if (k < 74) {
            const bus_op::kind_t pins[] = {bus_op::pin_ncts, bus_op::pin_ndsr, bus_op::pin_ndcd,
                                           bus_op::pin_nri};
            ops.push_back({c, pick(2) == 0, 0, 0, 0, pins[pick(4)]});
        } else if (k < 75) {
            ops.push_back({c, pick(2) == 0, 0, 0, 0, pick(2) ? bus_op::pin_txdmaclr : bus_op::pin_rxdmaclr});
        } else if (k == 75 && pick(3) == 0) {
            // reset pulse, possibly in the middle of a character; then set the UART up again
            ops.push_back({c, false, 0, 0, 0, bus_op::pin_nreset});
            ops.push_back({c += 1 + pick(40), true, 0, 0, 0, bus_op::pin_nreset});
            c = program_uart(ops, c, uartclk, baud, lcr0);
        } else if (k < 77) {
            ops.push_back({c, true, reg::LCR_H, 4, lcr0 | 1}); // BRK
            ops.push_back({c += 1 + pick(static_cast<unsigned>(20 * bit)), true, reg::LCR_H, 4, lcr0});
        } else if (k < 86) {
            const std::uint32_t off[] = {reg::IMSC, reg::IMSC, reg::ICR, reg::ICR, reg::IFLS, reg::DMACR};
            ops.push_back({c, true, off[pick(6)], 4, pick(2048)});
        } else {
            const std::uint32_t off[] = {reg::RIS,   reg::MIS,  reg::RSR,  reg::CR,
                                         reg::LCR_H, reg::IBRD, reg::DMACR};
            ops.push_back({c, false, off[pick(7)], 4, 0});
        }
    }
    // Re-enable (loopback off) and let everything drain.
    ops.push_back({c += 2, true, 0, 0, 0, bus_op::pin_ncts});
    ops.push_back({c += 2, true, reg::IBRD, 4, ibrd});
    ops.push_back({c += 2, true, reg::FBRD, 4, fbrd});
    ops.push_back({c += 2, true, reg::LCR_H, 4, 0x70});
    ops.push_back({c += 2, true, reg::CR, 4, 0x301});
    end = c + 40 * 12 * 16 * (ibrd + 1);

    // RXD throughout. A bus access never shares its edge with an input change (the initiator would
    // issue the access before the signal updates); the accesses keep their order.
    const double bit_cycles = 16.0 * (ibrd + fbrd / 64.0);
    const std::vector<bus_op> rx = random_rxd(rng, 20, c, bit_cycles);
    std::set<std::uint64_t> rx_cycles;
    for (const bus_op& e : rx)
        rx_cycles.insert(e.cycle);
    std::uint64_t last = 0;
    for (bus_op& op : ops) {
        if (op.cycle <= last) op.cycle = last + 1;
        while (op.kind == bus_op::bus && rx_cycles.count(op.cycle))
            ++op.cycle;
        last = op.cycle;
    }
    end = std::max(end, last + 40 * 12 * 16 * (ibrd + 1));
    ops.insert(ops.end(), rx.begin(), rx.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const bus_op& a, const bus_op& b) { return a.cycle < b.cycle; });
    return ops;
}

// RXD on the pin, or as characters (pl011::rx_line()) reported at their first edge or ahead of it.
enum class rx_input { pin, chars, chars_ahead };

void check_equivalence(const pl011_config& cfg, std::uint64_t baud, unsigned n, std::uint32_t seed,
                       bool expect_skipping = true, script_mix mix = {}, rx_input rx = rx_input::pin,
                       bool issue_ahead = false) {
    std::uint64_t end = 0;
    const std::vector<bus_op> ops = random_script(cfg.clock_hz, baud, n, seed, end, mix);
    const observed ref = run_reference(ops, cfg.fifo_depth, end);
    ASSERT_GT(ref.txd_edges.size(), 100u) << "the script must actually transmit";
    // ... and receive: characters read back with and without errors, interrupts, RTS and DMA at work.
    unsigned received = 0, with_errors = 0;
    std::uint32_t ris_seen = 0;
    for (std::size_t i = 0, r = 0; i < ops.size(); ++i) {
        if (ops[i].kind != bus_op::bus || ops[i].write) continue;
        const std::uint32_t v = ref.reads[r++];
        if (ops[i].offset == reg::RIS) ris_seen |= v;
        if (ops[i].offset == reg::DR && v != 0) {
            ++received;
            with_errors += (v & 0xF00) != 0;
        }
    }
    std::printf(
        "reference: %zu txd edges, %u characters read (%u with errors), %zu rx level changes, %zu irq "
        "edges, %zu nRTS edges, %zu DMA request changes\n",
        ref.txd_edges.size(), received, with_errors, ref.rx_level.size(), ref.irq_edges.size(),
        ref.nrts_edges.size(), ref.dma.size());
    EXPECT_GT(received, 50u) << "the script must actually receive";
    EXPECT_GT(with_errors, 5u) << "the script must receive characters with errors";
    EXPECT_GT(ref.rx_level.size(), 100u);
    EXPECT_GT(ref.dma.size(), 10u);
    EXPECT_GT(ref.nrts_edges.size(), 2u);
    const std::uint32_t want = irq::RX | irq::RT | irq::FE | irq::BE | irq::OE;
    EXPECT_EQ(ris_seen & want, want) << "RIS read back with these interrupts: 0x" << std::hex << ris_seen;
    EXPECT_NE(ris_seen & (irq::RI | irq::CTS | irq::DCD | irq::DSR), 0u) << "no modem interrupt seen";

    const std::uint64_t bit_cycles = cfg.clock_hz / baud;
    tlm_bench b(cfg, ops, rx != rx_input::pin, rx == rx_input::chars_ahead ? 2 * bit_cycles : 0, issue_ahead);
    b.run_to(end);
    if (issue_ahead) {
        // The point of it: accesses with nothing due before them (on this dense traffic, about one in
        // eight) are served at once, without a wait, and the comparisons below then hold them.
        const auto accesses = static_cast<std::uint64_t>(
            std::count_if(ops.begin(), ops.end(), [](const bus_op& op) { return op.kind == bus_op::bus; }));
        std::printf("accesses issued ahead: %llu of %llu, %llu of them served at once\n",
                    (unsigned long long)b.init.issued_ahead, (unsigned long long)accesses,
                    (unsigned long long)b.init.served_ahead);
        EXPECT_GT(b.init.served_ahead * 12, accesses);
        EXPECT_GT(b.init.served_ahead * 4, b.init.issued_ahead * 3);
    }
    if (rx != rx_input::pin) {
        // The point of it: no wake per RXD edge (on the pin, each is one that changes no output).
        const auto rxd_edges = static_cast<std::uint64_t>(std::count_if(
            ops.begin(), ops.end(), [](const bus_op& op) { return op.kind == bus_op::pin_rxd; }));
        std::printf("rx as characters: %llu RXD edges in %llu reports; %llu wakes, %llu of them idle\n",
                    (unsigned long long)rxd_edges, (unsigned long long)b.init.rx_reports,
                    (unsigned long long)b.uart.wakes(), (unsigned long long)b.uart.idle_wakes());
        EXPECT_GT(b.init.rx_reports * 2, rxd_edges / 6);
        // On the pin, every edge is one idle wake of its own.
        if (!cfg.clock_every_cycle) EXPECT_LT(b.uart.idle_wakes() * 2, rxd_edges);
    }
    for (auto s : b.init.status)
        ASSERT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(b.init.late.empty()) << b.init.late.size() << " accesses landed late, first on cycle "
                                     << b.init.late.front();
    EXPECT_EQ(b.ob.reads, ref.reads);
    // The line as characters, with TXD driven edge by edge or not: the same edges as the pin's.
    EXPECT_GT(b.line.chars, 100u);
    EXPECT_EQ(b.line.cycles(), ref.txd_edges) << "the TXD edges rebuilt from the reported characters";
    if (!cfg.txd_edges) {
        // The pin shows the line between characters alone; the rest is compared as with the pin.
        EXPECT_LT(b.ob.txd_edges.size(), ref.txd_edges.size() / 4);
    } else {
        EXPECT_EQ(b.ob.txd_edges, ref.txd_edges);
    }
    const std::vector<std::uint64_t> txd = cfg.txd_edges ? b.ob.txd_edges : b.line.cycles();
    for (std::size_t i = 0; i < std::min(txd.size(), ref.txd_edges.size()); ++i)
        if (txd[i] != ref.txd_edges[i]) {
            std::string near;
            for (const bus_op& op : ops)
                if (op.cycle + 50 > ref.txd_edges[i] && op.cycle < ref.txd_edges[i] + 50)
                    near +=
                        " " + std::to_string(op.cycle) + (op.write ? "w" : "r") + std::to_string(op.offset);
            ADD_FAILURE() << "first txd difference: wrapper " << txd[i] << ", reference " << ref.txd_edges[i]
                          << "; accesses nearby:" << near;
            break;
        }
    EXPECT_EQ(b.ob.irq_edges, ref.irq_edges);
    EXPECT_EQ(b.ob.nrts_edges, ref.nrts_edges);
    EXPECT_EQ(b.ob.busy, ref.busy);
    EXPECT_EQ(b.ob.txfe, ref.txfe);
    EXPECT_EQ(b.ob.txff, ref.txff);
    EXPECT_EQ(b.ob.tx_level, ref.tx_level);
    EXPECT_EQ(b.ob.rxfe, ref.rxfe);
    EXPECT_EQ(b.ob.rxff, ref.rxff);
    EXPECT_EQ(b.ob.rx_level, ref.rx_level);
    EXPECT_EQ(b.ob.dma, ref.dma);
    for (std::size_t i = 0; i < std::min(b.ob.reads.size(), ref.reads.size()); ++i)
        if (b.ob.reads[i] != ref.reads[i]) {
            ADD_FAILURE() << "first read difference at #" << i << ": wrapper 0x" << std::hex << b.ob.reads[i]
                          << ", reference 0x" << ref.reads[i];
            break;
        }
    for (std::size_t i = 0; i < std::min(b.ob.rx_level.size(), ref.rx_level.size()); ++i)
        if (b.ob.rx_level[i] != ref.rx_level[i]) {
            ADD_FAILURE() << "first rx_level difference at #" << i << ": wrapper (" << b.ob.rx_level[i].first
                          << ", " << b.ob.rx_level[i].second << "), reference (" << ref.rx_level[i].first
                          << ", " << ref.rx_level[i].second << ")";
            break;
        }
    for (std::size_t i = 0; i < std::min(b.ob.tx_level.size(), ref.tx_level.size()); ++i)
        if (b.ob.tx_level[i] != ref.tx_level[i]) {
            ADD_FAILURE() << "first tx_level difference at #" << i << ": wrapper (" << b.ob.tx_level[i].first
                          << ", " << b.ob.tx_level[i].second << "), reference (" << ref.tx_level[i].first
                          << ", " << ref.tx_level[i].second << ")";
            break;
        }
    if (expect_skipping) {
        // The point of skipping: far fewer RTL evaluations than cycles.
        EXPECT_LT(b.uart.edges_evaluated() * 4, end) << "cycles were not skipped";
    }
}

} // namespace

TEST(Pl011Equivalence, FastPathMatchesPlainClocking_115200_Depth32) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 1);
}

TEST(Pl011Equivalence, FastPathMatchesPlainClocking_921600_FractionalDivisor_Depth16) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.fifo_depth = 16;
    // IBRD 1, FBRD 40: one- and two-cycle Baud16 periods, nothing to skip but idle time
    check_equivalence(cfg, 921600, 1500, 2, false);
}

TEST(Pl011Equivalence, FastPathMatchesPlainClocking_OddClock_38400) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.clock_hz = 7'372'801; // a period that is no whole number of picoseconds
    check_equivalence(cfg, 38400, 600, 3);
}

TEST(Pl011Equivalence, FastPathMatchesPlainClocking_MostlyLoopback) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 5, true, {true, false});
}

TEST(Pl011Equivalence, FastPathMatchesPlainClocking_MostlyCharacterMode_Depth16) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.fifo_depth = 16;
    check_equivalence(cfg, 57600, 1200, 6, true, {false, true});
}

// The line as characters: no wake per TXD edge, skips across them; every other output and read the
// same, and the reported characters give plain clocking's TXD edges (resets cutting characters, BRK,
// loopback, which keeps the pin's skip rules, and format changes included).
TEST(Pl011Equivalence, LineAsCharactersMatchesPlainClocking_115200_Depth32) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.txd_edges = false;
    check_equivalence(cfg, 115200, 1500, 1);
}

TEST(Pl011Equivalence, LineAsCharactersMatchesPlainClocking_OddClock_38400) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.txd_edges = false;
    cfg.clock_hz = 7'372'801;
    check_equivalence(cfg, 38400, 600, 3);
}

TEST(Pl011Equivalence, LineAsCharactersMatchesPlainClocking_MostlyLoopback) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.txd_edges = false;
    check_equivalence(cfg, 115200, 1500, 5, true, {true, false});
}

TEST(Pl011Equivalence, LineAsCharactersMatchesPlainClocking_MostlyCharacterMode_Depth16) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.fifo_depth = 16;
    cfg.txd_edges = false;
    check_equivalence(cfg, 57600, 1200, 6, true, {false, true});
}

// The receive line as characters (rx_line()): the script's RXD edges (characters at the programmed
// rate and a few percent off, bad stop bits, back to back or apart, breaks, glitches) cut into reports
// of one to six low pulses, at their first edge's time or up to two bit periods ahead: every output,
// flag, level and read on the cycle of plain clocking's with RXD on the pin (RX timeouts, framing,
// break and overrun errors included: check_equivalence requires them).
TEST(Pl011Equivalence, RxAsCharactersMatchesPlainClocking_115200_Depth32) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 1, true, {}, rx_input::chars);
}

TEST(Pl011Equivalence, RxAsCharactersReportedAheadMatchesPlainClocking_115200) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 7, true, {}, rx_input::chars_ahead);
}

TEST(Pl011Equivalence, RxAsCharactersMatchesPlainClocking_OddClock_38400_TxAsCharacters) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.txd_edges = false;
    cfg.clock_hz = 7'372'801;
    check_equivalence(cfg, 38400, 600, 3, true, {}, rx_input::chars_ahead);
}

TEST(Pl011Equivalence, RxAsCharactersMatchesPlainClocking_MostlyLoopback) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 5, true, {true, false}, rx_input::chars);
}

TEST(Pl011Equivalence, RxAsCharactersMatchesPlainClocking_MostlyCharacterMode_Depth16) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.fifo_depth = 16;
    check_equivalence(cfg, 57600, 1200, 6, true, {false, true}, rx_input::chars);
}

TEST(Pl011Equivalence, RxAsCharactersUnderClockEveryCycleMatchesPlainClocking) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.clock_every_cycle = true;
    check_equivalence(cfg, 230400, 400, 4, false, {}, rx_input::chars);
}

// Accesses issued ahead of SystemC time, served at once where nothing comes before them: the same
// reads, completion edges and outputs as accesses that wait for their time.
TEST(Pl011Equivalence, AccessesIssuedAheadMatchPlainClocking_115200_Depth32) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 41, true, {}, rx_input::pin, true);
}
TEST(Pl011Equivalence, AccessesIssuedAheadMatchPlainClocking_OddClock_38400_RxAsCharactersReportedAhead) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.clock_hz = 7'372'800;
    cfg.fifo_depth = 16;
    cfg.txd_edges = false;
    check_equivalence(cfg, 38400, 600, 42, true, {}, rx_input::chars_ahead, true);
}
TEST(Pl011Equivalence, AccessesIssuedAheadMatchPlainClocking_MostlyLoopback) {
    UARTVP_SIM_TEST();
    check_equivalence(pl011_config{}, 115200, 1500, 43, true, {true, false}, rx_input::chars, true);
}

TEST(Pl011Equivalence, ClockEveryCycleMatchesPlainClocking) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.clock_every_cycle = true;
    check_equivalence(cfg, 230400, 400, 4, false);
}

// The engine alone, without SystemC: catch_up() to arbitrary edges (far past several bit ends, or to
// the middle of a Baud16 period) must leave the RTL exactly where plain clocking leaves it.
namespace {
// With `lazy_rxd`, RXD changes go through rxd_change() as the wrapper hands them over in fast mode:
// applied at the next catch-up, the synchroniser's two edges loaded in one. Until the load, the
// engine's synchroniser reads as settled where plain clocking's does not: `synced` and `quiet` are
// compared outside those windows only.
// With `txd_unseen`, skips also pass TXD's edges inside a character (plain clocking takes the input
// too: it changes only the skip outputs, which are compared).
void check_core_catch_up(std::uint64_t uartclk, std::uint64_t baud, unsigned depth, std::uint32_t seed,
                         script_mix mix = {}, bool lazy_rxd = false, bool txd_unseen = false) {
    std::uint64_t end = 0;
    const std::vector<bus_op> ops = random_script(uartclk, baud, 800, seed, end, mix);
    detail::pl011_core core(depth, false);
    auto ref = detail::pl011_rtl::create(depth);
    core.txd_unseen(txd_unseen);
    ref->in.txd_unseen = txd_unseen;
    std::uint64_t ref_cycle = 0;
    // RXD changes handed to the engine lazily reach plain clocking's inputs after edge `first`.
    std::deque<std::pair<std::uint64_t, bool>> ref_rxd;
    auto ref_to = [&](std::uint64_t c) { // plain clocking up to edge c, inputs as they are
        while (ref_cycle < c) {
            while (!ref_rxd.empty() && ref_rxd.front().first == ref_cycle) {
                ref->in.rxd = ref_rxd.front().second;
                ref_rxd.pop_front();
            }
            ref->edge();
            ++ref_cycle;
        }
        while (!ref_rxd.empty() && ref_rxd.front().first == ref_cycle) {
            ref->in.rxd = ref_rxd.front().second;
            ref_rxd.pop_front();
            ref->settle();
        }
    };
    std::uint64_t loading_until = 0; // the last edge of an RXD change's window
    auto same = [&](const char* where, std::uint64_t c) {
        const detail::pl011_outputs &a = core.out(), &b = ref->out();
        ASSERT_EQ(core.cycle(), c);
        const bool sync_same = c > loading_until ? a.synced == b.synced && a.quiet == b.quiet : true;
        ASSERT_TRUE(a.txd == b.txd && a.intr == b.intr && a.flags == b.flags && a.tx_level == b.tx_level &&
                    a.rx_level == b.rx_level && a.nrts == b.nrts && a.txdmasreq == b.txdmasreq &&
                    a.txdmabreq == b.txdmabreq && a.rxdmasreq == b.rxdmasreq && a.rxdmabreq == b.rxdmabreq &&
                    a.b16_wait == b.b16_wait && a.b16_acc == b.b16_acc && a.ev_ticks == b.ev_ticks &&
                    a.out_ticks == b.out_ticks && a.reg_ticks == b.reg_ticks && a.rx_busy == b.rx_busy &&
                    a.rx_frame_ticks == b.rx_frame_ticks && a.tx_in_char == b.tx_in_char &&
                    a.tx_line_bits == b.tx_line_bits && a.tx_bits_left == b.tx_bits_left && sync_same)
            << where << " at cycle " << c << ": txd " << a.txd << "/" << b.txd << " line bits "
            << a.tx_line_bits << "/" << b.tx_line_bits << " bits left " << int(a.tx_bits_left) << "/"
            << int(b.tx_bits_left) << " flags " << a.flags << "/" << b.flags << " level " << int(a.tx_level)
            << "/" << int(b.tx_level) << " rx level " << int(a.rx_level) << "/" << int(b.rx_level)
            << " b16_wait " << a.b16_wait << "/" << b.b16_wait << " ev_ticks " << int(a.ev_ticks) << "/"
            << int(b.ev_ticks) << " intr " << a.intr << "/" << b.intr << " acc " << int(a.b16_acc) << "/"
            << int(b.b16_acc) << " reg_ticks " << int(a.reg_ticks) << "/" << int(b.reg_ticks) << " quiet "
            << a.quiet << "/" << b.quiet;
    };
    std::mt19937 rng(seed * 7 + 1);
    for (const bus_op& op : ops) {
        // Probe somewhere between here and the op, often far past several events.
        if (op.cycle > core.cycle() + 2) {
            const std::uint64_t probe = core.cycle() + 1 + rng() % (op.cycle - core.cycle() - 1);
            core.catch_up(probe);
            ref_to(probe);
            same("probe", probe);
        }
        if (lazy_rxd && op.kind == bus_op::pin_rxd) {
            const std::uint64_t after = std::max(op.cycle - 1, core.cycle());
            core.rxd_change(after, op.write);
            loading_until = after + 2;
            ref_rxd.emplace_back(after, op.write);
            continue;
        }
        if (op.kind != bus_op::bus) {
            core.catch_up(op.cycle - 1);
            ref_to(op.cycle - 1);
            pin_of(core.inputs(), op.kind) = op.write;
            pin_of(ref->in, op.kind) = op.write;
            core.settle();
            ref->settle();
            continue;
        }
        const unsigned lane = op.offset & 3;
        const std::uint8_t strb = op.write ? static_cast<std::uint8_t>(((1u << op.size) - 1) << lane) : 0;
        std::uint32_t data = op.write ? op.data << (8 * lane) : 0;
        ASSERT_EQ(core.access(op.cycle, op.write, static_cast<std::uint16_t>(op.offset >> 2), strb, data),
                  detail::bus_result::ok);
        ref_to(op.cycle - 1);
        ref->in.sel = true;
        ref->in.write = op.write;
        ref->in.addr = static_cast<std::uint16_t>(op.offset >> 2);
        ref->in.strb = strb;
        ref->in.wdata = op.write ? op.data << (8 * lane) : 0;
        ref->settle();
        if (!op.write) ASSERT_EQ(data, ref->out().rdata) << "read at cycle " << op.cycle;
        ref->edge();
        ++ref_cycle;
        ref->in.sel = false;
        ref->in.write = false;
        same("access", op.cycle);
    }
    core.catch_up(end);
    ref_to(end);
    same("end", end);
}
} // namespace

TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_115200) {
    check_core_catch_up(24'000'000, 115200, 32, 11);
}
TEST(Pl011CoreEquivalence, CatchUpPastTxdEdgesMatchesPlainClocking_115200) {
    check_core_catch_up(24'000'000, 115200, 32, 11, {}, false, true);
}
TEST(Pl011CoreEquivalence, CatchUpPastTxdEdgesMatchesPlainClocking_Loopback) {
    check_core_catch_up(24'000'000, 115200, 32, 12, {true, false}, true, true);
}
TEST(Pl011CoreEquivalence, CatchUpPastTxdEdgesMatchesPlainClocking_CharacterMode) {
    check_core_catch_up(24'000'000, 57600, 16, 13, {false, true}, true, true);
}
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_921600) {
    check_core_catch_up(24'000'000, 921600, 16, 12);
}
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_OddClock) {
    check_core_catch_up(7'372'801, 57600, 32, 13);
}
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_Loopback) {
    check_core_catch_up(24'000'000, 115200, 32, 14, {true, false});
}
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_CharacterMode) {
    check_core_catch_up(24'000'000, 38400, 16, 15, {false, true});
}
TEST(Pl011CoreEquivalence, RxdLoadedAtItsSecondSynchroniserEdgeMatchesPlainClocking_115200) {
    check_core_catch_up(24'000'000, 115200, 32, 21, {}, true);
}
TEST(Pl011CoreEquivalence, RxdLoadedAtItsSecondSynchroniserEdgeMatchesPlainClocking_921600) {
    check_core_catch_up(24'000'000, 921600, 16, 22, {}, true);
}
TEST(Pl011CoreEquivalence, RxdLoadedAtItsSecondSynchroniserEdgeMatchesPlainClocking_Loopback) {
    check_core_catch_up(24'000'000, 115200, 32, 23, {true, false}, true);
}

// A quiet UART is not evaluated: the engine computes its free-running divider's phase. Skips of up to
// millions of cycles, with fractional divisors (the accumulator's carries), against plain clocking;
// then a character written there starts on the enable plain clocking gives it.
namespace {
void check_long_idle(std::uint32_t ibrd, std::uint32_t fbrd) {
    detail::pl011_core core(32, false);
    auto ref = detail::pl011_rtl::create(32);
    std::uint64_t ref_cycle = 0, c = 0;
    auto both = [&](bool write, std::uint16_t word, std::uint32_t data) {
        c += 1;
        std::uint32_t d = data;
        ASSERT_EQ(core.access(c, write, word, 0xF, d), detail::bus_result::ok);
        while (ref_cycle < c - 1) {
            ref->edge();
            ++ref_cycle;
        }
        ref->in.sel = true;
        ref->in.write = write;
        ref->in.addr = word;
        ref->in.strb = 0xF;
        ref->in.wdata = data;
        ref->edge();
        ++ref_cycle;
        ref->in.sel = false;
        ref->in.write = false;
    };
    both(true, reg::IBRD >> 2, ibrd);
    both(true, reg::FBRD >> 2, fbrd);
    both(true, reg::LCR_H >> 2, 0x70);
    both(true, reg::CR >> 2, 0x301);
    const std::uint64_t edges0 = core.edges_evaluated();
    for (std::uint64_t gap : {7ull, 1000ull, 123457ull, 2'000'003ull}) {
        c += gap;
        core.catch_up(c);
        while (ref_cycle < c) {
            ref->edge();
            ++ref_cycle;
        }
        ASSERT_EQ(core.out().b16_wait, ref->out().b16_wait) << "after " << gap << " idle cycles";
        ASSERT_EQ(core.out().b16_acc, ref->out().b16_acc) << "after " << gap << " idle cycles";
    }
    EXPECT_EQ(core.edges_evaluated(), edges0) << "idle cycles cost no evaluation";
    both(true, reg::DR >> 2, 0x00);
    std::uint64_t core_start = 0, ref_start = 0;
    for (std::uint64_t end = c + 40 * ibrd; !core_start || !ref_start;) {
        ASSERT_LT(c, end) << "no start bit";
        ++c;
        core.catch_up(c);
        ref->edge();
        ++ref_cycle;
        if (!core_start && !core.out().txd) core_start = c;
        if (!ref_start && !ref->out().txd) ref_start = c;
    }
    EXPECT_EQ(core_start, ref_start);
}
} // namespace

TEST(Pl011CoreEquivalence, LongIdleDividerPhaseMatchesPlainClocking_13_1) {
    check_long_idle(13, 1);
}
TEST(Pl011CoreEquivalence, LongIdleDividerPhaseMatchesPlainClocking_1_40) {
    check_long_idle(1, 40);
}
TEST(Pl011CoreEquivalence, LongIdleDividerPhaseMatchesPlainClocking_57_63) {
    check_long_idle(57, 63);
}

namespace {
using namespace sc_core;
// A PL011 with a reset line of the test's own, for the reset-then-promise case below.
struct reset_bench : sc_module {
    sc_signal<bool> txd{"txd", true}, irq{"irq"}, rxd{"rxd", true}, nreset{"nreset", true};
    pl011 uart;
    tlm_utils::simple_initiator_socket<reset_bench, 32> sock{"sock"};
    sc_time until;
    std::uint32_t fr_read = 0;
    bool promised = false;
    SC_HAS_PROCESS(reset_bench);
    reset_bench(const sc_module_name& n, bool every)
        : sc_module(n)
        , uart("uart", cfg(every)) {
        sock.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.nreset(nreset);
        SC_THREAD(run);
    }
    static pl011_config cfg(bool every) {
        pl011_config c;
        c.clock_every_cycle = every;
        return c;
    }
    std::uint32_t acc(bool w, std::uint64_t a, std::uint32_t v, read_promise* p = nullptr) {
        sc_time d;
        v = word_access(sock, w, a, v, p, d);
        wait(d);
        return v;
    }
    void run() {
        acc(true, 0x24, 1);
        acc(true, 0x28, 0);
        acc(true, 0x2C, 0x70);
        acc(true, 0x30, 0x301); // IBRD 1 latched
        wait(sc_time(1, SC_US));
        nreset.write(false);
        wait(uart.clock().time_of(5)); // 5 cycles of reset
        nreset.write(true);
        wait(SC_ZERO_TIME);
        wait(SC_ZERO_TIME);
        read_promise p;
        const std::uint32_t fr = acc(false, 0x18, 0, &p); // FR, right after the release
        until = p.until;
        fr_read = fr;
        promised = p.valid;
    }
};
} // namespace

// A reset held for several cycles, then an FR read with a promise right after its release: the fast
// engine, which skips the cycles of a held reset, must leave the UART exactly as plain clocking does (the
// fuzz once found fast mode promising only until the next edge here, where plain clocking promises for
// ever, when the baud divider needed a second reset edge to come to rest).
TEST(Pl011CoreEquivalence, ReadPromisedRightAfterAHeldResetAsUnderPlainClocking) {
    UARTVP_SIM_TEST();
    reset_bench fast("fast", false), clocked("clocked", true);
    sc_start(sc_time(10, SC_US));
    EXPECT_TRUE(fast.promised && clocked.promised);
    EXPECT_EQ(fast.fr_read, clocked.fr_read);
    EXPECT_EQ(fast.until, clocked.until);
}

// An RXD change handed to the engine lazily while reset comes or goes around it: the synchroniser's
// stages hold their reset value over reset edges, so a load right after one takes nothing from the
// first stage (what shows is whether the synchroniser has settled, which read promises follow). Every
// placement of a change and of a reset of one to three edges around it, with a Baud16 enable on every
// edge until the reset, against plain clocking edge for edge.
TEST(Pl011CoreEquivalence, RxdLoadedAroundAResetMatchesPlainClocking) {
    for (int change_at = 0; change_at < 4; ++change_at)
        for (int reset_len = 1; reset_len <= 3; ++reset_len)
            for (bool level : {false, true}) {
                detail::pl011_core core(32, false);
                auto ref = detail::pl011_rtl::create(32);
                std::uint64_t c = 0;
                auto both = [&](std::uint16_t word, std::uint32_t data) {
                    c += 1;
                    std::uint32_t d = data;
                    ASSERT_EQ(core.access(c, true, word, 0xF, d), detail::bus_result::ok);
                    ref->in.sel = true;
                    ref->in.write = true;
                    ref->in.addr = word;
                    ref->in.strb = 0xF;
                    ref->in.wdata = data;
                    ref->edge();
                    ref->in.sel = false;
                    ref->in.write = false;
                };
                both(reg::IBRD >> 2, 1); // a Baud16 enable on every edge
                both(reg::FBRD >> 2, 0);
                both(reg::LCR_H >> 2, 0x70);
                both(reg::CR >> 2, 0x301);
                if (level) { // start from a low line, so that the change is a rise
                    core.rxd_change(c, false);
                    ref->in.rxd = false;
                    for (int i = 0; i < 300; ++i) {
                        ++c;
                        core.catch_up(c);
                        ref->edge();
                    }
                }
                // The reset starts on edge c + 2 (set after edge c + 1) and holds reset_len edges; the
                // change is seen from edge c + 1 + change_at.
                const std::uint64_t reset_from = c + 2, change_seen = c + 1 + change_at;
                for (std::uint64_t e = c + 1; e < c + 40; ++e) {
                    // Inputs for edge e, set after edge e - 1, as the wrapper sets them.
                    if (e == change_seen) {
                        core.rxd_change(e - 1, level);
                        ref->in.rxd = level;
                    }
                    if (e == reset_from || e == reset_from + reset_len) {
                        const bool rst_n = e != reset_from;
                        core.catch_up(e - 1);
                        core.inputs().rst_n = rst_n;
                        core.settle();
                        ref->in.rst_n = rst_n;
                        ref->settle();
                    }
                    core.catch_up(e);
                    ref->edge();
                    const detail::pl011_outputs &a = core.out(), &b = ref->out();
                    // Before the edge that loads the change the engine's synchroniser reads as settled.
                    const bool sync_same = e <= change_seen || (a.synced == b.synced && a.quiet == b.quiet);
                    ASSERT_TRUE(a.ev_ticks == b.ev_ticks && a.out_ticks == b.out_ticks &&
                                a.rx_busy == b.rx_busy && a.flags == b.flags && a.rx_level == b.rx_level &&
                                a.reg_ticks == b.reg_ticks && sync_same)
                        << "change seen from edge +" << change_at << ", reset of " << reset_len
                        << " edges, to " << level << ": differ at edge " << e - c << " (ev_ticks "
                        << int(a.ev_ticks) << "/" << int(b.ev_ticks) << ", reg_ticks " << int(a.reg_ticks)
                        << "/" << int(b.reg_ticks) << ")";
                }
            }
}

// The line monitor both ways on the same traffic: decoding the TXD pin, and decoding the characters
// the UART reports (rebuilt into the pin's edges). Same characters, errors, breaks and false starts,
// reported at the same times; at the programmed rate and at one a few percent off in another format.
TEST(LineMonitorFromCharacters, DecodesAsFromThePinOnTheSameTraffic) {
    UARTVP_SIM_TEST();
    pl011_config cfg; // TXD driven edge by edge, and the characters reported too
    std::uint64_t end = 0;
    const std::vector<bus_op> ops = random_script(cfg.clock_hz, 115200, 1500, 21, end);
    tlm_bench b(cfg, ops);
    struct seen {
        std::vector<decoded_char> chars;
        std::vector<sc_core::sc_time> at;
    };
    struct pair_of_monitors {
        line_monitor pin, chars;
        seen from_pin, from_chars;
        pair_of_monitors(const char* name, double baud, serial_format f, tlm_bench& b)
            : pin((std::string(name) + "_pin").c_str(), baud, f)
            , chars((std::string(name) + "_chars").c_str(), baud, f) {
            pin.line(b.txd);
            chars.line(b.txd);
            chars.take_characters(true);
            b.uart.report_line(chars);
            auto keep = [](seen& s) {
                return [&s](const decoded_char& c) {
                    s.chars.push_back(c);
                    s.at.push_back(sc_core::sc_time_stamp());
                };
            };
            pin.on_char(keep(from_pin));
            chars.on_char(keep(from_chars));
        }
    };
    pair_of_monitors nominal("nominal", 115200, serial_format{8, parity_mode::none, 1}, b);
    pair_of_monitors off("off", 115200 * 1.03, serial_format{7, parity_mode::even, 1}, b);
    b.run_to(end);
    for (pair_of_monitors* p : {&nominal, &off}) {
        const seen &a = p->from_pin, &c = p->from_chars;
        EXPECT_GT(a.chars.size(), 300u);
        EXPECT_GT(p->pin.framing_errors(), 5u);
        EXPECT_GT(p->pin.breaks(), 2u);
        ASSERT_EQ(c.chars.size(), a.chars.size());
        for (std::size_t i = 0; i < a.chars.size(); ++i) {
            const decoded_char &x = a.chars[i], &y = c.chars[i];
            ASSERT_TRUE(x.data == y.data && x.start == y.start && x.end == y.end &&
                        x.framing_error == y.framing_error && x.parity_error == y.parity_error &&
                        x.is_break == y.is_break && a.at[i] == c.at[i])
                << "character #" << i << " from the pin: 0x" << std::hex << int(x.data) << std::dec << " at "
                << x.start << " (reported " << a.at[i] << "), from characters: 0x" << std::hex << int(y.data)
                << std::dec << " at " << y.start << " (reported " << c.at[i] << ")";
        }
        EXPECT_EQ(p->chars.chars(), p->pin.chars());
        EXPECT_EQ(p->chars.framing_errors(), p->pin.framing_errors());
        EXPECT_EQ(p->chars.parity_errors(), p->pin.parity_errors());
        EXPECT_EQ(p->chars.breaks(), p->pin.breaks());
        EXPECT_EQ(p->chars.false_starts(), p->pin.false_starts());
    }
    EXPECT_GT(off.pin.parity_errors(), 5u);
    std::printf("nominal: %llu characters, %llu framing errors, %llu breaks; off: %llu characters, %llu "
                "parity errors, %llu false starts\n",
                (unsigned long long)nominal.pin.chars(), (unsigned long long)nominal.pin.framing_errors(),
                (unsigned long long)nominal.pin.breaks(), (unsigned long long)off.pin.chars(),
                (unsigned long long)off.pin.parity_errors(), (unsigned long long)off.pin.false_starts());
}

// The receive line as characters against the pin, side by side in one simulation: two PL011s, RXD
// from an rx_injector on the pin of one and reported to the other's rx_line(), the same accesses at
// the same instants to both. The accesses come at any instant, not only at edges, many of them within
// a UARTCLK period before an RXD change (the change is then seen one edge after the access's), FR read
// with promises held by a polling reader: every read value, completion time, interrupt edge and RX
// level change the same. The paste: characters back to back and apart, bad stop bits, a break, an RX
// timeout at the end.
namespace {
struct rx_side : sc_core::sc_module {
    sc_core::sc_signal<bool> txd{"txd", true}, irq{"irq", false}, rxd{"rxd", true};
    pl011 uart;
    rx_injector inj;
    tlm_utils::simple_initiator_socket<rx_side, 32> sock{"sock"};
    struct step {
        sc_core::sc_time at;
        bool write;
        std::uint32_t offset, data;
    };
    const std::vector<step>* steps = nullptr;
    std::vector<std::uint32_t> reads, dr_reads;
    std::vector<sc_core::sc_time> done, irq_edges;
    std::vector<std::pair<sc_core::sc_time, unsigned>> rx_levels;
    SC_HAS_PROCESS(rx_side);
    rx_side(const sc_core::sc_module_name& n, bool chars, const pl011_config& cfg = {})
        : sc_module(n)
        , uart("uart", cfg)
        , inj("inj", 115200, serial_format{}) {
        sock.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        inj.line(rxd);
        if (chars) inj.report_to(uart.rx_line());
        SC_THREAD(run);
        SC_METHOD(on_irq);
        sensitive << irq;
        dont_initialize();
        SC_METHOD(on_level);
        sensitive << uart.rx_fifo_level;
        dont_initialize();
    }
    void on_irq() { irq_edges.push_back(sc_core::sc_time_stamp()); }
    void on_level() { rx_levels.emplace_back(sc_core::sc_time_stamp(), uart.rx_fifo_level.read()); }
    std::uint32_t access(bool w, std::uint32_t off, std::uint32_t v, read_promise* p) {
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        v = word_access(sock, w, off, v, p, d);
        done.push_back(sc_core::sc_time_stamp() + d);
        return v;
    }
    void run() {
        for (const step& s : *steps) {
            if (s.at > sc_core::sc_time_stamp()) wait(s.at - sc_core::sc_time_stamp());
            read_promise p;
            const std::uint32_t v = access(s.write, s.offset, s.data, s.offset == reg::FR ? &p : nullptr);
            if (s.write) continue;
            reads.push_back(v);
            if (s.offset == reg::DR) dr_reads.push_back(v);
            // FR with a promise: poll it as a collapsed loop would, until the promise ends or breaks.
            if (p.valid && p.until < sc_core::sc_max_time()) {
                const sc_core::sc_time until = p.until;
                if (until > sc_core::sc_time_stamp()) wait(until - sc_core::sc_time_stamp(), *p.broken);
                reads.push_back(access(false, reg::FR, 0, nullptr));
            }
        }
    }
};
} // namespace

namespace {
void check_rx_pair(const pl011_config& cfg) {
    using sc_core::SC_NS;
    using sc_core::SC_PS;
    using sc_core::sc_time;
    rx_side pin("pin", false, cfg), chars("chars", true, cfg);
    std::vector<rx_side::step> steps;
    sc_time t(1, SC_US);
    auto at = [&](std::uint32_t off, bool w, std::uint32_t v) {
        steps.push_back({t, w, off, v});
        t += sc_time(200, SC_NS);
    };
    at(reg::IBRD, true, 13);
    at(reg::FBRD, true, 1);
    at(reg::LCR_H, true, 0x70);
    at(reg::IMSC, true, irq::RX | irq::RT | irq::FE | irq::PE | irq::BE);
    at(reg::CR, true, 0x301);
    // The paste, each item at its own time; every bit boundary of its characters.
    const std::uint64_t t0_ps = 100'000'000; // 100 us
    std::vector<std::uint64_t> boundaries_ps, starts_ps;
    struct item {
        std::string text;
        std::uint64_t at_ps;
        rx_injector::options opt;
    };
    rx_injector::options plain, bad_stop;
    bad_stop.bad_stop = true;
    const std::string text = "The quick brown fox jumps over the lazy dog; 0123456789 ~!";
    std::vector<item> items = {{text, t0_ps, plain},
                               {"xyz", t0_ps + 8'000'000'000ull, bad_stop},
                               {"back to back again", t0_ps + 9'000'000'000ull, plain}};
    for (const item& it : items) {
        for (rx_side* s : {&pin, &chars})
            s->inj.send(it.text, sc_time(static_cast<double>(it.at_ps), SC_PS), it.opt);
        const unsigned spacing = 10 + (it.opt.bad_stop ? 1 : 0);
        for (std::size_t j = 0; j < it.text.size(); ++j)
            for (unsigned k = 0; k <= 10; ++k) {
                boundaries_ps.push_back(it.at_ps + bit_offset_ps(115200, 2ull * (j * spacing + k)));
                if (k == 0) starts_ps.push_back(boundaries_ps.back());
            }
    }
    for (rx_side* s : {&pin, &chars})
        s->inj.send_break(sc_time(300, sc_core::SC_US), sc_time(7, sc_core::SC_MS));
    // Accesses: before the paste, FR polls; then around bit boundaries, up to 60 ns before one (within
    // a UARTCLK period of 41.67 ns, or just outside), reads of FR, DR, RIS and RSR and ICR writes.
    std::mt19937 rng(11);
    std::sort(boundaries_ps.begin(), boundaries_ps.end());
    for (std::size_t i = 0; i < boundaries_ps.size(); i += 1 + rng() % 4) {
        const sc_time a(static_cast<double>(boundaries_ps[i] - rng() % 60'000), SC_PS);
        if (a <= t) continue;
        t = a;
        const unsigned k = rng() % 10;
        const std::uint32_t off = k < 5   ? reg::FR
                                  : k < 6 ? reg::DR
                                  : k < 8 ? reg::RIS
                                  : k < 9 ? reg::RSR
                                          : reg::ICR;
        steps.push_back({t, off == reg::ICR, off, off == reg::ICR ? 0x7FFu : 0u});
    }
    // And an ICR write (it takes a UARTCLK edge) less than a period before each start bit.
    for (std::uint64_t s_ps : starts_ps)
        steps.push_back({sc_time(static_cast<double>(s_ps - 1 - rng() % 41'000), SC_PS), true, reg::ICR, 0});
    std::stable_sort(steps.begin(), steps.end(),
                     [](const rx_side::step& a, const rx_side::step& b) { return a.at < b.at; });
    // The RX timeout: nothing read for 40 bit periods after the last character, then drained.
    t += sc_time(2, sc_core::SC_MS);
    for (int i = 0; i < 40; ++i)
        at(reg::DR, false, 0);
    at(reg::RIS, false, 0);
    pin.steps = chars.steps = &steps;
    sc_core::sc_start(t + sc_time(1, sc_core::SC_MS));
    EXPECT_GT(steps.size(), 300u);
    EXPECT_EQ(chars.reads, pin.reads);
    EXPECT_EQ(chars.done, pin.done);
    EXPECT_EQ(chars.irq_edges, pin.irq_edges);
    EXPECT_EQ(chars.rx_levels, pin.rx_levels);
    EXPECT_GT(pin.irq_edges.size(), 6u);
    unsigned errors = 0, received = 0;
    for (std::uint32_t v : pin.dr_reads)
        if (v) ++received, errors += (v & 0xF00) != 0;
    std::printf(
        "%zu accesses, %u characters read (%u with errors), %zu irq edges; wakes: pin %llu (%llu idle), "
        "characters %llu (%llu idle)\n",
        steps.size(), received, errors, pin.irq_edges.size(), (unsigned long long)pin.uart.wakes(),
        (unsigned long long)pin.uart.idle_wakes(), (unsigned long long)chars.uart.wakes(),
        (unsigned long long)chars.uart.idle_wakes());
    EXPECT_GT(received, 30u);
    EXPECT_GT(errors, 0u);
    EXPECT_LT(chars.uart.idle_wakes() * 4, pin.uart.idle_wakes());
}
} // namespace

TEST(Pl011RxCharacters, MatchThePinWithAccessesAtAnyInstant) {
    UARTVP_SIM_TEST();
    check_rx_pair(pl011_config{});
}

// Loosely timed (b_transport never waits, no promises): a change is seen by the first access after it
// in SystemC time, from the pin and from characters alike.
TEST(Pl011RxCharacters, MatchThePinWithAccessesAtAnyInstant_LooselyTimed) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.loosely_timed = true;
    check_rx_pair(cfg);
}

// The divider's widest states on the bare RTL, against plain clocking: IBRD 0xFFFF with FBRD 63, whose
// periods of 65536 cycles use the counter's top bit; one edge standing for 61440 divider cycles
// (fast_fwd); and, on a quiet UART, the divider's state computed for skipped cycles (div_load) up to
// where the counter holds 65536.
TEST(Pl011CoreEquivalence, TheLargestDivisorSkippedMatchesPlainClocking) {
    auto ref = detail::pl011_rtl::create(32), fast = detail::pl011_rtl::create(32);
    auto write = [](detail::pl011_rtl& r, std::uint16_t word, std::uint32_t v) {
        r.in.sel = true;
        r.in.write = true;
        r.in.addr = word;
        r.in.strb = 0xF;
        r.in.wdata = v;
        r.edge();
        r.in.sel = false;
        r.in.write = false;
    };
    for (detail::pl011_rtl* r : {ref.get(), fast.get()}) {
        r->reset();
        write(*r, reg::IBRD >> 2, 0xFFFF);
        write(*r, reg::FBRD >> 2, 63);
        write(*r, reg::LCR_H >> 2, 0x70); // latches the divisor: the UART is disabled, so at once
    }
    auto same = [&](const char* what) {
        EXPECT_EQ(fast->out().b16_wait, ref->out().b16_wait) << what;
        EXPECT_EQ(fast->out().b16_acc, ref->out().b16_acc) << what;
        EXPECT_EQ(fast->out().baud_div, ref->out().baud_div) << what;
        EXPECT_EQ(fast->out().flags, ref->out().flags) << what;
        EXPECT_EQ(fast->out().quiet, ref->out().quiet) << what;
    };
    ASSERT_EQ(ref->out().baud_div, (0xFFFFu << 6) | 63);
    ASSERT_EQ(ref->out().b16_wait, 0xFFFFu);
    for (int i = 0; i < 61440; ++i)
        ref->edge();
    fast->in.fast_fwd = 61440;
    fast->edge();
    fast->in.fast_fwd = 0;
    same("61440 divider cycles in one edge");
    // The cycles up to where the counter holds 65536 (the period after an enable that carried).
    std::uint64_t k = 0;
    while (ref->out().b16_wait != 65536 && k < 200000) {
        ref->edge();
        ++k;
    }
    ASSERT_EQ(ref->out().b16_wait, 65536u);
    ASSERT_TRUE(fast->out().quiet);
    fast->skip_divider(k);
    same("the divider state computed for the skipped cycles");
    for (int i = 0; i < 70000; ++i) {
        ref->edge();
        fast->edge();
    }
    same("a period later");
}
