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

// The engine alone, without SystemC: catch_up() to arbitrary edges (far past several bit ends, or to
// the middle of a Baud16 period) must leave the RTL exactly where plain clocking leaves it.
namespace {
void check_core_catch_up(std::uint64_t uartclk, std::uint64_t baud, unsigned depth, std::uint32_t seed) {
    std::uint64_t end = 0;
    const std::vector<bus_op> ops = random_script(uartclk, baud, 800, seed, end);
    detail::pl011_core core(depth, false);
    auto ref = detail::pl011_rtl::create(depth);
    std::uint64_t ref_cycle = 0;
    auto ref_to = [&](std::uint64_t c) { // plain clocking up to edge c, inputs as they are
        while (ref_cycle < c) {
            ref->edge();
            ++ref_cycle;
        }
    };
    auto same = [&](const char* where, std::uint64_t c) {
        const detail::pl011_outputs &a = core.out(), &b = ref->out();
        ASSERT_EQ(core.cycle(), c);
        ASSERT_TRUE(a.txd == b.txd && a.intr == b.intr && a.flags == b.flags && a.tx_level == b.tx_level &&
                    a.b16_wait == b.b16_wait && a.b16_acc == b.b16_acc && a.ev_ticks == b.ev_ticks &&
                    a.reg_ticks == b.reg_ticks)
            << where << " at cycle " << c << ": txd " << a.txd << "/" << b.txd << " flags " << a.flags << "/"
            << b.flags << " level " << int(a.tx_level) << "/" << int(b.tx_level) << " b16_wait " << a.b16_wait
            << "/" << b.b16_wait << " ev_ticks " << int(a.ev_ticks) << "/" << int(b.ev_ticks) << " intr "
            << a.intr << "/" << b.intr << " acc " << int(a.b16_acc) << "/" << int(b.b16_acc) << " reg_ticks "
            << int(a.reg_ticks) << "/" << int(b.reg_ticks);
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
        if (op.kind != bus_op::bus) {
            core.catch_up(op.cycle - 1);
            ref_to(op.cycle - 1);
            (op.kind == bus_op::pin_ncts ? core.inputs().ncts : core.inputs().rst_n) = op.write;
            (op.kind == bus_op::pin_ncts ? ref->in.ncts : ref->in.rst_n) = op.write;
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

TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_115200) { check_core_catch_up(24'000'000, 115200, 32, 11); }
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_921600) { check_core_catch_up(24'000'000, 921600, 16, 12); }
TEST(Pl011CoreEquivalence, CatchUpToArbitraryEdgesMatchesPlainClocking_OddClock) { check_core_catch_up(7'372'801, 57600, 32, 13); }
