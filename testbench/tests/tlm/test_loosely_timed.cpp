// SPDX-License-Identifier: Apache-2.0
// Loosely timed use of both UARTs (pl011_config::loosely_timed, uart16550_config::loosely_timed): an
// initiator with a tlm_quantumkeeper against the synchronising mode on the same traffic, an input change
// inside a quantum, late accesses, b_transport from an SC_METHOD, and DMI refused.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/uart16550.h>

#include "sim_main.h"
#include "tlm_payload.h"
#include "uart_pair.h"

using namespace uartvp;
using namespace sc_core;

namespace {

using uartvp::test::set_access;

constexpr std::uint64_t com_base = 0x1000;
// PL011 registers
constexpr std::uint64_t DR = 0x00, FR = 0x18, IBRD = 0x24, FBRD = 0x28, LCRH = 0x2C, CR = 0x30, IMSC = 0x38,
                        RIS = 0x3C, MIS = 0x40, ICR = 0x44;
constexpr std::uint32_t FR_TXFF = 0x20, FR_CTS = 0x01;
// 16550 registers (stride 1)
constexpr std::uint64_t THR = 0, IER = 1, IIR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6;
constexpr std::uint32_t LSR_THRE = 0x20, MSR_CTS = 0x10;

// An initiator whose accesses and costs go through a tlm_quantumkeeper, as a loosely timed CPU model's
// do. Against a synchronising target the keeper's local time is only ever the last access's latency.
struct qk_cpu : sc_module {
    tlm_utils::simple_initiator_socket<qk_cpu> socket{"socket"};
    tlm_utils::tlm_quantumkeeper qk;
    // Value and completion time (ps) of every access, in order.
    std::vector<std::uint64_t> seen;
    std::uint64_t syncs = 0;

    explicit qk_cpu(const sc_module_name& n)
        : sc_module(n) {
        qk.reset();
    }
    std::uint32_t access(bool write, std::uint64_t addr, std::uint32_t v, unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time d = qk.get_local_time();
        set_access(tx, write, addr, v, len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, d);
        EXPECT_TRUE(tx.is_response_ok()) << name() << " " << std::hex << addr;
        qk.set(d);
        if (len == 1) v &= 0xFF;
        seen.push_back(write ? 0 : v);
        seen.push_back(qk.get_current_time().value());
        keep_quantum();
        return v;
    }
    std::uint32_t rd(std::uint64_t a, unsigned len = 4) { return access(false, a, 0, len); }
    void wr(std::uint64_t a, std::uint32_t v, unsigned len = 4) { access(true, a, v, len); }
    void cost(const sc_time& t) {
        qk.inc(t);
        keep_quantum();
    }
    void keep_quantum() {
        if (qk.need_sync()) {
            qk.sync();
            ++syncs;
        }
    }
};

// Every change of each signal, with its time. (Changes of different signals at one time may come in
// different delta cycles from one run to another: each signal has its own list.)
struct change_log {
    std::map<std::string, std::vector<std::string>> lines;
    std::size_t count() const {
        std::size_t n = 0;
        for (const auto& [name, l] : lines)
            n += l.size();
        return n;
    }
    template <class T> void watch(const sc_signal<T>& s, const std::string& name) {
        sc_spawn_options o;
        o.spawn_method();
        o.dont_initialize();
        o.set_sensitivity(&s.value_changed_event());
        sc_spawn(
            [this, &s, name] {
                lines[name].push_back(sc_time_stamp().to_string() + " " + name + "=" +
                                      std::to_string(s.read()));
            },
            nullptr, &o);
    }
};

pl011_config pl_cfg(bool lt, bool reference = false, bool txd_edges = true) {
    pl011_config c;
    c.loosely_timed = lt;
    c.clock_every_cycle = reference;
    c.txd_edges = txd_edges;
    return c;
}
uart16550_config com_cfg(bool lt) {
    uart16550_config c;
    c.loosely_timed = lt;
    return c;
}

// One PL011 and one 16550 on a router, driven by a quantum-keeper initiator.
struct platform : sc_module {
    qk_cpu cpu{"cpu"};
    router bus{"bus"};
    pl011 pl;
    uart16550 com;
    sc_signal<bool> pl_txd{"pl_txd", true}, pl_rxd{"pl_rxd", true}, pl_irq{"pl_irq"};
    sc_signal<bool> com_txd{"com_txd", true}, com_rxd{"com_rxd", true}, com_irq{"com_irq"};
    sc_signal<bool> pl_ncts{"pl_ncts", true}, com_ncts{"com_ncts", true};
    line_monitor pl_mon{"pl_mon", 24e6 / (16 * (13 + 1.0 / 64)), serial_format{}};
    line_monitor com_mon{"com_mon", 115200, serial_format{}};
    change_log log;

