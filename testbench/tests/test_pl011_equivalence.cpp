// The wrapper's skipping of UARTCLK cycles (idle sleep, Baud16 fast-forward, waking only where an
// output can change) against plain cycle-by-cycle clocking of the same RTL: every TXD/IRQ edge, every
// flag and FIFO-level change and every value read must fall on the same cycle.
#include <gtest/gtest.h>

#include "pl011_harness.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::test;

namespace {

// A random but reproducible script: bursts of DR writes, FR polls at gaps from one cycle to many
// characters, format changes (latched with the divisor), enable toggles, BRK, interrupt registers.
std::vector<bus_op> random_script(std::uint64_t uartclk, std::uint64_t baud, unsigned n, std::uint32_t seed,
                                  std::uint64_t& end) {
    std::mt19937 rng(seed);
    auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
    std::vector<bus_op> ops;
    std::uint64_t c = program_uart(ops, 5, uartclk, baud, 0x70);
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
        if (k < 40) {
            ops.push_back({c, true, reg::DR, 1, 0x20 + pick(0x5F)});
        } else if (k < 75) {
            ops.push_back({c, false, reg::FR, 4, 0});
        } else if (k < 80) {
            // new frame format: WLEN, PEN, EPS, STP2, SPS, FEN (mostly on)
            const std::uint32_t lcr = (pick(4) << 5) | (pick(2) << 1) | (pick(2) << 2) | (pick(2) << 3) |
                                      (pick(4) ? 0x10 : 0) | (pick(4) == 0 ? 0x80 : 0);
            ops.push_back({c, true, reg::IBRD, 4, ibrd});
            ops.push_back({c += 1, true, reg::FBRD, 4, fbrd});
            ops.push_back({c += 1, true, reg::LCR_H, 1, lcr});
        } else if (k < 84) {
            const std::uint32_t cr[] = {0x301, 0x301, 0x300, 0x201, 0x8301}; // 0x8000: CTSEN
            ops.push_back({c, true, reg::CR, 2, cr[pick(5)]});
        } else if (k < 85) {
            ops.push_back({c, pick(2) == 0, 0, 0, 0, bus_op::pin_ncts});
        } else if (k == 85 && pick(3) == 0) {
            // reset pulse, possibly in the middle of a character; then set the UART up again
            ops.push_back({c, false, 0, 0, 0, bus_op::pin_nreset});
            ops.push_back({c += 1 + pick(40), true, 0, 0, 0, bus_op::pin_nreset});
            c = program_uart(ops, c, uartclk, baud, 0x70);
        } else if (k < 87) {
            ops.push_back({c, true, reg::LCR_H, 4, 0x71}); // BRK
            ops.push_back({c += 1 + pick(static_cast<unsigned>(20 * bit)), true, reg::LCR_H, 4, 0x70});
        } else if (k < 92) {
            const std::uint32_t off[] = {reg::IMSC, reg::ICR, reg::IFLS};
            ops.push_back({c, true, off[pick(3)], 4, pick(64)});
        } else {
            const std::uint32_t off[] = {reg::RIS, reg::MIS, reg::CR, reg::LCR_H, reg::IBRD};
            ops.push_back({c, false, off[pick(5)], 4, 0});
        }
    }
    // Re-enable and let everything drain.
    ops.push_back({c += 2, true, 0, 0, 0, bus_op::pin_ncts});
    ops.push_back({c += 2, true, reg::LCR_H, 4, 0x70});
    ops.push_back({c += 2, true, reg::CR, 4, 0x301});
    end = c + 40 * 12 * 16 * (ibrd + 1);
    return ops;
}

void check_equivalence(const pl011_config& cfg, std::uint64_t baud, unsigned n, std::uint32_t seed,
                       bool expect_skipping = true) {
    std::uint64_t end = 0;
    const std::vector<bus_op> ops = random_script(cfg.uartclk_hz, baud, n, seed, end);
    const observed ref = run_reference(ops, cfg.fifo_depth, end);
    ASSERT_GT(ref.txd_edges.size(), 100u) << "the script must actually transmit";

    tlm_bench b(cfg, ops);
    b.run_to(end);
    for (auto s : b.init.status)
        ASSERT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(b.init.late.empty()) << b.init.late.size() << " accesses landed late, first on cycle "
                                     << b.init.late.front();
    EXPECT_EQ(b.ob.reads, ref.reads);
    EXPECT_EQ(b.ob.txd_edges, ref.txd_edges);
    for (std::size_t i = 0; i < std::min(b.ob.txd_edges.size(), ref.txd_edges.size()); ++i)
        if (b.ob.txd_edges[i] != ref.txd_edges[i]) {
            std::string near;
            for (const bus_op& op : ops)
                if (op.cycle + 50 > ref.txd_edges[i] && op.cycle < ref.txd_edges[i] + 50)
                    near +=
                        " " + std::to_string(op.cycle) + (op.write ? "w" : "r") + std::to_string(op.offset);
            ADD_FAILURE() << "first txd difference: wrapper " << b.ob.txd_edges[i] << ", reference "
                          << ref.txd_edges[i] << "; accesses nearby:" << near;
            break;
        }
    EXPECT_EQ(b.ob.irq_edges, ref.irq_edges);
    EXPECT_EQ(b.ob.busy, ref.busy);
    EXPECT_EQ(b.ob.txfe, ref.txfe);
    EXPECT_EQ(b.ob.txff, ref.txff);
    EXPECT_EQ(b.ob.tx_level, ref.tx_level);
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
    cfg.uartclk_hz = 7'372'801; // a period that is no whole number of picoseconds
    check_equivalence(cfg, 38400, 600, 3);
}

TEST(Pl011Equivalence, ClockEveryCycleMatchesPlainClocking) {
    UARTVP_SIM_TEST();
    pl011_config cfg;
    cfg.clock_every_cycle = true;
    check_equivalence(cfg, 230400, 400, 4, false);
}
