// SPDX-License-Identifier: Apache-2.0
// Clock and reset conventions of both UARTs: set_clock_hz() and the clk_hz input (a frequency on a
// signal), the new period from the next edge with a character in flight finishing at the new rate (the
// PL011's fast mode equal to its cycle-by-cycle reference), the active-high rst port and reset(), and
// the PL011's RTL trace keeping each edge's time across clock changes.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/uart16550.h>

#include "sim_main.h"
#include "tlm_payload.h"
#include "uart_pair.h"

using namespace uartvp;
using namespace sc_core;

namespace {

using uartvp::test::set_access;

constexpr std::uint64_t DR = 0x00, FR = 0x18, IBRD = 0x24, FBRD = 0x28, LCRH = 0x2C, CR = 0x30;
constexpr std::uint32_t FR_BUSY = 0x08, FR_TXFE = 0x80;
constexpr std::uint64_t THR = 0, IER = 1, LCR = 3, LSR = 5;

struct cpu : sc_module {
    tlm_utils::simple_initiator_socket<cpu> socket{"socket"};
    explicit cpu(const sc_module_name& n)
        : sc_module(n) {}
    std::uint32_t access(bool write, std::uint64_t addr, std::uint32_t v, unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time d = SC_ZERO_TIME;
        set_access(tx, write, addr, v, len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, d);
        EXPECT_TRUE(tx.is_response_ok()) << name() << " " << std::hex << addr;
        wait(d + sc_time(100, SC_NS));
        return len == 1 ? v & 0xFF : v;
    }
    void wr(std::uint64_t a, std::uint32_t v, unsigned len = 4) { access(true, a, v, len); }
    std::uint32_t rd(std::uint64_t a, unsigned len = 4) { return access(false, a, 0, len); }
};

// The times of every change of a line.
struct edge_log {
    std::vector<sc_time> t;
    void watch(const sc_signal<bool>& s) {
        sc_spawn_options o;
        o.spawn_method();
        o.dont_initialize();
        o.set_sensitivity(&s.value_changed_event());
        sc_spawn([this] { t.push_back(sc_time_stamp()); }, nullptr, &o);
    }
};

pl011_config pl_cfg(bool reference) {
    pl011_config c;
    c.clock_every_cycle = reference;
    return c;
}

// A PL011 and a 16550, each with its own CPU, their TXD edges logged.
struct bench : sc_module {
    cpu c0{"c0"}, c1{"c1"};
    pl011 pl;
    uart16550 com{"com"};
    test::uart_pair_pins pins{pl, com};
    edge_log e0, e1;
    bench(const sc_module_name& n, bool reference)
        : sc_module(n)
        , pl("pl", pl_cfg(reference)) {
        c0.socket.bind(pl.bus);
        c1.socket.bind(com.bus);
        e0.watch(pins.txd0);
        e1.watch(pins.txd1);
    }
    void program_pl() {
        c0.wr(IBRD, 13); // 24 MHz: 115246 baud, a bit of 208.25 cycles (8.68 us)
        c0.wr(FBRD, 1);
        c0.wr(LCRH, 0x70);
        c0.wr(CR, 0x301);
    }
    void program_com() {
        c1.wr(LCR, 0x83, 1);
        c1.wr(THR, 1, 1); // 1.8432 MHz / 16: 115200 baud (8.68 us a bit)
        c1.wr(LCR, 0x03, 1);
    }
};

double us(const sc_time& t) {
    return t.to_seconds() * 1e6;
}

// 'U' (0x55) with 8N1 toggles TXD at every bit boundary: start, 8 data bits, stop edge = 10 edges.
void expect_bits(const std::vector<sc_time>& t, std::size_t first, std::size_t last, double bit_us,
                 const char* what) {
    for (std::size_t i = first; i < last; ++i)
        EXPECT_NEAR(us(t[i + 1] - t[i]), bit_us, 0.05) << what << ": bit " << i;
}

} // namespace