    // txd_edges false: the PL011's line goes to its monitor as characters (report_line()).
    platform(const sc_module_name& n, bool lt, bool reference = false, bool txd_edges = true)
        : sc_module(n)
        , pl("pl", pl_cfg(lt, reference, txd_edges))
        , com("com", com_cfg(lt)) {
        cpu.socket.bind(bus.target);
        bus.map(pl.bus, 0, pl.map_size(), "pl");
        bus.map(com.bus, com_base, com.map_size(), "com");
        pl.txd(pl_txd);
        pl.rxd(pl_rxd);
        pl.irq(pl_irq);
        pl.ncts(pl_ncts);
        com.txd(com_txd);
        com.rxd(com_rxd);
        com.irq(com_irq);
        com.ncts(com_ncts);
        pl_mon.line(pl_txd);
        if (!txd_edges) {
            pl.report_line(pl_mon);
            pl_mon.take_characters(true);
        }
        com_mon.line(com_txd);
        pl_mon.keep_text(true);
        com_mon.keep_text(true);
        log.watch(pl_txd, "pl.txd");
        log.watch(pl_irq, "pl.irq");
        log.watch(pl.tx_fifo_level, "pl.tx_level");
        log.watch(pl.rx_fifo_level, "pl.rx_level");
        log.watch(pl.busy, "pl.busy");
        log.watch(pl.rxfe, "pl.rxfe");
        log.watch(com_txd, "com.txd");
        log.watch(com_irq, "com.irq");
        log.watch(com.tx_fifo_level, "com.tx_level");
        log.watch(com.rx_fifo_level, "com.rx_level");
        log.watch(com.thre, "com.thre");
        log.watch(com.temt, "com.temt");
    }
};

void setup(qk_cpu& c) {
    c.wr(IBRD, 13);
    c.wr(FBRD, 1);
    c.wr(LCRH, 0x70); // 8N1, FIFOs
    c.wr(CR, 0x301);  // UARTEN, TXE, RXE
    c.wr(com_base + LCR, 0x83, 1);
    c.wr(com_base + THR, 1, 1); // DLL: 115200
    c.wr(com_base + LCR, 0x03, 1);
    c.wr(com_base + IIR, 0x07, 1); // FCR: FIFOs on, cleared
}

// Random traffic on both UARTs: polled transmission, status and data reads (loopback feeds the
// receivers without an input change), interrupt masks and clears, CPU costs between accesses.
void traffic(qk_cpu& c, unsigned seed, unsigned ops) {
    std::uint32_t x = seed * 2654435761u + 1;
    auto rnd = [&x](unsigned n) {
        x = x * 1664525u + 1013904223u;
        return (x >> 8) % n;
    };
    setup(c);
    for (unsigned i = 0; i < ops; ++i) {
        switch (rnd(16)) {
        case 0:
        case 1:
        case 2:
            for (int k = 0; k < 64 && (c.rd(FR) & FR_TXFF); ++k)
                c.cost(sc_time(2, SC_US));
            c.wr(DR, 'a' + rnd(26), 1 + rnd(2) * 3);
            break;
        case 3:
        case 4:
            for (int k = 0; k < 64 && !(c.rd(com_base + LSR, 1) & LSR_THRE); ++k)
                c.cost(sc_time(2, SC_US));
            c.wr(com_base + THR, 'A' + rnd(26), 1);
            break;
        case 5:
            c.rd(FR);
            break;
        case 6:
            c.rd(DR);
            break;
        case 7:
            c.rd(rnd(2) ? RIS : MIS);
            break;
        case 8:
            c.wr(rnd(2) ? ICR : IMSC, rnd(0x800));
            break;
        case 9:
            if (rnd(8) == 0) c.wr(CR, 0x301 | rnd(2) << 7); // loopback on or off
            break;
        case 10:
            c.rd(com_base + THR, 1);
            break; // RBR
        case 11:
            c.rd(com_base + LSR, 1);
            break;
        case 12:
            c.rd(com_base + IIR, 1);
            break;
        case 13:
            c.wr(com_base + IER, rnd(16), 1);
            break;
        case 14:
            if (rnd(8) == 0) c.wr(com_base + MCR, 0x0B | rnd(2) << 4, 1); // loopback on or off
            break;
        default:
            c.rd(com_base + MSR, 1);
            break;
        }
        c.cost(sc_time(rnd(4000), SC_NS));
    }
    c.cost(sc_time(3, SC_MS)); // let the lines drain
    c.rd(FR);
    c.rd(com_base + LSR, 1);
    c.qk.sync();
}

// `reference`: the loosely timed PL011 clocked cycle by cycle (against the synchronising fast mode);
// `txd_edges` false: both PL011s report their line as characters.
void run_against_synchronising(unsigned seed, unsigned ops, const sc_time& quantum, bool reference = false,
                               bool txd_edges = true) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(quantum);
    platform sync("sync", false, false, txd_edges), lt("lt", true, reference, txd_edges);
    std::vector<std::string> sync_chars, lt_chars; // each character's data and start time
    sync.pl_mon.on_char([&](const decoded_char& c) {
        sync_chars.push_back(std::to_string(c.data) + "@" + c.start.to_string());
    });
    lt.pl_mon.on_char([&](const decoded_char& c) {
        lt_chars.push_back(std::to_string(c.data) + "@" + c.start.to_string());
    });
    sc_spawn([&] { traffic(sync.cpu, seed, ops); });
    sc_spawn([&] { traffic(lt.cpu, seed, ops); });
    sc_start(sc_time(1, SC_SEC));
    ASSERT_EQ(lt.cpu.seen.size(), sync.cpu.seen.size());
    for (std::size_t i = 0; i < sync.cpu.seen.size(); ++i)
        ASSERT_EQ(lt.cpu.seen[i], sync.cpu.seen[i])
            << (i % 2 ? "completion time (ps)" : "value") << " of access " << i / 2;
    ASSERT_EQ(lt.log.lines.size(), sync.log.lines.size());
    for (const auto& [name, ref] : sync.log.lines) {
        const std::vector<std::string>& got = lt.log.lines[name];
        EXPECT_EQ(got.size(), ref.size()) << name;
        for (std::size_t i = 0; i < std::min(got.size(), ref.size()); ++i)
            ASSERT_EQ(got[i], ref[i]) << "change " << i << " of " << name;
    }
    EXPECT_EQ(lt.pl_mon.text(), sync.pl_mon.text());
    EXPECT_EQ(lt_chars, sync_chars);
    EXPECT_EQ(lt.com_mon.text(), sync.com_mon.text());
    EXPECT_EQ(lt.pl.late_accesses(), 0u);
    EXPECT_EQ(lt.com.late_accesses(), 0u);
    std::printf("accesses %zu, output changes %zu, PL011 chars %zu, 16550 chars %zu; "
                "the loosely timed initiator synchronised %llu times\n",
                sync.cpu.seen.size() / 2, sync.log.count(), sync.pl_mon.text().size(),
                sync.com_mon.text().size(), (unsigned long long)lt.cpu.syncs);
    // The comparison means something only with characters on both lines, data read back, interrupts
    // seen, and the loosely timed initiator running ahead across many accesses between syncs.
    EXPECT_GT(sync.pl_mon.text().size(), 50u);
    EXPECT_GT(sync.com_mon.text().size(), 50u);
    EXPECT_LT(lt.cpu.syncs * 4, sync.cpu.seen.size() / 2);
    bool irq_seen = false;
    for (const std::string& l : sync.log.lines["pl.irq"])
        irq_seen |= l.find("pl.irq=1") != std::string::npos;
    EXPECT_TRUE(irq_seen);
    EXPECT_GT(sync.log.lines["com.irq"].size(), 10u);
    EXPECT_GT(sync.log.lines["pl.rx_level"].size(), 10u) << "data came back through loopback";
    EXPECT_GT(sync.log.lines["com.rx_level"].size(), 10u) << "data came back through loopback";
}

} // namespace

