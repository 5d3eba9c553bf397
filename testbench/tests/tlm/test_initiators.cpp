// SPDX-License-Identifier: Apache-2.0
// What several initiators on one UART rely on, case by case: a read promise is broken by every access
// with a side effect, whoever issues it; accesses issued at the same instant are applied in the order
// of their initiators' ids, whatever order SystemC runs the initiators in; a debug read moves no output
// in time; a PL011 access with no byte lane enabled changes nothing.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <uartvp/initiator_id.h>
#include <uartvp/pl011.h>
#include <uartvp/read_promise.h>
#include <uartvp/rx_injector.h>
#include <uartvp/uart16550.h>

#include "sim_main.h"
#include "tlm_payload.h"

using namespace uartvp;
using namespace uartvp::test;
using namespace sc_core;

namespace {

// PL011 registers and bits (TRM), 16550 registers and bits (datasheet).
constexpr std::uint64_t DR = 0x00, RSR = 0x04, FR = 0x18, IBRD = 0x24, FBRD = 0x28, LCR_H = 0x2C, CR = 0x30,
                        IFLS = 0x34, IMSC = 0x38, RIS = 0x3C, MIS = 0x40, ICR = 0x44;
constexpr std::uint32_t FR_BUSY = 1 << 3, FR_RXFE = 1 << 4, FR_TXFE = 1 << 7;
constexpr std::uint32_t INT_CTS = 1 << 1, INT_RX = 1 << 4, INT_FE = 1 << 7;
constexpr unsigned RBR = 0, THR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6;
constexpr std::uint8_t LSR_DR = 0x01, LSR_OE = 0x02, LSR_THRE = 0x20, MSR_DCTS = 0x01;

// One initiator: accesses with an initiator id, optionally with a read promise or byte enables.
struct initiator : sc_module {
    tlm_utils::simple_initiator_socket<initiator, 32> socket{"socket"};
    unsigned id;
    initiator(const sc_module_name& n, unsigned i)
        : sc_module(n)
        , id(i) {}
    // Issues the access now, `d` after the present (annotated), with `who` (the target may write into
    // it); returns the delay the target annotated (the caller decides when to wait).
    sc_time issue(tlm::tlm_generic_payload& tx, initiator_id& who, sc_time d = SC_ZERO_TIME) {
        tx.set_extension(&who);
        socket->b_transport(tx, d);
        tx.clear_extension(&who);
        return d;
    }
    sc_time issue(tlm::tlm_generic_payload& tx) {
        initiator_id who(id);
        return issue(tx, who);
    }
    // Issues a write `ahead` after the present without waiting for it first (initiator_id's
    // unsynchronised); returns whether the target served it at once. The caller keeps SystemC quiet
    // until then.
    bool wr_ahead(std::uint64_t addr, std::uint32_t v, const sc_time& ahead, unsigned size = 4) {
        tlm::tlm_generic_payload tx;
        set_access(tx, true, addr, v, size);
        initiator_id who(id);
        who.unsynchronised = true;
        const sc_time issued = sc_time_stamp();
        const sc_time d = issue(tx, who, ahead);
        EXPECT_TRUE(tx.is_response_ok()) << "write of 0x" << std::hex << addr;
        EXPECT_TRUE(who.delay_exact) << "the target says it applies the access at its time";
        const bool at_once = sc_time_stamp() == issued;
        wait(d);
        return at_once;
    }
    std::uint32_t rd(std::uint64_t addr, unsigned size = 4, read_promise* p = nullptr) {
        std::uint32_t v = 0;
        tlm::tlm_generic_payload tx;
        set_access(tx, false, addr, v, size);
        if (p) tx.set_extension(p);
        const sc_time d = issue(tx);
        if (p) tx.clear_extension(p);
        EXPECT_TRUE(tx.is_response_ok()) << "read of 0x" << std::hex << addr;
        wait(d);
        return v;
    }
    void wr(std::uint64_t addr, std::uint32_t v, unsigned size = 4) {
        tlm::tlm_generic_payload tx;
        set_access(tx, true, addr, v, size);
        const sc_time d = issue(tx);
        EXPECT_TRUE(tx.is_response_ok()) << "write of 0x" << std::hex << addr;
        wait(d);
    }
    std::uint32_t dbg(std::uint64_t addr, unsigned size = 4) {
        std::uint32_t v = 0;
        tlm::tlm_generic_payload tx;
        set_access(tx, false, addr, v, size);
        EXPECT_EQ(socket->transport_dbg(tx), size);
        return v;
    }
};

// Two initiators on one target socket.
struct two_port_bus : sc_module {
    tlm_utils::simple_target_socket<two_port_bus, 32> a{"a"}, b{"b"};
    tlm_utils::simple_initiator_socket<two_port_bus, 32> out{"out"};
    explicit two_port_bus(const sc_module_name& n)
        : sc_module(n) {
        for (auto* s : {&a, &b}) {
            s->register_b_transport(this, &two_port_bus::fwd);
            s->register_transport_dbg(this, &two_port_bus::dbg);
        }
    }
    void fwd(tlm::tlm_generic_payload& tx, sc_time& d) { out->b_transport(tx, d); }
    unsigned dbg(tlm::tlm_generic_payload& tx) { return out->transport_dbg(tx); }
};

// A UART (PL011 or 16550) with initiators `a` and `b`, an RX injector, and a body for each initiator.
template <class uart_t> struct bench : sc_module {
    sc_signal<bool> txd{"txd_line", true}, irq{"irq_line"}, rxd{"rxd_line", true}, ncts{"ncts_line", true};
    uart_t uart;
    rx_injector inj;
    two_port_bus bus{"bus"};
    initiator a, b;
    std::function<void(bench&)> body_a, body_b;
    std::vector<std::pair<sc_time, bool>> irq_log;
    SC_HAS_PROCESS(bench);
    bench(const sc_module_name& n, const typename uart_t::config_type& cfg, double baud, unsigned id_a,
          unsigned id_b)
        : sc_module(n)
        , uart("uart", cfg)
        , inj("inj", baud, serial_format{})
        , a("a", id_a)
        , b("b", id_b) {
        a.socket.bind(bus.a);
        b.socket.bind(bus.b);
        bus.out.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(rxd);
        uart.ncts(ncts);
        inj.line(rxd);
        SC_THREAD(run_a);
        SC_THREAD(run_b);
        SC_METHOD(log_irq);
        sensitive << irq;
        dont_initialize();
    }
    void run_a() {
        if (body_a) body_a(*this);
    }
    void run_b() {
        if (body_b) body_b(*this);
    }
    void log_irq() { irq_log.emplace_back(sc_time_stamp(), irq.read()); }
};

struct pl011_t : pl011 {
    using config_type = pl011_config;
    using pl011::pl011;
};
struct uart16550_t : uart16550 {
    using config_type = uart16550_config;
    using uart16550::uart16550;
};
using pl011_bench = bench<pl011_t>;
using com_bench = bench<uart16550_t>;

void pl011_setup(initiator& i) {
    i.wr(IBRD, 13); // 115200 at 24 MHz
    i.wr(FBRD, 1);
    i.wr(LCR_H, 0x70);
    i.wr(CR, 0x301);
}
void com_setup(initiator& i) {
    i.wr(LCR, 0x83, 1);
    i.wr(RBR, 1, 1); // divisor 1: 115200 at 1.8432 MHz
    i.wr(IER, 0, 1);
    i.wr(LCR, 0x03, 1);
    i.wr(FCR, 0x01, 1);
}

constexpr double baud = 115200;

// Waits until `t`; then, if `later`, one delta more: the other thread at that instant runs first, so
// that an order of results that follows the ids cannot come from SystemC's order of processes.
void at(const sc_time& t, bool later) {
    wait(t - sc_time_stamp());
    if (later) wait(SC_ZERO_TIME);
}

} // namespace