TEST(ClockReset, SetClockHzMidCharacterFinishesTheRemainingBitsAtTheNewRateFastEqualsReference) {
    UARTVP_SIM_TEST();
    bench fast("fast", false), ref("ref", true);
    for (bench* b : {&fast, &ref}) {
        sc_spawn([b] {
            b->program_pl();
            b->c0.wr(DR, 'U', 1);
            wait(sc_time(30, SC_US)); // inside the character's fourth bit
            b->pl.set_clock_hz(48'000'000);
            EXPECT_EQ(b->pl.clock().hz(), 48'000'000u);
            while (b->c0.rd(FR) & FR_BUSY)
                wait(sc_time(1, SC_US));
            b->c0.wr(DR, 'U', 1); // a whole character at the new rate
        });
        sc_spawn([b] {
            b->program_com();
            b->c1.wr(THR, 'U', 1);
            wait(sc_time(30, SC_US));
            b->com.set_clock_hz(3'686'400);
            EXPECT_EQ(b->com.clock().hz(), 3'686'400u);
        });
    }
    sc_start(sc_time(2, SC_MS));
    ASSERT_EQ(fast.e0.t.size(), 20u);
    EXPECT_EQ(fast.e0.t, ref.e0.t) << "fast mode equals the cycle-by-cycle reference";
    const std::vector<sc_time>& t = fast.e0.t;
    // The change at ~30.5 us: the bits before it at 8.68 us, the bits after the one in progress at 4.34.
    std::size_t k = 0;
    while (t[k + 1] < sc_time(30, SC_US))
        ++k;
    std::printf("PL011 bits (us):");
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        std::printf(" %.3f", us(t[i + 1] - t[i]));
    std::printf("\n16550 bits (us):");
    for (std::size_t i = 0; i + 1 < fast.e1.t.size(); ++i)
        std::printf(" %.3f", us(fast.e1.t[i + 1] - fast.e1.t[i]));
    std::printf("\n");
    expect_bits(t, 0, k, 16 * (13 + 1.0 / 64) / 24.0, "before the change");
    expect_bits(t, k + 1, 9, 16 * (13 + 1.0 / 64) / 48.0, "the rest of the character in flight");
    expect_bits(t, 10, 19, 16 * (13 + 1.0 / 64) / 48.0, "the next character");
    // The bit in progress at the change: the cycles before it at 24 MHz, those after at 48.
    EXPECT_GT(us(t[k + 1] - t[k]), 16 * (13 + 1.0 / 64) / 48.0);
    EXPECT_LT(us(t[k + 1] - t[k]), 16 * (13 + 1.0 / 64) / 24.0);
    // The 16550 likewise: 8.68 us bits, then 4.34 us.
    const std::vector<sc_time>& c = fast.e1.t;
    ASSERT_EQ(c.size(), 10u);
    std::size_t j = 0;
    while (c[j + 1] < sc_time(30, SC_US))
        ++j;
    expect_bits(c, 0, j, 1e6 / 115200, "16550 before the change");
    expect_bits(c, j + 1, 9, 1e6 / 230400, "16550 after the change");
    EXPECT_EQ(ref.e1.t, c);
}

namespace {
// The frequencies come from the SoC's clock tree on signals: 48 MHz and 3.6864 MHz from the start, both
// halved at 500 us.
struct clocked : sc_module {
    bench b;
    sc_signal<std::uint64_t> pl_clk{"pl_clk", 48'000'000}, com_clk{"com_clk", 3'686'400};
    line_monitor m0{"m0", 48e6 / (16 * (26 + 2.0 / 64)), serial_format{}};
    line_monitor m1{"m1", 3'686'400.0 / 16 / 2, serial_format{}};
    std::uint64_t hz_at_start[2] = {0, 0};
    SC_HAS_PROCESS(clocked);
    explicit clocked(const sc_module_name& n)
        : sc_module(n)
        , b("b", false) {
        b.pl.clk_hz(pl_clk);
        b.com.clk_hz(com_clk);
        m0.line(b.pins.txd0);
        m1.line(b.pins.txd1);
        m0.keep_text(true);
        m1.keep_text(true);
        SC_THREAD(tree);
        SC_THREAD(pl_side);
        SC_THREAD(com_side);
    }
    void tree() {
        hz_at_start[0] = b.pl.clock().hz();
        hz_at_start[1] = b.com.clock().hz();
        wait(sc_time(500, SC_US));
        pl_clk.write(24'000'000);
        com_clk.write(1'843'200);
    }
    void pl_side() {
        b.c0.wr(IBRD, 26); // 48 MHz / (16 x 26.03): 115246 baud
        b.c0.wr(FBRD, 2);
        b.c0.wr(LCRH, 0x70);
        b.c0.wr(CR, 0x301);
        for (char ch : std::string("fast"))
            b.c0.wr(DR, static_cast<std::uint8_t>(ch), 1);
        wait(sc_time(600, SC_US));
        m0.set_format(24e6 / (16 * (26 + 2.0 / 64)), serial_format{}); // half the rate now
        for (char ch : std::string("slow"))
            b.c0.wr(DR, static_cast<std::uint8_t>(ch), 1);
    }
    void com_side() {
        b.c1.wr(LCR, 0x83, 1);
        b.c1.wr(THR, 2, 1); // 3.6864 MHz / 32: 115200 baud
        b.c1.wr(LCR, 0x03, 1);
        b.c1.wr(2, 0x07, 1); // FCR: FIFO
        for (char ch : std::string("FAST"))
            b.c1.wr(THR, static_cast<std::uint8_t>(ch), 1);
        wait(sc_time(600, SC_US));
        m1.set_format(1'843'200.0 / 16 / 2, serial_format{});
        for (char ch : std::string("SLOW"))
            b.c1.wr(THR, static_cast<std::uint8_t>(ch), 1);
    }
};
} // namespace