TEST(LooselyTimed, QuantumKeeperInitiatorMatchesSynchronisingModeQuantum10us) {
    UARTVP_SIM_TEST();
    run_against_synchronising(1, 3000, sc_time(10, SC_US));
}

TEST(LooselyTimed, QuantumKeeperInitiatorMatchesSynchronisingModeQuantum1ms) {
    UARTVP_SIM_TEST();
    run_against_synchronising(2, 3000, sc_time(1, SC_MS));
}

TEST(LooselyTimed, WithTheLineAsCharactersItMatchesTheSynchronisingMode) {
    UARTVP_SIM_TEST();
    run_against_synchronising(4, 3000, sc_time(1, SC_MS), false, false);
}

TEST(LooselyTimed, ClockedEveryCycleItMatchesTheSynchronisingFastMode) {
    UARTVP_SIM_TEST();
    run_against_synchronising(3, 1500, sc_time(100, SC_US), true);
}

namespace {
// Reads CTS through FR and MSR while the input changes at 30 us of SystemC time, inside the
// initiator's quantum (1 ms): the reads whose local time lies past 30 us but which are issued before
// the initiator's next sync still see the old level; the first access after the sync sees the new.
struct cts_reader : sc_module {
    qk_cpu cpu{"cpu"};
    router bus{"bus"};
    pl011 pl{"pl", pl_cfg(true)};
    uart16550 com{"com", com_cfg(true)};
    test::uart_pair_pins pins{pl, com};
    sc_signal<bool> ncts{"ncts", true};
    struct sample {
        sc_time local, sim;
        bool pl_cts, com_cts;
    };
    std::vector<sample> samples;
    SC_HAS_PROCESS(cts_reader);
    explicit cts_reader(const sc_module_name& n)
        : sc_module(n) {
        cpu.socket.bind(bus.target);
        bus.map(pl.bus, 0, pl.map_size(), "pl");
        bus.map(com.bus, com_base, com.map_size(), "com");
        pl.ncts(ncts);
        com.ncts(ncts);
        SC_THREAD(drive);
        SC_THREAD(poll);
    }
    void drive() {
        wait(30, SC_US);
        ncts.write(false); // CTS asserted
    }
    void poll() {
        for (int i = 0; i < 200; ++i) {
            const bool p = cpu.rd(FR) & FR_CTS;
            const bool c = cpu.rd(com_base + MSR, 1) & MSR_CTS;
            samples.push_back({cpu.qk.get_current_time(), sc_time_stamp(), p, c});
            cpu.cost(sc_time(10, SC_US));
        }
    }
};
} // namespace

