// SPDX-License-Identifier: Apache-2.0
// Two cores on one PL011 and one 16550, in fast mode (polling loops collapsed on read promises, the
// PL011 skipping cycles) against reference mode (every read a transaction, the PL011 clocked through
// every cycle), side by side in one simulation on the same random scripts. Every cost is a multiple of
// 4 ns, so the two cores' accesses often fall on the same instant: those are applied in the order of
// the cores' ids in both modes, and a collapsed loop counts its read of that instant accordingly.
// Every value each core read, the time each operation ended, the read and relax counts, and every
// change of each UART's TXD and IRQ must be identical.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn in a directed test
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <uartvp/cpu/core.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/initiator_id.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/rx_injector.h>
#include <uartvp/uart16550.h>

#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t pl_base = 0x09000000;
constexpr std::uint16_t com_port = 0x3F8;
// PL011 registers and FR bits (TRM), 16550 registers and LSR bits (datasheet).
constexpr std::uint64_t DR = 0x00, FR = 0x18, IBRD = 0x24, FBRD = 0x28, LCR_H = 0x2C, CR = 0x30, IFLS = 0x34,
                        IMSC = 0x38, MIS = 0x40, ICR = 0x44;
constexpr std::uint32_t FR_BUSY = 1 << 3, FR_RXFE = 1 << 4, FR_TXFF = 1 << 5;
constexpr std::uint16_t RBR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6;
constexpr std::uint8_t LSR_DR = 0x01, LSR_THRE = 0x20;
constexpr double baud = 1'500'000; // 24 MHz UARTCLK / 16: a character every 6.67 us

cpu::timing_profile timing() {
    cpu::timing_profile t;
    t.cpu_hz = 1'000'000'000;
    t.cpu_relax_cycles = 4;
    t.regions.push_back({"pl011", pl_base, pl011::map_size(), sc_time(120, SC_NS), sc_time(60, SC_NS)});
    t.regions.push_back({"com1", t.io_base + com_port, 8, sc_time(200, SC_NS), sc_time(160, SC_NS)});
    return t;
}

enum class op_kind {
    pl_write_dr,
    pl_wait_not_busy,
    pl_wait_not_full,
    pl_poll_rx,
    pl_read_dr,
    pl_read_fr,
    pl_write_imsc,
    pl_write_icr,
    pl_read_mis,
    pl_wait_drained,
    com_write_thr,
    com_wait_thre,
    com_poll_dr,
    com_read_rbr,
    com_read_lsr,
    com_read_iir,
    com_read_msr,
    com_write_ier,
    com_wait_drained,
    com_wait_not_thri,
    delay,
    // The kernel's loops written literally, not as spin_while (fast mode answers the reads that a
    // standing promise covers): BUSY and TXFF on the PL011, THRE on the 16550, and a bounded RX poll.
    pl_literal_not_busy,
    pl_literal_not_full,
    pl_literal_rx,
    com_literal_thre,
    count
};
struct op {
    op_kind kind;
    std::uint32_t arg;
};

std::vector<op> script(unsigned seed, unsigned n) {
    std::mt19937 rng(seed);
    std::vector<op> s;
    for (unsigned i = 0; i < n; ++i) {
        const auto k = static_cast<op_kind>(rng() % static_cast<unsigned>(op_kind::count));
        s.push_back({k, static_cast<std::uint32_t>(rng())});
    }
    return s;
}

// What a core saw: every value read and the core's time after every operation, in order.
using op_log = std::vector<std::uint64_t>;