TEST(ClockReset, ClkHzSignalsSetTheClockFromTheStartAndOnEachChange) {
    UARTVP_SIM_TEST();
    clocked c("c");
    sc_start(sc_time(3, SC_MS));
    EXPECT_EQ(c.hz_at_start[0], 48'000'000u);
    EXPECT_EQ(c.hz_at_start[1], 3'686'400u);
    EXPECT_EQ(c.b.pl.clock().hz(), 24'000'000u);
    EXPECT_EQ(c.b.com.clock().hz(), 1'843'200u);
    EXPECT_EQ(c.m0.text(), "fastslow");
    EXPECT_EQ(c.m1.text(), "FASTSLOW");
}

TEST(ClockReset, AClkHzOfZeroIsAnError) {
    UARTVP_SIM_TEST();
    bench b("b", false);
    sc_signal<std::uint64_t> clk{"clk", 0};
    b.pl.clk_hz(clk);
    std::string what;
    try {
        sc_start(sc_time(1, SC_US));
    } catch (const sc_report& r) {
        what = r.what();
    }
    EXPECT_NE(what.find("clk_hz is 0 Hz"), std::string::npos) << what;
}

TEST(ClockReset, SetClockHzRefusesZeroAndPeriodsBelowTheResolution) {
    UARTVP_SIM_TEST();
    bench b("b", false);
    EXPECT_THROW(b.pl.set_clock_hz(0), std::invalid_argument);
    EXPECT_THROW(b.com.set_clock_hz(2'000'000'000'000ull), std::invalid_argument); // 0.5 ps at 1 ps
    EXPECT_EQ(b.pl.clock().hz(), 24'000'000u);
    EXPECT_EQ(b.com.clock().hz(), 1'843'200u);
}

namespace {
// rst (active high) held over a few cycles, then reset(): both clear the registers a program set, and
// a character in flight is cut; fast mode equals the reference on the line.
struct resets : sc_module {
    bench b;
    sc_signal<bool> rst0{"rst0", false}, rst1{"rst1", false};
    std::uint32_t ibrd_after_rst = 99, ibrd_after_reset = 99, fr_after_reset = 0;
    std::uint32_t ier_after_rst = 99, ier_after_reset = 99, lsr_after_reset = 0;
    SC_HAS_PROCESS(resets);
    resets(const sc_module_name& n, bool reference)
        : sc_module(n)
        , b("b", reference) {
        b.pl.rst(rst0);
        b.com.rst(rst1);
        SC_THREAD(pl_side);
        SC_THREAD(com_side);
    }
    void pl_side() {
        b.program_pl();
        b.c0.wr(DR, 'U', 1);
        wait(sc_time(40, SC_US));
        rst0.write(true);
        wait(sc_time(1, SC_US));
        rst0.write(false);
        wait(sc_time(1, SC_US));
        ibrd_after_rst = b.c0.rd(IBRD);
        b.program_pl();
        b.c0.wr(DR, 'U', 1);
        wait(sc_time(40, SC_US));
        b.pl.reset();
        wait(sc_time(1, SC_US));
        ibrd_after_reset = b.c0.rd(IBRD);
        fr_after_reset = b.c0.rd(FR);
    }
    void com_side() {
        b.program_com();
        b.c1.wr(IER, 0x0F, 1);
        b.c1.wr(THR, 'U', 1);
        wait(sc_time(40, SC_US));
        rst1.write(true);
        wait(sc_time(1, SC_US));
        rst1.write(false);
        wait(sc_time(1, SC_US));
        ier_after_rst = b.c1.rd(IER, 1);
        b.program_com();
        b.c1.wr(IER, 0x0F, 1);
        b.c1.wr(THR, 'U', 1);
        wait(sc_time(40, SC_US));
        b.com.reset();
        wait(sc_time(1, SC_US));
        ier_after_reset = b.c1.rd(IER, 1);
        lsr_after_reset = b.c1.rd(LSR, 1);
    }
};
} // namespace