// ---- 1. promises broken by every access with a side effect

TEST(Pl011Promise, DrReadByAnotherInitiatorBreaksAPromiseOnFr) {
    UARTVP_SIM_TEST();
    pl011_bench t("t", pl011_config{}, baud, 0, 1);
    bool done = false;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        x.inj.send("a", sc_time_stamp());
        wait(sc_time(200, SC_US)); // received, the receiver idle again
        read_promise p;
        const std::uint32_t fr = x.a.rd(FR, 4, &p);
        ASSERT_TRUE(p.valid) << "FR can be promised while the RX FIFO holds data";
        EXPECT_FALSE(fr & FR_RXFE);
        EXPECT_FALSE(p.broken_already());
        EXPECT_EQ(x.b.rd(DR) & 0xFF, unsigned('a')); // the other initiator pops it
        EXPECT_TRUE(p.broken_already()) << "the pop changed FR.RXFE: the promise must not hold";
        ASSERT_NE(p.cause, nullptr);
        EXPECT_TRUE(p.cause->by_access);
        EXPECT_EQ(p.cause->initiator, 1u);
        EXPECT_TRUE(x.a.rd(FR) & FR_RXFE);
        done = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done);
}

// A write issued ahead of SystemC time, served at once, breaks another initiator's promise at the
// write's own time, not at the present: the waiting initiator wakes then, told who broke it and when.
TEST(Pl011Promise, AWriteServedAheadBreaksAnotherInitiatorsPromiseAtItsTime) {
    UARTVP_SIM_TEST();
    pl011_bench t("t", pl011_config{}, baud, 0, 1);
    bool done_a = false, done_b = false;
    sc_event promised;
    read_promise p;
    sc_time issued, landed;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        wait(sc_time(10, SC_US));
        x.a.wr(DR, 'x');
        wait(sc_time(5, SC_US)); // the character in the shifter: nothing due before it ends
        promised.notify();
        wait(sc_time(5, SC_US));
        // b waits on its promise until the character's end; nothing else is due before then.
        issued = sc_time_stamp();
        const sc_time ahead(30, SC_US);
        landed = issued + ahead;
        EXPECT_TRUE(x.a.wr_ahead(DR, 'y', ahead)) << "served at once: SystemC was quiet until its time";
        done_a = true;
    };
    t.body_b = [&](pl011_bench& x) {
        wait(promised);
        p.mask = FR_BUSY;
        EXPECT_TRUE(x.b.rd(FR, 4, &p) & FR_BUSY);
        ASSERT_TRUE(p.valid);
        ASSERT_GT(p.until, sc_time_stamp() + sc_time(60, SC_US)) << "BUSY promised until the character ends";
        wait(p.until - sc_time_stamp(), *p.broken);
        EXPECT_EQ(sc_time_stamp(), landed) << "woken at the write's time, not when it was served";
        ASSERT_TRUE(p.broken_already());
        ASSERT_NE(p.cause, nullptr);
        EXPECT_EQ(p.cause->when, landed);
        EXPECT_TRUE(p.cause->by_access);
        EXPECT_EQ(p.cause->initiator, 0u);
        done_b = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done_a);
    EXPECT_TRUE(done_b);
}