TEST(LooselyTimed, AnInputChangeInsideAQuantumIsSeenByTheNextAccessAfterIt) {
    UARTVP_SIM_TEST();
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_MS));
    cts_reader r("r");
    sc_start(sc_time(10, SC_MS));
    ASSERT_EQ(r.samples.size(), 200u);
    const sc_time change(30, SC_US);
    std::size_t first_new = r.samples.size();
    for (std::size_t i = 0; i < r.samples.size(); ++i) {
        const auto& s = r.samples[i];
        // Issued before SystemC time reached the change: the old level, whatever the local time.
        if (s.sim < change) {
            EXPECT_FALSE(s.pl_cts) << "sample " << i << " at local " << s.local;
            EXPECT_FALSE(s.com_cts) << "sample " << i << " at local " << s.local;
        } else {
            EXPECT_TRUE(s.pl_cts) << "sample " << i << " at local " << s.local;
            EXPECT_TRUE(s.com_cts) << "sample " << i << " at local " << s.local;
            if (first_new == r.samples.size()) first_new = i;
        }
    }
    // Some reads had local times past the change yet saw the old level (inside the quantum), and the
    // first access after the sync saw the new one: at most one quantum after the change.
    ASSERT_LT(first_new, r.samples.size());
    EXPECT_GT(r.samples[first_new - 1].local, change);
    EXPECT_LE(r.samples[first_new].local, change + sc_time(1, SC_MS) + sc_time(20, SC_US));
}