TEST(ClockReset, RstPortAndResetMethodResetBothUartsFastEqualsReference) {
    UARTVP_SIM_TEST();
    resets fast("fast", false), ref("ref", true);
    sc_start(sc_time(1, SC_MS));
    for (resets* r : {&fast, &ref}) {
        EXPECT_EQ(r->ibrd_after_rst, 0u);
        EXPECT_EQ(r->ibrd_after_reset, 0u);
        EXPECT_EQ(r->fr_after_reset & (FR_BUSY | FR_TXFE), FR_TXFE) << "idle and empty after reset";
        EXPECT_EQ(r->ier_after_rst, 0u);
        EXPECT_EQ(r->ier_after_reset, 0u);
        EXPECT_EQ(r->lsr_after_reset & 0x60, 0x60) << "THRE and TEMT after reset";
        // Each character was cut by its reset: the line went high at it and stayed so.
        ASSERT_FALSE(r->b.e0.t.empty());
        EXPECT_TRUE(r->b.pins.txd0.read());
        EXPECT_LT(r->b.e0.t.back(), sc_time(100, SC_US));
        EXPECT_TRUE(r->b.pins.txd1.read());
    }
    EXPECT_EQ(fast.b.e0.t, ref.b.e0.t);
    EXPECT_EQ(fast.b.e1.t, ref.b.e1.t);
}

namespace {
// The PL011's RTL trace (pl011_config::rtl_vcd) read back: the time of every dump (one per evaluated
// edge) and the changes of the RTL's own TXD.
struct rtl_trace {
    std::vector<std::uint64_t> dumps;                // ps, in file order
    std::vector<std::pair<std::uint64_t, bool>> txd; // after time 0
    std::string timescale;
};

rtl_trace read_rtl_trace(const std::string& path) {
    std::ifstream f(path);
    rtl_trace r;
    std::string line, txd_id;
    bool defs = true;
    std::uint64_t now = 0;
    while (std::getline(f, line)) {
        std::istringstream s(line);
        std::string tok;
        s >> tok;
        if (defs) {
            if (tok == "$timescale") {
                s >> r.timescale;
            } else if (tok == "$var") {
                std::string type, width, id, name;
                s >> type >> width >> id >> name;
                if (name == "txd" && width == "1" && txd_id.empty()) txd_id = id;
            } else if (tok == "$enddefinitions") {
                defs = false;
            }
            continue;
        }
        if (line.empty()) continue;
        if (line[0] == '#') {
            now = std::stoull(line.substr(1));
            r.dumps.push_back(now);
        } else if ((line[0] == '0' || line[0] == '1') && line.substr(1) == txd_id && now > 0) {
            r.txd.emplace_back(now, line[0] == '1');
        }
    }
    EXPECT_FALSE(txd_id.empty()) << path << ": no txd";
    return r;
}

// A PL011 writing its RTL trace while UARTCLK changes from its clock tree (clk_hz) three times, in and
// between characters, with a reset cutting a character and a new divisor after it. The txd pin's
// changes are logged with their levels.
struct traced : sc_module {
    cpu c{"c"};
    pl011 pl;
    sc_signal<bool> txd{"txd", true}, rxd{"rxd", true}, irq{"irq"}, rst{"rst", false};
    sc_signal<std::uint64_t> clk{"clk", 24'000'000};
    std::vector<std::pair<sc_time, bool>> pin;
    SC_HAS_PROCESS(traced);
    static pl011_config config(const std::string& vcd, bool reference, bool lt) {
        pl011_config cfg;
        cfg.clock_every_cycle = reference;
        cfg.loosely_timed = lt;
        cfg.rtl_vcd = vcd;
        return cfg;
    }
    traced(const sc_module_name& n, const std::string& vcd, bool reference, bool lt = false)
        : sc_module(n)
        , pl("pl", config(vcd, reference, lt)) {
        c.socket.bind(pl.bus);
        pl.txd(txd);
        pl.rxd(rxd);
        pl.irq(irq);
        pl.rst(rst);
        pl.clk_hz(clk);
        SC_THREAD(program);
        SC_THREAD(tree);
        SC_METHOD(log);
        sensitive << txd;
        dont_initialize();
    }
    void log() { pin.emplace_back(sc_time_stamp(), txd.read()); }
    void tree() {
        wait(sc_time(30, SC_US)); // in the first character's fourth bit
        clk.write(48'000'000);
        wait(sc_time(35, SC_US)); // in the second character
        clk.write(7'372'800);
        wait(sc_time(1035, SC_US)); // after the reset, in the first character at the new divisor
        clk.write(24'000'000);
    }
    void program() {
        c.wr(IBRD, 13); // 115246 baud at 24 MHz, 230492 at 48, 35404 at 7.3728
        c.wr(FBRD, 1);
        c.wr(LCRH, 0x70);
        c.wr(CR, 0x301);
        for (int i = 0; i < 4; ++i)
            c.wr(DR, 'U', 1);
        wait(sc_time(320, SC_US) - sc_time_stamp()); // in the third character's start bit, at 7.3728 MHz
        rst.write(true);
        wait(sc_time(3, SC_US));
        rst.write(false);
        wait(sc_time(1, SC_US));
        c.wr(IBRD, 4); // 115200 baud at 7.3728 MHz
        c.wr(FBRD, 0);
        c.wr(LCRH, 0x70);
        c.wr(CR, 0x301);
        wait(sc_time(1000, SC_US) - sc_time_stamp());
        for (char ch : std::string("U?U"))
            c.wr(DR, static_cast<std::uint8_t>(ch), 1);
        while (c.rd(FR) & FR_BUSY)
            wait(sc_time(5, SC_US));
    }
};

std::uint64_t ps(const sc_time& t) {
    return static_cast<std::uint64_t>(t.value()); // the tests' time resolution is SystemC's 1 ps
}
} // namespace