// A read that names FR.BUSY is promised BUSY until the character ends, across TXFE rising as the
// character moves to the shifter (a bit it did not name), where the whole value's promise ends; a
// write breaks it, and bits of the receiver named with it get no more than the whole value's promise.
TEST(Pl011Promise, NamedBusyHoldsUntilTheCharacterEndsAcrossAChangeOfTxfe) {
    UARTVP_SIM_TEST();
    pl011_bench t("t", pl011_config{}, baud, 0, 1);
    bool done = false;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        wait(sc_time(10, SC_US));
        x.a.wr(DR, 'x');
        read_promise whole, busy;
        busy.mask = FR_BUSY;
        const std::uint32_t fr_whole = x.a.rd(FR, 4, &whole);
        const sc_time busy_read = sc_time_stamp();
        const std::uint32_t fr_busy = x.a.rd(FR, 4, &busy);
        ASSERT_TRUE(whole.valid && busy.valid);
        EXPECT_EQ(whole.held, 0u) << "nothing named: the whole value";
        EXPECT_EQ(busy.held, FR_BUSY);
        EXPECT_TRUE(fr_whole & FR_BUSY);
        EXPECT_TRUE(fr_busy & FR_BUSY);
        EXPECT_FALSE(fr_busy & FR_TXFE) << "the character still waits in the FIFO";
        // 8N1 at 115200 baud: 86.8 us from the next Baud16 enable (at most 0.55 us away).
        EXPECT_LT(whole.until, busy_read + sc_time(1, SC_US)) << "TXFE rises at the next enable";
        EXPECT_GE(busy.until, busy_read + sc_time(86, SC_US));
        EXPECT_LE(busy.until, busy_read + sc_time(88, SC_US));
        wait(sc_time(40, SC_US));
        const std::uint32_t mid = x.a.dbg(FR);
        EXPECT_TRUE(mid & FR_TXFE) << "the unnamed bit changed";
        EXPECT_TRUE(mid & FR_BUSY);
        EXPECT_FALSE(busy.broken_already()) << "no access, no input change: the promise holds";
        // BUSY holds right up to the promise's end, and falls there (a lone character: the bound is tight).
        wait(busy.until - sc_time(1, SC_NS) - sc_time_stamp());
        EXPECT_TRUE(x.a.dbg(FR) & FR_BUSY);
        wait(sc_time(1, SC_NS));
        EXPECT_FALSE(x.a.dbg(FR) & FR_BUSY);
        // A write breaks a named promise; a receiver bit named with BUSY gets the whole value's.
        x.a.wr(DR, 'y');
        read_promise again, with_rx;
        again.mask = FR_BUSY;
        with_rx.mask = FR_BUSY | FR_RXFE;
        EXPECT_TRUE(x.a.rd(FR, 4, &again) & FR_BUSY);
        EXPECT_TRUE(x.a.rd(FR, 4, &with_rx) & FR_BUSY);
        EXPECT_EQ(with_rx.held, 0u);
        x.b.wr(DR, 'z');
        EXPECT_TRUE(again.broken_already()) << "another initiator's write";
        done = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done);
}