namespace {
// Two loosely timed initiators on one UART: A runs ahead (local time 200 us at SystemC time 0), then B
// writes at local time 10 us, earlier than the model's time: B's write is applied at the model's time
// (its delay says so) and counted.
struct two_initiators : sc_module {
    qk_cpu a{"a"}, b{"b"};
    router bus{"bus"};
    pl011 pl{"pl", pl_cfg(true)};
    uart16550 com{"com", com_cfg(true)};
    test::uart_pair_pins pins{pl, com};
    sc_time a_pl, a_com, b_pl, b_com;
    SC_HAS_PROCESS(two_initiators);
    explicit two_initiators(const sc_module_name& n)
        : sc_module(n) {
        a.socket.bind(bus.target);
        b.socket.bind(bus.target);
        bus.map(pl.bus, 0, pl.map_size(), "pl");
        bus.map(com.bus, com_base, com.map_size(), "com");
        SC_THREAD(run_a);
        SC_THREAD(run_b);
    }
    void run_a() {
        a.cost(sc_time(200, SC_US));
        a.wr(com_base + IER, 0x01, 1);
        a_com = a.qk.get_current_time();
        a.wr(IMSC, 0x10);
        a_pl = a.qk.get_current_time();
    }
    void run_b() {
        wait(SC_ZERO_TIME); // after A's accesses, still at SystemC time 0
        b.cost(sc_time(10, SC_US));
        b.wr(com_base + 7, 0x55, 1); // SCR
        b_com = b.qk.get_current_time();
        b.wr(ICR, 0x7FF); // at local time b_com, earlier than A's PL011 edge
        b_pl = b.qk.get_current_time();
    }
};
} // namespace

TEST(LooselyTimed, AnAccessEarlierThanTheModelsTimeIsAppliedAtTheModelsTimeAndCounted) {
    UARTVP_SIM_TEST();
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_MS));
    two_initiators t("t");
    sc_start(sc_time(2, SC_MS));
    EXPECT_EQ(t.pl.late_accesses(), 1u);
    EXPECT_EQ(t.com.late_accesses(), 1u);
    // A's write took the PL011's edge after 200 us; B's lands on the edge after that one.
    const sc_time period = t.pl.clock().time_of(1);
    EXPECT_GT(t.a_pl, sc_time(200, SC_US));
    EXPECT_LE(t.a_pl, sc_time(200, SC_US) + period);
    EXPECT_EQ(t.b_pl, t.pl.clock().time_of(t.pl.clock().edge_at_or_after(t.a_pl) + 1));
    // The 16550 answers at its time: B's access completes at A's (the model's) time, not at 10 us.
    EXPECT_EQ(t.a_com, sc_time(200, SC_US));
    EXPECT_EQ(t.b_com, t.a_com);
}