void run_script(const std::vector<op>& ops, op_log& out) {
    using namespace kapi;
    auto note = [&](std::uint64_t v) {
        out.push_back(v);
        out.push_back(cpu::core::current().local_time().value());
    };
    // A bounded poll: its last value, how many reads, whether it timed out.
    auto note_poll = [&](const kapi::poll_result& r) {
        note(r.value | std::uint64_t(r.reads) << 32 | std::uint64_t(r.timed_out) << 63);
    };
    for (const op& o : ops) {
        switch (o.kind) {
        case op_kind::pl_write_dr:
            writeb(static_cast<std::uint8_t>('A' + o.arg % 26), pl_base + DR);
            note(0);
            break;
        // Half the loops name the bits they test (the UARTs may promise those for longer).
        case op_kind::pl_wait_not_busy:
            note(spin_while(
                readl, pl_base + FR, [](std::uint32_t v) { return (v & FR_BUSY) != 0; },
                o.arg & 1 ? FR_BUSY : 0));
            break;
        case op_kind::pl_wait_not_full:
            note(spin_while(
                readl, pl_base + FR, [](std::uint32_t v) { return (v & FR_TXFF) != 0; },
                o.arg & 1 ? FR_TXFF : 0));
            break;
        case op_kind::pl_poll_rx: {
            note_poll(poll_udelay(
                readl, pl_base + FR, [](std::uint32_t v) { return (v & FR_RXFE) != 0; }, 20 + o.arg % 200, 0,
                o.arg & 1 ? FR_RXFE : 0));
            break;
        }
        case op_kind::pl_read_dr:
            note(readl(pl_base + DR));
            break;
        case op_kind::pl_read_fr:
            note(readl(pl_base + FR));
            break;
        case op_kind::pl_write_imsc:
            writel(o.arg & 0x7F0, pl_base + IMSC);
            note(1);
            break;
        case op_kind::pl_write_icr:
            writel(o.arg & 0x7FF, pl_base + ICR);
            note(2);
            break;
        case op_kind::pl_read_mis:
            note(readl(pl_base + MIS));
            break;
        case op_kind::pl_wait_drained: { // until the other core has emptied the RX FIFO
            note_poll(poll_udelay(
                readl, pl_base + FR, [](std::uint32_t v) { return !(v & FR_RXFE); }, 20 + o.arg % 200, 0));
            break;
        }
        case op_kind::com_write_thr:
            outb(static_cast<std::uint8_t>('a' + o.arg % 26), com_port + RBR);
            note(3);
            break;
        case op_kind::com_wait_thre:
            note(spin_while(
                inb, com_port + LSR, [](std::uint32_t v) { return !(v & LSR_THRE); },
                o.arg & 1 ? LSR_THRE : 0));
            break;
        case op_kind::com_poll_dr: {
            note_poll(poll_udelay(
                inb, com_port + LSR, [](std::uint32_t v) { return !(v & LSR_DR); }, 10 + o.arg % 100, 0,
                o.arg & 1 ? LSR_DR : 0));
            break;
        }
        case op_kind::com_read_rbr:
            note(inb(com_port + RBR));
            break;
        case op_kind::com_read_lsr:
            note(inb(com_port + LSR));
            break;
        case op_kind::com_read_iir:
            note(inb(com_port + IIR));
            break;
        case op_kind::com_read_msr:
            note(inb(com_port + MSR));
            break;
        case op_kind::com_write_ier:
            outb(static_cast<std::uint8_t>(o.arg & 0x0F), com_port + IER);
            note(4);
            break;
        case op_kind::com_wait_drained: {
            note_poll(poll_udelay(
                inb, com_port + LSR, [](std::uint32_t v) { return (v & LSR_DR) != 0; }, 10 + o.arg % 100, 0));
            break;
        }
        case op_kind::com_wait_not_thri: { // until another reader of IIR has taken the THRE interrupt
            note_poll(poll_udelay(
                inb, com_port + IIR, [](std::uint32_t v) { return (v & 0x0F) == 0x02; }, 10 + o.arg % 100,
                0));
            break;
        }
        case op_kind::delay:
            ndelay(4 * (o.arg % 500));
            note(5);
            break;
        case op_kind::pl_literal_not_busy: {
            std::uint32_t v;
            while ((v = readl(pl_base + FR)) & FR_BUSY)
                cpu_relax();
            note(v);
            break;
        }
        case op_kind::pl_literal_not_full: {
            std::uint32_t v;
            while ((v = readl(pl_base + FR)) & FR_TXFF)
                cpu_relax();
            note(v);
            break;
        }
        case op_kind::pl_literal_rx: {
            std::uint32_t v = 0, n = 0;
            for (const std::uint32_t most = 20 + o.arg % 200; n < most; ++n) {
                if (!((v = readl(pl_base + FR)) & FR_RXFE)) break;
                cpu_relax();
            }
            note(v | std::uint64_t(n) << 32);
            break;
        }
        case op_kind::com_literal_thre: {
            std::uint8_t v;
            while (!((v = inb(com_port + LSR)) & LSR_THRE))
                cpu_relax();
            note(v);
            break;
        }
        case op_kind::count:
            break;
        }
    }
}

// Both platforms' UARTs: the PL011 clocked every cycle in reference mode, the 16550 at 24 MHz.
pl011_config pl011_cfg(bool reference) {
    pl011_config c;
    c.clock_every_cycle = reference;
    return c;
}
uart16550_config com_cfg() {
    uart16550_config c;
    c.clock_hz = 24'000'000;
    return c;
}

// One core's log of its script (values and times) in fast mode against reference mode; a fatal
// failure at the first difference.
void expect_same_ops(const op_log& fast, const op_log& ref, unsigned core) {
    ASSERT_EQ(fast.size(), ref.size()) << "core " << core;
    for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(fast[i], ref[i]) << "core " << core << ", entry " << i << " (" << (i % 2 ? "time" : "value")
                                   << " of op " << i / 2 << ")";
}