// The 16550: a read naming LSR.THRE is promised THRE clear until the FIFO's last byte moves to the
// shifter, across LSR.DR rising as a received character completes (no RXD edge after its stop bit
// began), where the whole value's promise ends.
TEST(Uart16550Promise, NamedThreHoldsAcrossAReceivedCharacter) {
    UARTVP_SIM_TEST();
    com_bench t("t", uart16550_config{}, baud, 0, 1);
    bool done = false;
    t.body_a = [&](com_bench& x) {
        com_setup(x.a);
        const sc_time t0 = sc_time_stamp() + sc_time(1, SC_US);
        x.inj.send("r", t0); // its stop bit begins 78.1 us later: RXD's last edge
        wait(t0 + sc_time(79, SC_US) - sc_time_stamp());
        x.a.wr(THR, 'a', 1); // to the shifter at once
        x.a.wr(THR, 'b', 1); // waits in the FIFO: THRE clear until 'a' ends
        read_promise whole, thre;
        thre.mask = LSR_THRE;
        const std::uint8_t lsr_whole = static_cast<std::uint8_t>(x.a.rd(LSR, 1, &whole));
        const std::uint8_t lsr_thre = static_cast<std::uint8_t>(x.a.rd(LSR, 1, &thre));
        ASSERT_TRUE(whole.valid && thre.valid);
        EXPECT_FALSE(lsr_whole & LSR_DR);
        EXPECT_FALSE(lsr_thre & LSR_THRE);
        EXPECT_EQ(whole.held, 0u);
        EXPECT_EQ(thre.held, LSR_THRE);
        EXPECT_LT(whole.until, t0 + sc_time(88, SC_US)) << "DR rises within the stop bit";
        EXPECT_GT(thre.until, t0 + sc_time(79 + 86, SC_US)) << "'a' takes 86.8 us";
        wait(t0 + sc_time(90, SC_US) - sc_time_stamp());
        const std::uint8_t mid = static_cast<std::uint8_t>(x.a.dbg(LSR, 1));
        EXPECT_TRUE(mid & LSR_DR) << "the unnamed bit changed";
        EXPECT_FALSE(mid & LSR_THRE);
        EXPECT_FALSE(thre.broken_already());
        wait(thre.until - sc_time_stamp());
        EXPECT_TRUE(x.a.dbg(LSR, 1) & LSR_THRE) << "THRE rises where the promise ends";
        done = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done);
}