namespace {
// b_transport from an SC_METHOD: loosely timed, it must not wait (SystemC would stop the simulation
// with an error if it did). The method programs the PL011 and writes one character, its local time
// growing with each access's latency; the line then carries the character.
struct method_initiator : sc_module {
    tlm_utils::simple_initiator_socket<method_initiator> socket{"socket"};
    pl011 pl{"pl", pl_cfg(true)};
    uart16550 com{"com", com_cfg(true)};
    tlm_utils::simple_initiator_socket<method_initiator> com_socket{"com_socket"};
    test::uart_pair_lines lines{pl, com};
    SC_HAS_PROCESS(method_initiator);
    explicit method_initiator(const sc_module_name& n)
        : sc_module(n) {
        socket.bind(pl.bus);
        com_socket.bind(com.bus);
        SC_METHOD(program);
    }
    void access(tlm_utils::simple_initiator_socket<method_initiator>& s, std::uint64_t addr, std::uint32_t v,
                unsigned len, sc_time& local) {
        tlm::tlm_generic_payload tx;
        set_access(tx, true, addr, v, len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        local += sc_time(1, SC_US);
        s->b_transport(tx, local);
        EXPECT_TRUE(tx.is_response_ok());
    }
    void program() {
        sc_time local = SC_ZERO_TIME;
        access(socket, IBRD, 13, 4, local);
        access(socket, FBRD, 1, 4, local);
        access(socket, LCRH, 0x70, 4, local);
        access(socket, CR, 0x301, 4, local);
        access(socket, DR, 'M', 1, local);
        access(com_socket, LCR, 0x83, 1, local);
        access(com_socket, THR, 1, 1, local);
        access(com_socket, LCR, 0x03, 1, local);
        access(com_socket, THR, 'm', 1, local);
        done_at = local;
    }
    sc_time done_at;
};
} // namespace

TEST(LooselyTimed, BTransportNeverWaitsAndServesAnScMethod) {
    UARTVP_SIM_TEST();
    method_initiator m("m");
    sc_start(sc_time(1, SC_MS));
    EXPECT_EQ(m.lines.mon0.text(), "M");
    EXPECT_EQ(m.lines.mon1.text(), "m");
    EXPECT_GE(m.done_at, sc_time(9, SC_US)); // the local time grew with each access
}

TEST(LooselyTimed, DirectMemoryAccessIsRefusedOverTheRegisterWindow) {
    UARTVP_SIM_TEST();
    struct init : sc_module {
        tlm_utils::simple_initiator_socket<init> s0{"s0"}, s1{"s1"};
        explicit init(const sc_module_name& n)
            : sc_module(n) {}
    } i("i");
    uart16550_config c;
    c.reg_shift = 2;
    c.reg_io_width = 4;
    pl011 pl("pl");
    uart16550 com("com", c);
    test::uart_pair_pins pins{pl, com};
    i.s0.bind(pl.bus);
    i.s1.bind(com.bus);
    sc_start(SC_ZERO_TIME);
    for (int k = 0; k < 2; ++k) {
        tlm::tlm_generic_payload tx;
        tlm::tlm_dmi dmi;
        tx.set_command(tlm::TLM_READ_COMMAND);
        tx.set_address(0);
        const bool granted = (k ? i.s1 : i.s0)->get_direct_mem_ptr(tx, dmi);
        EXPECT_FALSE(granted);
        EXPECT_EQ(dmi.get_start_address(), 0u);
        EXPECT_EQ(dmi.get_end_address(), k ? com.map_size() - 1 : pl.map_size() - 1);
        EXPECT_TRUE(dmi.is_read_write_allowed()) << "the refusal covers reads and writes";
    }
}