// Between the router and a UART: counts accesses that arrive at the same instant from different cores.
struct spy : sc_module {
    tlm_utils::simple_target_socket<spy, 32> in{"in"};
    tlm_utils::simple_initiator_socket<spy, 32> out{"out"};
    std::uint64_t same_time = 0;
    sc_time last_time = sc_max_time();
    unsigned last_from = 0;
    explicit spy(const sc_module_name& n)
        : sc_module(n) {
        in.register_b_transport(this, &spy::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
        const sc_time at = sc_time_stamp() + delay;
        const unsigned from = initiator_of(tx);
        if (at == last_time && from != last_from) ++same_time;
        last_time = at;
        last_from = from;
        out->b_transport(tx, delay);
    }
};

struct platform : sc_module {
    cpu::core cpu0, cpu1;
    router bus{"bus"};
    spy pl_spy{"pl_spy"}, com_spy{"com_spy"};
    pl011 uart;
    uart16550 com;
    sc_signal<bool> pl_txd{"pl_txd", true}, pl_irq{"pl_irq"}, pl_rxd{"pl_rxd", true};
    sc_signal<bool> com_txd{"com_txd", true}, com_irq{"com_irq"}, com_rxd{"com_rxd", true};
    rx_injector pl_inj{"pl_inj", baud, serial_format{}}, com_inj{"com_inj", baud, serial_format{}};
    std::vector<std::pair<std::uint64_t, int>> changes; // (time, signal and level)
    op_log seen[2];