TEST(Uart16550Promise, RbrLsrAndMsrReadsByAnotherInitiatorBreakPromises) {
    UARTVP_SIM_TEST();
    com_bench t("t", uart16550_config{}, baud, 0, 1);
    bool done = false;
    t.body_a = [&](com_bench& x) {
        com_setup(x.a);
        x.inj.send("ab", sc_time_stamp());
        wait(sc_time(200, SC_US));
        // An LSR promise (DR set, no error) is broken by another initiator's RBR pop.
        read_promise p;
        EXPECT_TRUE(x.a.rd(LSR, 1, &p) & LSR_DR);
        ASSERT_TRUE(p.valid);
        EXPECT_EQ(x.b.rd(RBR, 1) & 0xFF, unsigned('a'));
        EXPECT_TRUE(p.broken_already()) << "an RBR pop";
        EXPECT_EQ(p.cause->initiator, 1u);
        // Overrun: an IIR promise (RLS pending) is broken by another initiator's LSR read.
        x.inj.send(std::string(20, 'c'), sc_time_stamp());
        wait(sc_time(2, SC_MS));
        x.a.wr(IER, 0x04, 1); // line status interrupt
        read_promise q;
        const std::uint8_t iir = static_cast<std::uint8_t>(x.a.rd(IIR, 1, &q));
        EXPECT_EQ(iir & 0x0F, 0x06) << "receiver line status (overrun)";
        ASSERT_TRUE(q.valid);
        EXPECT_TRUE(x.b.rd(LSR, 1) & LSR_OE);
        EXPECT_TRUE(q.broken_already()) << "the LSR read cleared OE and with it the IIR source";
        // A modem status change: an IIR promise (modem status pending) is broken by another
        // initiator's MSR read, which clears DCTS.
        x.a.wr(IER, 0x08, 1);
        x.ncts.write(false);
        wait(sc_time(10, SC_US));
        EXPECT_TRUE(x.a.dbg(MSR, 1) & MSR_DCTS);
        read_promise m;
        EXPECT_EQ(x.a.rd(IIR, 1, &m) & 0x0F, 0x00);
        ASSERT_TRUE(m.valid);
        EXPECT_TRUE(x.b.rd(MSR, 1) & MSR_DCTS);
        EXPECT_TRUE(m.broken_already()) << "the MSR read cleared DCTS and with it the IIR source";
        done = true;
    };
    sc_start(sc_time(5, SC_MS));
    EXPECT_TRUE(done);
}

// ---- 2. same-instant accesses in the order of the initiator ids