// Every dump of the RTL trace is at the simulation time of its UARTCLK edge across clock changes and
// a reset: the RTL's TXD changes in NAME.rtl.vcd are the txd pin's, to the picosecond, in fast mode
// (lazy evaluation, skipped stretches), loosely timed (the model ahead of SystemC time) and in the
// cycle-by-cycle reference, whose dumps are exactly the clock's edges 0, 1, 2, ... in order.
TEST(ClockReset, RtlTraceTimesAreTheEdgesTimesAcrossClockChangesAndAReset) {
    UARTVP_SIM_TEST();
    char d[] = "/tmp/uartvp-rtltrace-XXXXXX";
    const std::string dir = mkdtemp(d);
    traced fast("fast", dir + "/fast.rtl.vcd", false), ref("ref", dir + "/ref.rtl.vcd", true),
        lt("lt", dir + "/lt.rtl.vcd", false, true);
    sc_start(sc_time(2, SC_MS));
    for (traced* t : {&fast, &ref, &lt}) {
        SCOPED_TRACE(t->name());
        EXPECT_EQ(t->pl.clock().hz(), 24'000'000u);
        t->pl.close_rtl_trace();
        const rtl_trace r = read_rtl_trace(t->pl.config().rtl_vcd);
        EXPECT_EQ(r.timescale, "1ps");
        // Bits of 8.68, 4.34 and 28.25 us: two 'U's and the start bit of a third, cut by the reset
        // (22 changes); then "U?U" at 8.68 us and, from inside the '?', 2.67 us (24 changes).
        ASSERT_EQ(t->pin.size(), 46u);
        std::vector<std::pair<std::uint64_t, bool>> pin;
        for (const auto& [time, level] : t->pin)
            pin.emplace_back(ps(time), level);
        EXPECT_EQ(r.txd, pin) << "the RTL's TXD changes where the pin does";
        ASSERT_FALSE(r.dumps.empty());
        const cycle_clock& clock = t->pl.clock();
        for (std::size_t i = 0; i < r.dumps.size(); ++i) {
            const sc_time at = sc_time::from_value(r.dumps[i]);
            const std::uint64_t n = clock.edge_at_or_before(at);
            ASSERT_EQ(ps(clock.time_of(n)), r.dumps[i]) << "dump " << i << " is not at an edge";
            if (i > 0) ASSERT_LT(r.dumps[i - 1], r.dumps[i]);
            if (t == &ref) ASSERT_EQ(n, i) << "the reference dumps every edge, in order";
        }
        // The last character's bits after the change to 24 MHz: 64 cycles (2.67 us) each, its last data
        // bit included.
        const std::uint64_t last = r.txd.back().first, before = r.txd[r.txd.size() - 2].first;
        EXPECT_EQ(clock.edge_at_or_before(sc_time::from_value(last)) -
                      clock.edge_at_or_before(sc_time::from_value(before)),
                  64u);
    }
    EXPECT_EQ(fast.pin, ref.pin);
    EXPECT_EQ(lt.pin, ref.pin);
    for (traced* t : {&fast, &ref, &lt})
        std::remove(t->pl.config().rtl_vcd.c_str());
    rmdir(dir.c_str());
}