    SC_HAS_PROCESS(platform);
    platform(const sc_module_name& n, bool reference, unsigned id0 = 0, unsigned id1 = 1)
        : sc_module(n)
        , cpu0("cpu0", id0, timing())
        , cpu1("cpu1", id1, timing())
        , uart("uart", pl011_cfg(reference))
        , com("com", com_cfg()) {
        cpu0.set_collapse_polls(!reference);
        cpu1.set_collapse_polls(!reference);
        cpu0.bus.bind(bus.target);
        cpu1.bus.bind(bus.target);
        bus.map(pl_spy.in, pl_base, pl011::map_size(), "pl011");
        bus.map(com_spy.in, cpu0.timing().io_base + com_port, com.map_size(), "com1");
        pl_spy.out.bind(uart.bus);
        com_spy.out.bind(com.bus);
        uart.txd(pl_txd), uart.irq(pl_irq), uart.rxd(pl_rxd);
        com.txd(com_txd), com.irq(com_irq), com.rxd(com_rxd);
        pl_inj.line(pl_rxd);
        com_inj.line(com_rxd);
        SC_METHOD(record);
        sensitive << pl_txd << pl_irq << com_txd << com_irq;
        dont_initialize();
    }
    void record() {
        const std::uint64_t t = sc_time_stamp().value();
        const int code = pl_txd.read() | pl_irq.read() << 1 | com_txd.read() << 2 | com_irq.read() << 3;
        changes.emplace_back(t, code);
    }
};

void setup_uarts() {
    using namespace kapi;
    writel(0, pl_base + CR);
    writel(1, pl_base + IBRD); // 24 MHz / (16 x 1.0) = 1.5 Mbaud
    writel(0, pl_base + FBRD);
    writel(0x70, pl_base + LCR_H); // 8N1, FIFOs on
    writel(0x12, pl_base + IFLS);
    writel(0x301, pl_base + CR); // UARTEN, TXE, RXE
    outb(0x80, com_port + LCR);
    outb(1, com_port + RBR); // DLL: divisor 1 = 1.5 Mbaud at 24 MHz
    outb(0, com_port + IER); // DLM
    outb(0x03, com_port + LCR);
    outb(0x07, com_port + FCR);
    outb(0x0B, com_port + MCR);
}

void add_tasks(platform& p, const std::vector<op>& s0, const std::vector<op>& s1) {
    p.cpu0.add_task("setup", [] { setup_uarts(); });
    p.cpu0.add_task("script", [&p, &s0] { run_script(s0, p.seen[0]); });
    p.cpu1.add_task("script", [&p, &s1] {
        kapi::ndelay(8000); // after core 0 has programmed the UARTs
        run_script(s1, p.seen[1]);
    });
    // Received text arrives while the cores poll, at times of their own.
    const std::string text = "received while two cores poll and pop";
    for (unsigned i = 0; i < 6; ++i) {
        p.pl_inj.send(text, sc_time(30 + 170 * i, SC_US));
        p.com_inj.send(text, sc_time(45 + 160 * i, SC_US));
    }
}

void run_twins(unsigned seed, unsigned ops) {
    const std::vector<op> s0 = script(seed, ops), s1 = script(seed + 1000, ops);
    platform fast("fast", false), ref("ref", true);
    add_tasks(fast, s0, s1);
    add_tasks(ref, s0, s1);
    sc_start(sc_time(50, SC_MS));
    ASSERT_TRUE(fast.cpu0.idle() && fast.cpu1.idle() && ref.cpu0.idle() && ref.cpu1.idle())
        << "a script did not finish";
    for (unsigned c = 0; c < 2; ++c) {
        expect_same_ops(fast.seen[c], ref.seen[c], c);
        if (::testing::Test::HasFatalFailure()) return;
        const cpu::core& f = c ? fast.cpu1 : fast.cpu0;
        const cpu::core& r = c ? ref.cpu1 : ref.cpu0;
        for (std::size_t t = 0; t < r.tasks().size(); ++t) {
            EXPECT_EQ(f.tasks()[t].mmio_reads, r.tasks()[t].mmio_reads) << "core " << c;
            EXPECT_EQ(f.tasks()[t].relax, r.tasks()[t].relax) << "core " << c;
            EXPECT_EQ(f.tasks()[t].end, r.tasks()[t].end) << "core " << c;
        }
    }
    EXPECT_EQ(fast.changes, ref.changes);
    std::printf("same-instant accesses: PL011 %llu, 16550 %llu; transactions fast %llu, reference %llu\n",
                (unsigned long long)ref.pl_spy.same_time, (unsigned long long)ref.com_spy.same_time,
                (unsigned long long)(fast.cpu0.transactions() + fast.cpu1.transactions()),
                (unsigned long long)(ref.cpu0.transactions() + ref.cpu1.transactions()));
    // The comparison means something only if the cores met on the same instants and loops collapsed.
    EXPECT_GT(ref.pl_spy.same_time, 0u);
    EXPECT_GT(ref.com_spy.same_time, 0u);
    EXPECT_LT(fast.cpu0.transactions() + fast.cpu1.transactions(),
              ref.cpu0.transactions() + ref.cpu1.transactions());
}

// What a run of one platform gives, flattened: every value read and time, each task's reads, relax
// count and end, every TXD/IRQ change.
std::vector<std::uint64_t> digest(const platform& p) {
    std::vector<std::uint64_t> d;
    for (unsigned c = 0; c < 2; ++c) {
        d.push_back(p.seen[c].size());
        d.insert(d.end(), p.seen[c].begin(), p.seen[c].end());
        const cpu::core& core = c ? p.cpu1 : p.cpu0;
        for (const cpu::task_stats& t : core.tasks())
            d.insert(d.end(), {t.mmio_reads, t.relax, t.end.value()});
    }
    d.push_back(p.changes.size());
    for (const auto& [t, code] : p.changes)
        d.insert(d.end(), {t, static_cast<std::uint64_t>(code)});
    return d;
}

// The same scripts, fast and reference mode each in a simulation of its own (reference in a child
// process): with nothing else in the simulation, literal loops' reads are answered from standing
// promises without synchronising, where the side-by-side run (the other platform busy at the same
// instants) must synchronise for each.
void run_twins_apart(unsigned seed, unsigned ops) {
    const std::vector<op> s0 = script(seed, ops), s1 = script(seed + 1000, ops);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        platform ref("ref", true);
        add_tasks(ref, s0, s1);
        sc_start(sc_time(50, SC_MS));
        std::vector<std::uint64_t> d = digest(ref);
        d.insert(d.begin(), ref.cpu0.idle() && ref.cpu1.idle());
        const std::uint64_t n = d.size();
        bool ok = write(fds[1], &n, sizeof n) == sizeof n;
        for (std::size_t i = 0; ok && i < d.size(); i += 4096) {
            const std::size_t len = std::min<std::size_t>(4096, d.size() - i) * sizeof(std::uint64_t);
            ok = write(fds[1], d.data() + i, len) == static_cast<ssize_t>(len);
        }
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    std::vector<std::uint64_t> ref;
    std::uint64_t n = 0;
    if (read(fds[0], &n, sizeof n) == sizeof n) {
        ref.resize(n);
        char* at = reinterpret_cast<char*>(ref.data());
        std::size_t left = n * sizeof(std::uint64_t);
        while (left) {
            const ssize_t got = read(fds[0], at, left);
            if (got <= 0) break;
            at += got;
            left -= static_cast<std::size_t>(got);
        }
        if (left) ref.clear();
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !ref.empty()) << "the reference run";
    ASSERT_EQ(ref[0], 1u) << "a reference script did not finish";
    ref.erase(ref.begin());
    platform fast("fast", false);
    add_tasks(fast, s0, s1);
    sc_start(sc_time(50, SC_MS));
    ASSERT_TRUE(fast.cpu0.idle() && fast.cpu1.idle()) << "a script did not finish";
    const std::vector<std::uint64_t> got = digest(fast);
    ASSERT_EQ(got.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(got[i], ref[i]) << "entry " << i << " of the digest";
    const std::uint64_t promised = fast.cpu0.promised_reads() + fast.cpu1.promised_reads();
    std::printf("reads answered from standing promises: %llu; transactions fast %llu\n",
                (unsigned long long)promised,
                (unsigned long long)(fast.cpu0.transactions() + fast.cpu1.transactions()));
    EXPECT_GT(promised, 1000u);
}

} // namespace

TEST(TwoCores, FastEqualsReferenceOnOnePl011AndOne16550Seed1) {
    UARTVP_SIM_TEST();
    run_twins(1, 3000);
}

TEST(TwoCores, LiteralLoopsFastInASimulationOfTheirOwnEqualReferenceSeed4) {
    UARTVP_SIM_TEST();
    run_twins_apart(4, 3000);
}

TEST(TwoCores, LiteralLoopsFastInASimulationOfTheirOwnEqualReferenceSeed5) {
    UARTVP_SIM_TEST();
    run_twins_apart(5, 3000);
}

TEST(TwoCores, FastEqualsReferenceOnOnePl011AndOne16550Seed2) {
    UARTVP_SIM_TEST();
    run_twins(2, 3000);
}

TEST(TwoCores, FastEqualsReferenceOnOnePl011AndOne16550Seed3) {
    UARTVP_SIM_TEST();
    run_twins(3, 3000);
}

// The rule itself, directed: core A polls FR until the RX FIFO is empty (collapsed in fast mode);
// core B pops the only character at the very instant of one of A's reads. That read comes before the
// pop if A's id is the lower one, after it otherwise: one read more or less, in both modes.
// k = 0: the poll's first read, a real one, meets the pop; its promise is broken before the poller
// waits for it. k = 37: a read the fast mode counts without a transaction meets it.
void pop_at_a_poll_read(std::uint64_t k) {
    platform fast_ab("fast_ab", false, 0, 1), ref_ab("ref_ab", true, 0, 1);
    platform fast_ba("fast_ba", false, 1, 0), ref_ba("ref_ba", true, 1, 0);
    const std::uint64_t t0_ns = 40'000, period_ns = 124; // 120 ns read + 4 cycles of cpu_relax
    std::map<platform*, unsigned long> reads;
    for (platform* p : {&fast_ab, &ref_ab, &fast_ba, &ref_ba}) {
        p->cpu0.add_task("setup", [] { setup_uarts(); });
        p->cpu0.add_task("poll", [p, &reads, t0_ns] {
            kapi::ndelay(
                static_cast<unsigned long>(t0_ns - cpu::core::current().local_time().value() / 1000));
            const auto r = kapi::poll_udelay(
                kapi::readl, pl_base + FR, [](std::uint32_t v) { return !(v & FR_RXFE); }, 1000, 0);
            reads[p] = r.reads;
            p->seen[0].push_back(cpu::core::current().local_time().value());
        });
        p->cpu1.add_task("pop", [p, t0_ns, k, period_ns] {
            kapi::ndelay(static_cast<unsigned long>(t0_ns + k * period_ns));
            p->seen[1].push_back(kapi::readl(pl_base + DR));
        });
        p->pl_inj.send("x", sc_time(20, SC_US)); // in the FIFO well before t0
    }
    sc_start(sc_time(1, SC_MS));
    for (platform* p : {&fast_ab, &ref_ab, &fast_ba, &ref_ba}) {
        ASSERT_EQ(p->seen[1].size(), 1u);
        EXPECT_EQ(p->seen[1][0] & 0xFF, unsigned('x')) << p->name();
    }
    EXPECT_EQ(reads[&ref_ab], k + 2) << "the poller's read of that instant came first and still saw data";
    EXPECT_EQ(reads[&ref_ba], k + 1) << "the pop came first";
    EXPECT_EQ(reads[&fast_ab], reads[&ref_ab]);
    EXPECT_EQ(reads[&fast_ba], reads[&ref_ba]);
    EXPECT_EQ(fast_ab.seen[0], ref_ab.seen[0]);
    EXPECT_EQ(fast_ba.seen[0], ref_ba.seen[0]);
    EXPECT_EQ(fast_ab.changes, ref_ab.changes);
}

TEST(TwoCores, FirstReadOfAPollAtTheInstantOfAnotherCoresPopIsOrderedByInitiatorId) {
    UARTVP_SIM_TEST();
    pop_at_a_poll_read(0);
}

TEST(TwoCores, CountedReadAtTheInstantOfAnotherCoresPopIsOrderedByInitiatorId) {
    UARTVP_SIM_TEST();
    pop_at_a_poll_read(37);
}

// A BUSY loop that names its bit, directed: core 0 writes a character and waits with
// spin_while(FR, BUSY set, BUSY) (fast mode: the PL011 promises BUSY until the character ends); core 1
// writes a second character into the FIFO in the middle of the first (a break of that promise: BUSY
// now holds for both). The loop's reads, its value and its end time, core 1's, and the line must be
// those of reference mode and of the literal loop, which fast mode answers from standing promises,
// with a handful of transactions instead of one per read.
void named_busy_loop_with_a_second_writer(unsigned second_write_ns) {
    platform fast_named("fast_named", false), ref_named("ref_named", true),
        fast_literal("fast_literal", false), ref_literal("ref_literal", true);
    for (platform* p : {&fast_named, &ref_named, &fast_literal, &ref_literal}) {
        const bool named = p == &fast_named || p == &ref_named;
        p->cpu0.add_task("setup", [] { setup_uarts(); });
        p->cpu0.add_task("wait", [p, named] {
            using namespace kapi;
            ndelay(20'000);
            writeb('a', pl_base + DR);
            const std::uint64_t before = cpu::core::current().transactions();
            std::uint32_t v;
            if (named) {
                v = spin_while(
                    readl, pl_base + FR, [](std::uint32_t fr) { return (fr & FR_BUSY) != 0; }, FR_BUSY);
            } else {
                while ((v = readl(pl_base + FR)) & FR_BUSY)
                    cpu_relax();
            }
            p->seen[0].insert(p->seen[0].end(), {v, cpu::core::current().local_time().value(),
                                                 cpu::core::current().transactions() - before});
        });
        p->cpu1.add_task("write", [p, second_write_ns] {
            kapi::ndelay(20'000 + second_write_ns);
            kapi::writeb('b', pl_base + DR);
            p->seen[1].push_back(cpu::core::current().local_time().value());
        });
    }
    sc_start(sc_time(1, SC_MS));
    const platform& ref = ref_literal;
    ASSERT_EQ(ref.seen[0].size(), 3u);
    EXPECT_FALSE(ref.seen[0][0] & FR_BUSY);
    EXPECT_GE(ref.cpu0.tasks()[1].mmio_reads, 90u) << "the loop spans two characters, 6.7 us each";
    for (const platform* p : {&fast_named, &ref_named, &fast_literal}) {
        EXPECT_EQ(p->seen[0][0], ref.seen[0][0]) << p->name() << ": the value the loop ends with";
        EXPECT_EQ(p->seen[0][1], ref.seen[0][1]) << p->name() << ": the loop's end time";
        EXPECT_EQ(p->seen[1], ref.seen[1]) << p->name();
        EXPECT_EQ(p->cpu0.tasks()[1].mmio_reads, ref.cpu0.tasks()[1].mmio_reads) << p->name();
        EXPECT_EQ(p->cpu0.tasks()[1].relax, ref.cpu0.tasks()[1].relax) << p->name();
        EXPECT_EQ(p->cpu0.tasks()[1].end, ref.cpu0.tasks()[1].end) << p->name();
        EXPECT_EQ(p->changes, ref.changes) << p->name();
    }
    // Named: the first read (BUSY until the first character ends), the one after the second write
    // broke that promise, and the reads where each character ends.
    EXPECT_LE(fast_named.seen[0][2], 5u) << "transactions of the named loop";
    std::printf("transactions of the loop: named %llu, literal %llu (fast), reference %llu\n",
                (unsigned long long)fast_named.seen[0][2], (unsigned long long)fast_literal.seen[0][2],
                (unsigned long long)ref.seen[0][2]);
}

TEST(TwoCores, LoopNamingBusyEqualsTheLiteralLoopWithASecondWriterMidCharacter) {
    UARTVP_SIM_TEST();
    named_busy_loop_with_a_second_writer(3'000);
}

TEST(TwoCores, LoopNamingBusyEqualsTheLiteralLoopWithASecondWriterAtTheFirstsStart) {
    UARTVP_SIM_TEST();
    named_busy_loop_with_a_second_writer(200);
}

// The same two cores inside the kernel model, with the UARTs' interrupts wired: the PL011's to CPU0,
// the 16550's to CPU1, each handler draining its RX FIFO. Received characters raise interrupts while
// the scripts poll, so interrupts arrive during collapsed polling loops (fast mode) as during literal
// ones (reference mode): handler entry times, every value, every end time must be the same.
struct irq_platform : sc_module {
    cpu::machine m;
    router bus{"bus"};
    pl011 uart;
    uart16550 com;
    sc_signal<bool> pl_txd{"pl_txd", true}, pl_irq{"pl_irq"}, pl_rxd{"pl_rxd", true};
    sc_signal<bool> com_txd{"com_txd", true}, com_irq{"com_irq"}, com_rxd{"com_rxd", true};
    rx_injector pl_inj{"pl_inj", baud, serial_format{}}, com_inj{"com_inj", baud, serial_format{}};
    std::vector<std::pair<std::uint64_t, int>> changes;
    op_log seen[2], handled[2]; // per core: the order across cores is no simulated quantity
    int pl_line = -1, com_line = -1, ext_line = -1;
    sc_signal<bool, SC_MANY_WRITERS> ext{"ext", false}; // raised by the test, cleared by its handler

    SC_HAS_PROCESS(irq_platform);
    irq_platform(const sc_module_name& n, bool reference)
        : sc_module(n)
        , m("machine", 2, timing(),
            [] {
                cpu::kernel_params p;
                p.irq_entry = sc_time(240, SC_NS);
                p.irq_exit = sc_time(160, SC_NS);
                return p;
            }())
        , uart("uart", pl011_cfg(reference))
        , com("com", com_cfg()) {
        for (auto& c : m.cores) {
            c->set_collapse_polls(!reference);
            c->bus.bind(bus.target);
        }
        bus.map(uart.bus, pl_base, pl011::map_size(), "pl011");
        bus.map(com.bus, m.cpu(0).timing().io_base + com_port, com.map_size(), "com1");
        uart.txd(pl_txd), uart.irq(pl_irq), uart.rxd(pl_rxd);
        com.txd(com_txd), com.irq(com_irq), com.rxd(com_rxd);
        pl_inj.line(pl_rxd);
        com_inj.line(com_rxd);
        pl_line = m.add_irq_line(pl_irq, "uart-pl011", 0);
        com_line = m.add_irq_line(com_irq, "serial", 1);
        ext_line = m.add_irq_line(ext, "ext", 0);
        SC_METHOD(record);
        sensitive << pl_txd << pl_irq << com_txd << com_irq;
        dont_initialize();
    }
    void record() {
        const int code = pl_txd.read() | pl_irq.read() << 1 | com_txd.read() << 2 | com_irq.read() << 3;
        changes.emplace_back(sc_time_stamp().value(), code);
    }
};

void run_irq_twins(unsigned seed, unsigned ops) {
    const std::vector<op> s0 = script(seed, ops), s1 = script(seed + 1000, ops);
    irq_platform fast("fast", false), ref("ref", true);
    for (irq_platform* p : {&fast, &ref}) {
        p->m.cpu(0).create_task("setup", [p] {
            using namespace kapi;
            setup_uarts();
            request_irq(
                p->pl_line,
                [p](int, void*) {
                    const std::uint32_t mis = readl(pl_base + MIS);
                    while (!(readl(pl_base + FR) & FR_RXFE))
                        p->handled[0].push_back(readl(pl_base + DR));
                    writel(mis, pl_base + ICR);
                    p->handled[0].push_back(cpu::core::current().local_time().value());
                    return IRQ_HANDLED;
                },
                0, "uart-pl011", p);
            writel(0x50, pl_base + IMSC); // RX and RT
        });
        p->m.cpu(0).create_task("script", [p, &s0] { run_script(s0, p->seen[0]); });
        p->m.cpu(1).create_task("script", [p, &s1] {
            using namespace kapi;
            ndelay(8000);
            request_irq(
                p->com_line,
                [p](int, void*) {
                    const std::uint8_t iir = inb(com_port + IIR);
                    while (inb(com_port + LSR) & LSR_DR)
                        p->handled[1].push_back(inb(com_port + RBR) | 0x100);
                    p->handled[1].push_back(iir | std::uint64_t(cpu::core::current().local_time().value())
                                                      << 8);
                    return IRQ_HANDLED;
                },
                0, "serial", p);
            outb(0x01, com_port + IER); // received data available
            run_script(s1, p->seen[1]);
        });
        const std::string text = "interrupts while two cores poll";
        for (unsigned i = 0; i < 6; ++i) {
            p->pl_inj.send(text, sc_time(30 + 170 * i, SC_US));
            p->com_inj.send(text, sc_time(45 + 160 * i, SC_US));
        }
    }
    sc_start(sc_time(50, SC_MS));
    for (irq_platform* p : {&fast, &ref})
        ASSERT_TRUE(p->m.cpu(0).idle() && p->m.cpu(1).idle()) << p->name() << ": a script did not finish";
    EXPECT_GT(ref.m.irq_lines()[0].count, 3u) << "the PL011's interrupt was taken";
    EXPECT_GT(ref.m.irq_lines()[1].count, 3u) << "the 16550's interrupt was taken";
    for (unsigned c = 0; c < 2; ++c) {
        for (std::size_t i = 0; i < std::min(fast.handled[c].size(), ref.handled[c].size()); ++i)
            ASSERT_EQ(fast.handled[c][i], ref.handled[c][i]) << "core " << c << ", handler record " << i;
        EXPECT_EQ(fast.handled[c].size(), ref.handled[c].size());
    }
    for (unsigned c = 0; c < 2; ++c) {
        expect_same_ops(fast.seen[c], ref.seen[c], c);
        if (::testing::Test::HasFatalFailure()) return;
        EXPECT_EQ(fast.m.cpu(c).stats().hardirq, ref.m.cpu(c).stats().hardirq);
    }
    for (std::size_t l = 0; l < 2; ++l) {
        EXPECT_EQ(fast.m.irq_lines()[l].count, ref.m.irq_lines()[l].count);
        EXPECT_EQ(fast.m.irq_lines()[l].latency_max, ref.m.irq_lines()[l].latency_max);
    }
    EXPECT_EQ(fast.changes, ref.changes);
    std::printf("interrupts: PL011 %llu, 16550 %llu; transactions fast %llu, reference %llu\n",
                (unsigned long long)ref.m.irq_lines()[0].count,
                (unsigned long long)ref.m.irq_lines()[1].count,
                (unsigned long long)(fast.m.cpu(0).transactions() + fast.m.cpu(1).transactions()),
                (unsigned long long)(ref.m.cpu(0).transactions() + ref.m.cpu(1).transactions()));
}

TEST(TwoCoresWithInterrupts, FastEqualsReferenceWithRxInterruptsDuringPollingSeed1) {
    UARTVP_SIM_TEST();
    run_irq_twins(11, 3000);
}

TEST(TwoCoresWithInterrupts, FastEqualsReferenceWithRxInterruptsDuringPollingSeed2) {
    UARTVP_SIM_TEST();
    run_irq_twins(12, 3000);
}

// Directed: an interrupt raised at the very instant of a read that fast mode counts without a
// transaction. The literal loop issues that read first (it reaches the instant by its own wait and
// cannot see an interrupt raised then), so the handler sees k + 1 reads done, in both modes.
TEST(TwoCoresWithInterrupts, InterruptAtTheInstantOfACountedReadComesAfterThatRead) {
    UARTVP_SIM_TEST();
    irq_platform fast("fast", false), ref("ref", true);
    const std::uint64_t k = 25, period_ps = 124'000;
    struct result {
        sc_time first_read, entered;
        std::uint64_t reads_before = 0, reads_total = 0;
        sc_time end;
    } r[2];
    irq_platform* ps[2] = {&fast, &ref};
    for (int i = 0; i < 2; ++i) {
        irq_platform* p = ps[i];
        result* res = &r[i];
        p->m.cpu(0).create_task("boot", [p, res, k, period_ps] {
            using namespace kapi;
            setup_uarts();
            request_irq(
                p->ext_line,
                [p, res](int, void*) {
                    res->entered = cpu::core::current().local_time();
                    res->reads_before = cpu::core::current().tasks()[0].mmio_reads;
                    p->ext.write(false);
                    return IRQ_HANDLED;
                },
                0, "ext", p);
            writeb('x', pl_base + DR);
            cpu::core::current().sync();
            res->first_read = cpu::core::current().local_time();
            const sc_time at = res->first_read + sc_time::from_value(k * period_ps);
            sc_spawn([p, at] {
                sc_core::wait(at - sc_time_stamp());
                p->ext.write(true);
            });
            const std::uint64_t before = cpu::core::current().tasks()[0].mmio_reads;
            spin_while(readl, pl_base + FR, [](std::uint32_t v) { return (v & FR_BUSY) != 0; });
            res->reads_total = cpu::core::current().tasks()[0].mmio_reads - before;
            res->reads_before -= before;
            cpu::core::current().sync();
            res->end = cpu::core::current().local_time();
        });
    }
    sc_start(sc_time(1, SC_MS));
    const sc_time at = r[1].first_read + sc_time::from_value(k * period_ps);
    EXPECT_EQ(r[1].entered, at + sc_time(240, SC_NS));
    EXPECT_EQ(r[1].reads_before, k + 1) << "the read of that instant came first";
    EXPECT_GT(r[1].reads_total, k + 10);
    EXPECT_EQ(r[0].first_read, r[1].first_read);
    EXPECT_EQ(r[0].entered, r[1].entered);
    EXPECT_EQ(r[0].reads_before, r[1].reads_before);
    EXPECT_EQ(r[0].reads_total, r[1].reads_total);
    EXPECT_EQ(r[0].end, r[1].end);
    EXPECT_LT(fast.m.cpu(0).transactions(), ref.m.cpu(0).transactions() / 2)
        << "fast mode collapsed the loop; reads " << r[0].reads_total << " and " << r[1].reads_total;
}