// The writer puts a byte into DR, the reader reads FR, at the same instant. Whichever thread SystemC
// runs first, the lower id goes first: FR shows the byte (BUSY, not TXFE) only if the writer's id is
// the lower one.
void pl011_same_instant(bool writer_lower, bool reader_runs_first) {
    pl011_bench t("t", pl011_config{}, baud, writer_lower ? 0 : 5, writer_lower ? 5 : 0);
    const sc_time T(20, SC_US);
    std::uint32_t fr = 0;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        at(T, reader_runs_first);
        x.a.wr(DR, 'x', 1);
    };
    t.body_b = [&](pl011_bench& x) {
        at(T, !reader_runs_first);
        fr = x.b.rd(FR);
    };
    sc_start(sc_time(200, SC_US));
    if (writer_lower)
        EXPECT_TRUE((fr & FR_BUSY) && !(fr & FR_TXFE)) << "the write came first; FR = 0x" << std::hex << fr;
    else
        EXPECT_TRUE(!(fr & FR_BUSY) && (fr & FR_TXFE)) << "the read came first; FR = 0x" << std::hex << fr;
}

TEST(Pl011SameInstant, WriterWithTheLowerIdGoesFirstAlsoWhenTheReaderRunsFirst) {
    UARTVP_SIM_TEST();
    pl011_same_instant(true, true);
}
TEST(Pl011SameInstant, ReaderWithTheLowerIdGoesFirstAlsoWhenTheWriterRunsFirst) {
    UARTVP_SIM_TEST();
    pl011_same_instant(false, false);
}

// The same on the 16550: THR written and LSR read at one instant.
void com_same_instant(bool writer_lower, bool reader_runs_first) {
    com_bench t("t", uart16550_config{}, baud, writer_lower ? 0 : 5, writer_lower ? 5 : 0);
    const sc_time T(40, SC_US);
    std::uint32_t lsr = 0;
    t.body_a = [&](com_bench& x) {
        com_setup(x.a);
        at(T, reader_runs_first);
        x.a.wr(THR, 'x', 1);
    };
    t.body_b = [&](com_bench& x) {
        at(T, !reader_runs_first);
        lsr = x.b.rd(LSR, 1);
    };
    sc_start(sc_time(200, SC_US));
    // A byte into an idle transmitter goes to the shift register at once: THRE stays set, TEMT clears.
    if (writer_lower)
        EXPECT_FALSE(lsr & 0x40) << "the write came first; LSR = 0x" << std::hex << lsr;
    else
        EXPECT_TRUE(lsr & 0x40) << "the read came first; LSR = 0x" << std::hex << lsr;
}

TEST(Uart16550SameInstant, WriterWithTheLowerIdGoesFirstAlsoWhenTheReaderRunsFirst) {
    UARTVP_SIM_TEST();
    com_same_instant(true, true);
}
TEST(Uart16550SameInstant, ReaderWithTheLowerIdGoesFirstAlsoWhenTheWriterRunsFirst) {
    UARTVP_SIM_TEST();
    com_same_instant(false, false);
}

// ---- 3. debug reads move nothing

// A write that raises IRQ at its own UARTCLK edge; a debug read issued after b_transport returned but
// before the initiator waited the delay it was given must not make IRQ rise any earlier.
TEST(Pl011Debug, ReadBeforeTheAnnotatedDelayMovesNoOutput) {
    UARTVP_SIM_TEST();
    pl011_bench t("t", pl011_config{}, baud, 0, 1);
    sc_time write_edge;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        x.ncts.write(false); // a modem status change: RIS.CTS
        wait(sc_time(1, SC_US));
        EXPECT_TRUE(x.a.dbg(RIS) & INT_CTS);
        EXPECT_FALSE(x.irq.read());
        std::uint32_t v = INT_CTS;
        tlm::tlm_generic_payload tx;
        set_access(tx, true, IMSC, v, 4);
        const sc_time d = x.a.issue(tx);
        ASSERT_GT(d, SC_ZERO_TIME);
        write_edge = sc_time_stamp() + d;
        // What a read issued now would see: the state after the write's edge (the edge is taken).
        EXPECT_TRUE(x.a.dbg(MIS) & INT_CTS);
        EXPECT_FALSE(x.irq.read()) << "but the output changes at the edge's time";
        x.a.dbg(FR);
        wait(d);
        wait(SC_ZERO_TIME);
        wait(SC_ZERO_TIME);
        EXPECT_TRUE(x.irq.read());
    };
    sc_start(sc_time(100, SC_US));
    ASSERT_EQ(t.irq_log.size(), 1u);
    EXPECT_TRUE(t.irq_log[0].second);
    EXPECT_EQ(t.irq_log[0].first, write_edge)
        << "IRQ rose at " << t.irq_log[0].first << ", the write's edge is " << write_edge;
}

// ---- 4. PL011 byte enables: no lane enabled, nothing happens

TEST(Pl011ByteEnables, NoLaneEnabledReadsNothingAndChangesNothing) {
    UARTVP_SIM_TEST();
    pl011_bench t("t", pl011_config{}, baud, 0, 1);
    bool done = false;
    t.body_a = [&](pl011_bench& x) {
        pl011_setup(x.a);
        x.a.wr(IFLS, 0); // RX interrupt at 1/8 (4 of 32)
        rx_injector::options bad;
        bad.bad_stop = true;
        x.inj.send("z", sc_time_stamp(), bad); // framing error
        x.inj.send("abcdef", sc_time_stamp());
        wait(sc_time(1, SC_MS));
        auto none = [&](bool write, std::uint64_t addr, std::uint32_t& data) {
            const std::vector<unsigned char> be(4, TLM_BYTE_DISABLED);
            tlm::tlm_generic_payload tx;
            set_access(tx, write, addr, data, 4, &be);
            const sc_time d = x.a.issue(tx);
            wait(d);
            return tx.get_response_status();
        };
        const std::uint32_t fr0 = x.a.dbg(FR), ris0 = x.a.dbg(RIS);
        ASSERT_FALSE(fr0 & FR_RXFE);
        ASSERT_TRUE(ris0 & INT_RX);
        std::uint32_t data = 0xDEADBEEF;
        EXPECT_EQ(none(false, DR, data), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(data, 0xDEADBEEFu) << "the data array is left untouched";
        EXPECT_EQ(x.a.dbg(DR) & 0xFF, unsigned('z')) << "no pop";
        // DR read for real: the framing error goes to RSR.
        EXPECT_EQ(x.a.rd(DR) & 0xFF, unsigned('z'));
        ASSERT_TRUE(x.a.dbg(RSR) & 1) << "RSR.FE";
        data = 0;
        EXPECT_EQ(none(true, RSR, data), tlm::TLM_OK_RESPONSE); // ECR
        EXPECT_TRUE(x.a.dbg(RSR) & 1) << "an ECR write with no lane enabled clears nothing";
        data = 0x7FF;
        EXPECT_EQ(none(true, ICR, data), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(x.a.dbg(RIS), x.a.dbg(RIS) | (ris0 & (INT_RX | INT_FE)))
            << "an ICR write with no lane enabled";
        EXPECT_TRUE(x.a.dbg(RIS) & INT_RX);
        // The same writes with their lanes enabled do clear: the checks above can fail.
        x.a.wr(RSR, 0);
        EXPECT_FALSE(x.a.dbg(RSR) & 1);
        x.a.wr(ICR, 0x7FF);
        EXPECT_FALSE(x.a.dbg(RIS) & INT_FE);
        // A byte-enable array of length 0 is an error, as on the 16550.
        std::uint32_t v = 0;
        tlm::tlm_generic_payload tx;
        set_access(tx, false, FR, v, 4);
        unsigned char dummy = TLM_BYTE_ENABLED;
        tx.set_byte_enable_ptr(&dummy);
        tx.set_byte_enable_length(0);
        x.a.issue(tx);
        EXPECT_EQ(tx.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        done = true;
    };
    sc_start(sc_time(5, SC_MS));
    EXPECT_TRUE(done);
}
