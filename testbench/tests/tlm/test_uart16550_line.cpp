// SPDX-License-Identifier: Apache-2.0
// The 16550's TX line as characters (uart16550::report_line, uart16550_config::txd_edges = false)
// against its TXD pin on the same traffic. Two UARTs side by side get every access at the same time:
// `pins` drives TXD edge by edge (and reports too), `chars` reports only. From the reports the test
// rebuilds the pin's changes (a character's bit levels at their edges; a line_level drops what was
// reported from its time on), and requires them equal to the pin's, change by change at the exact
// times, for both UARTs; a line monitor decodes `pins`' pin, another `chars`' reports, and they must
// decode the same characters at the same times. The traffic cuts characters where the 16550 can: LCR
// BREAK set and cleared inside characters (and before a reported character's start), loopback toggled
// inside characters (the receiver reads the same in both), a reset (pin and reset()), a new XIN rate, a
// divisor or LCR change (the character keeps the format it started with); the mini UART too; and
// seeded random traffic of all of these, synchronised and loosely timed (the model reporting from an
// access's local time, ahead of SystemC time). The waves too: a VCD at 1 ps and a lines VCD written
// from `chars`' reports through vcd_line_reader are byte for byte those written from `pins`' pin, with
// each UART's FIFO level, THRE and IRQ changing at the same instants as the line.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim_main.h"
#include "tlm_payload.h"
#include "uart16550_bench.h"

#include <uartvp/line_monitor.h>
#include <uartvp/lines_vcd.h>
#include <uartvp/uart16550.h>
#include <uartvp/vcd_writer.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

using namespace sc_core;
using namespace uartvp;
using namespace uartvp::test;
using namespace uartvp::test::r16550;

namespace {

using line_changes = std::vector<std::pair<sc_time, bool>>;

// Changes only, one per time (the last level a time ends with), starting from mark.
line_changes normalised(const line_changes& in) {
    line_changes out;
    bool level = true;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (i + 1 < in.size() && in[i + 1].first == in[i].first) continue;
        if (in[i].second == level) continue;
        if (!out.empty() && out.back().first == in[i].first) {
            out.pop_back();
            level = !level;
            if (in[i].second == level) continue;
        }
        out.push_back(in[i]);
        level = in[i].second;
    }
    return out;
}

std::string first_difference(const line_changes& a, const line_changes& b) {
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
        std::ostringstream o;
        o << "change #" << i << ": ";
        if (i < a.size())
            o << a[i].second << " at " << a[i].first;
        else
            o << "(none)";
        o << " against ";
        if (i < b.size())
            o << b[i].second << " at " << b[i].first;
        else
            o << "(none)";
        return o.str();
    }
    return "";
}

// The pin's changes rebuilt from the reports, with what the reports said checked on the way.
struct report_recorder : serial_line_if {
    line_changes edges;
    bool level = true;
    std::uint64_t chars = 0, levels = 0, cuts = 0, short_stops = 0;
    std::vector<serial_char> reported;
    sc_time last_report_at = SC_ZERO_TIME;
    sc_time max_lead = SC_ZERO_TIME; // the farthest a report came ahead of the time it describes

    void add(const sc_time& t, bool v) {
        if (v == level) return;
        edges.emplace_back(t, v);
        level = v;
    }
    void in_time() {
        EXPECT_GE(sc_time_stamp(), last_report_at) << "reports come in SystemC time order";
        last_report_at = sc_time_stamp();
    }
    void line_char(const serial_char& c) override {
        in_time();
        ++chars;
        reported.push_back(c);
        if (c.short_stop) ++short_stops;
        EXPECT_GE(c.bits, 7u);
        EXPECT_LE(c.bits, 12u);
        EXPECT_EQ(c.bits, 1 + c.data_bits + (c.parity ? 1 : 0) + c.stop_bits) << "start, data, parity, stops";
        EXPECT_FALSE(c.level(0)) << "the start bit is space";
        for (unsigned k = c.bits - c.stop_bits; k < c.bits; ++k)
            EXPECT_TRUE(c.level(k)) << "stop bit " << k << " is mark";
        EXPECT_EQ(c.data, (c.levels >> 1) & ((1u << c.data_bits) - 1)) << "data are bits 1 on, LSB first";
        for (unsigned k = 0; k < c.bits; ++k)
            EXPECT_LT(c.edge[k], c.edge[k + 1]) << "bit " << k << " has a length";
        EXPECT_LE(sc_time_stamp(), c.start()) << "reported at or before its start";
        max_lead = std::max(max_lead, c.start() - sc_time_stamp());
        if (!edges.empty()) EXPECT_GE(c.start(), edges.back().first) << "after what the line did before";
        for (unsigned k = 0; k < c.bits; ++k)
            add(c.edge[k], c.level(k));
    }
    void line_level(const sc_time& t, bool v) override {
        in_time();
        ++levels;
        EXPECT_GE(t, sc_time_stamp()) << "a level is reported at or before its time";
        max_lead = std::max(max_lead, t - sc_time_stamp());
        bool cut = false;
        while (!edges.empty() && edges.back().first >= t) {
            edges.pop_back();
            cut = true;
        }
        if (cut) ++cuts;
        level = edges.empty() ? true : edges.back().second;
        add(t, v);
    }
};

uart16550_config with_edges(uart16550_config c, bool edges) {
    c.txd_edges = edges;
    return c;
}

struct twin_bench : sc_module {
    sc_signal<bool> txd_pins{"txd_pins", true}, txd_chars{"txd_chars", true}, irq_pins{"irq_pins"},
        irq_chars{"irq_chars"}, rxd{"rxd", true}, nreset{"nreset", true};
    uart16550 pins, chars;
    line_monitor mon_pins, mon_chars;
    report_recorder rep_pins, rep_chars;
    tlm_utils::simple_initiator_socket<twin_bench, 32> sock_pins{"sock_pins"}, sock_chars{"sock_chars"};
    line_changes pin_log, chars_pin_log;
    std::vector<decoded_char> dec_pins, dec_chars;
    std::function<void(twin_bench&)> body;
    bool finished = false;
    // The waves both ways: from `pins`' TXD pin, and from `chars`' reports.
    std::string dir;
    vcd_line_reader reader;
    std::unique_ptr<vcd_writer> vcd_pin, vcd_rep;
    std::unique_ptr<lines_vcd> lines_pin, lines_rep;

    SC_HAS_PROCESS(twin_bench);
    twin_bench(const sc_module_name& n, const uart16550_config& cfg, double baud, serial_format fmt,
               std::function<void(twin_bench&)> b)
        : sc_module(n)
        , pins("pins", with_edges(cfg, true))
        , chars("chars", with_edges(cfg, false))
        , mon_pins("mon_pins", baud, fmt)
        , mon_chars("mon_chars", baud, fmt)
        , body(std::move(b)) {
        for (uart16550* u : {&pins, &chars}) {
            u->rxd(rxd);
            u->nreset(nreset);
        }
        pins.txd(txd_pins);
        pins.irq(irq_pins);
        chars.txd(txd_chars);
        chars.irq(irq_chars);
        sock_pins.bind(pins.bus);
        sock_chars.bind(chars.bus);
        pins.report_line(rep_pins);
        chars.report_line(rep_chars);
        chars.report_line(mon_chars);
        mon_chars.take_characters(true);
        mon_pins.line(txd_pins);
        mon_chars.line(txd_chars);
        char tmpl[] = "/tmp/uartvp-16550-waves-XXXXXX";
        dir = mkdtemp(tmpl);
        vcd_pin = std::make_unique<vcd_writer>("vcd_pin", dir + "/pin.vcd");
        vcd_rep = std::make_unique<vcd_writer>("vcd_rep", dir + "/rep.vcd");
        const std::uint64_t coarse = lines_vcd::timescale_for(baud);
        lines_pin = std::make_unique<lines_vcd>("lines_pin", dir + "/pin.lines.vcd", coarse);
        lines_rep = std::make_unique<lines_vcd>("lines_rep", dir + "/rep.lines.vcd", coarse);
        chars.report_line(reader);
        for (auto [w, u, irq] :
             {std::tuple{vcd_pin.get(), &pins, &irq_pins}, std::tuple{vcd_rep.get(), &chars, &irq_chars}}) {
            w->add(u->tx_fifo_level, "uart0.tx_fifo_level", 5);
            w->add(u->thre, "uart0.thre");
            w->add(u->temt, "uart0.temt");
            w->add(*irq, "uart0.irq");
        }
        vcd_pin->add(txd_pins, "lines.txd");
        reader.add_to(*vcd_rep, "lines.txd");
        lines_pin->add(txd_pins, "txd");
        lines_rep->add(reader, "txd");
        lines_pin->add(irq_pins, "irq");
        lines_rep->add(irq_chars, "irq");
        mon_pins.on_char([this](const decoded_char& c) { dec_pins.push_back(c); });
        mon_chars.on_char([this](const decoded_char& c) { dec_chars.push_back(c); });
        SC_THREAD(cpu);
        SC_METHOD(log_pins);
        sensitive << txd_pins;
        dont_initialize();
        SC_METHOD(log_chars_pin);
        sensitive << txd_chars;
        dont_initialize();
    }
    void cpu() {
        body(*this);
        wait(sc_time(5, SC_MS)); // the last frame ends, the monitors take its stop bit
        finished = true;
        sc_stop();
    }
    void log_pins() { pin_log.emplace_back(sc_time_stamp(), txd_pins.read()); }
    void log_chars_pin() { chars_pin_log.emplace_back(sc_time_stamp(), txd_chars.read()); }

    std::uint64_t offset(unsigned idx) const { return std::uint64_t{idx} << pins.config().reg_shift; }
    // Loosely timed: the initiator's local time ahead of SystemC time, synchronised past a quantum.
    bool lt = false;
    sc_time local = SC_ZERO_TIME;
    std::uint8_t access(bool write, unsigned idx, std::uint8_t v) {
        std::uint32_t results[2] = {0, 0};
        sc_time delays[2];
        int i = 0;
        for (auto* s : {&sock_pins, &sock_chars}) {
            std::uint32_t d = v;
            tlm::tlm_generic_payload tx;
            set_access(tx, write, offset(idx), d, pins.config().reg_io_width, nullptr);
            sc_time delay = local;
            (*s)->b_transport(tx, delay);
            EXPECT_EQ(tx.get_response_status(), tlm::TLM_OK_RESPONSE);
            if (!lt) EXPECT_EQ(delay, SC_ZERO_TIME);
            delays[i] = delay;
            results[i++] = d & 0xFF;
        }
        EXPECT_EQ(delays[0], delays[1]);
        local = delays[0];
        if (!write)
            EXPECT_EQ(results[0], results[1])
                << "register " << idx << " reads the same both ways at " << sc_time_stamp();
        return static_cast<std::uint8_t>(results[0]);
    }
    void wr(unsigned idx, std::uint8_t v) { access(true, idx, v); }
    std::uint8_t rd(unsigned idx) { return access(false, idx, 0); }
    void wait_ns(double ns) {
        if (!lt) {
            wait(sc_time(ns, SC_NS));
            return;
        }
        local += sc_time(ns, SC_NS);
        if (local > sc_time(30, SC_US)) sync();
    }
    void sync() {
        wait(local);
        local = SC_ZERO_TIME;
    }
    void setup(unsigned divisor, std::uint8_t lcr) {
        wr(LCR, lcr | LCR_DLAB);
        wr(DLL, divisor & 0xFF);
        wr(DLM, divisor >> 8);
        wr(LCR, lcr);
    }
    void set_clock_hz(std::uint64_t hz) {
        if (lt) sync();
        pins.set_clock_hz(hz);
        chars.set_clock_hz(hz);
    }
    void reset_both() {
        if (lt) sync();
        pins.reset();
        chars.reset();
    }

    // The checks every test makes at the end.
    void check(bool pin_of_chars_idles = false) {
        ASSERT_TRUE(finished);
        const line_changes pin = normalised(pin_log), from_pins = normalised(rep_pins.edges),
                           from_chars = normalised(rep_chars.edges);
        EXPECT_GT(pin.size(), 20u) << "the traffic must reach the line";
        EXPECT_EQ(first_difference(pin, from_pins), "") << "the pin-driving UART's reports against its pin";
        EXPECT_EQ(first_difference(pin, from_chars), "")
            << "the reporting UART's reports against the pin-driving UART's pin";
        // Without edges the pin shows the line between characters only.
        const line_changes chars_pin = normalised(chars_pin_log);
        EXPECT_LT(chars_pin.size() * 4, pin.size() + 4) << "no TXD edges inside characters";
        if (pin_of_chars_idles) EXPECT_TRUE(chars_pin.empty()) << "no break, no TXD change at all";
        // The monitor decodes the same both ways.
        EXPECT_GT(dec_pins.size(), 0u);
        ASSERT_EQ(dec_pins.size(), dec_chars.size())
            << "characters decoded from the pin and from the reports";
        for (std::size_t i = 0; i < dec_pins.size(); ++i) {
            const decoded_char &p = dec_pins[i], &c = dec_chars[i];
            EXPECT_TRUE(p.data == c.data && p.start == c.start && p.end == c.end &&
                        p.framing_error == c.framing_error && p.parity_error == c.parity_error &&
                        p.is_break == c.is_break)
                << "decoded character #" << i << ": " << int(p.data) << " at " << p.start << " against "
                << int(c.data) << " at " << c.start;
        }
        EXPECT_EQ(mon_pins.false_starts(), mon_chars.false_starts());
        EXPECT_EQ(mon_pins.breaks(), mon_chars.breaks());
        check_waves();
    }
    static std::string slurp(const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        std::ostringstream s;
        s << f.rdbuf();
        return s.str();
    }
    void check_waves() {
        ASSERT_TRUE(vcd_pin->close() && vcd_rep->close() && lines_pin->close() && lines_rep->close());
        for (const char* f : {"/pin.vcd", "/pin.lines.vcd"}) {
            const std::string pin = slurp(dir + f), rep = slurp(dir + "/rep" + std::string(f).substr(4));
            EXPECT_GT(pin.size(), 300u) << f;
            if (pin == rep) continue;
            std::size_t i = 0;
            while (i < pin.size() && i < rep.size() && pin[i] == rep[i])
                ++i;
            const std::size_t from = pin.rfind('#', i) == std::string::npos ? 0 : pin.rfind('#', i);
            ADD_FAILURE() << f << " from the reports differs from the pin's at byte " << i
                          << ":\npin: " << pin.substr(from, i - from + 80)
                          << "\nreports: " << rep.substr(from, i - from + 80);
        }
    }
    ~twin_bench() override {
        for (const char* f : {"/pin.vcd", "/rep.vcd", "/pin.lines.vcd", "/rep.lines.vcd"})
            std::remove((dir + f).c_str());
        rmdir(dir.c_str());
    }
};

constexpr std::uint64_t pc_clock = 1'843'200;
double bit_ns(unsigned divisor, std::uint64_t hz = pc_clock) {
    return 16.0 * divisor * 1e9 / static_cast<double>(hz);
}

uart16550_config pc_config() {
    uart16550_config c;
    c.clock_hz = pc_clock;
    return c;
}

void run_twins(const uart16550_config& cfg, double baud, serial_format fmt,
               std::function<void(twin_bench&)> body, std::function<void(twin_bench&)> after) {
    twin_bench b("twins", cfg, baud, fmt, std::move(body));
    b.lt = cfg.loosely_timed;
    sc_start();
    after(b);
}

} // namespace

// Characters into an idle transmitter and back-to-back through the FIFO, in several frame formats:
// 1.5 stop bits (5 data bits with STB), parity even, odd and stick, 2 stop bits.
TEST(Uart16550Line, CharactersInEveryFormatAreThePinsEdges) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            b.wr(FCR, FCR_EN | FCR_CLR_RX | FCR_CLR_TX);
            const std::uint8_t lcrs[] = {LCR_8N1,        0x04 /* 5N1.5 */,   0x1E /* 7E2 */,
                                         0x09 /* 6O1 */, 0x2B /* 8 stick */, 0x07 /* 8N2 */};
            for (std::uint8_t lcr : lcrs) {
                b.setup(1, lcr);
                b.wr(THR, 0x55); // into an idle transmitter
                b.wait_ns(15 * bit_ns(1));
                for (int i = 0; i < 12; ++i) // back to back
                    b.wr(THR, static_cast<std::uint8_t>(0x30 + i * 7));
                while (!(b.rd(LSR) & LSR_TEMT))
                    b.wait_ns(3 * bit_ns(1));
                b.wait_ns(4 * bit_ns(1));
            }
        },
        [](twin_bench& b) {
            b.check(true);
            EXPECT_EQ(b.rep_chars.chars, 6u * 13u) << "one report per character";
            EXPECT_EQ(b.rep_chars.short_stops, 13u) << "the 5-bit words with STB: 1.5 stop bits";
            EXPECT_EQ(b.rep_chars.cuts, 0u);
            EXPECT_EQ(b.rep_chars.reported[13].data_bits, 5u);
            EXPECT_EQ(b.rep_chars.reported[26].parity, true);
            EXPECT_EQ(b.rep_chars.reported[26].stop_bits, 2u);
        });
}

// LCR.BREAK forces TXD to space at once, inside a character or before a reported one starts; cleared
// inside a character the rest of its bits reach the line, cleared before the start the whole character.
TEST(Uart16550Line, BreakSetAndClearedInsideCharacters) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            b.wr(FCR, FCR_EN);
            b.setup(1, LCR_8N1);
            const double bit = bit_ns(1);
            for (double set_at : {3.3, 0.4, 9.6, 5.0}) {
                for (int i = 0; i < 6; ++i)
                    b.wr(THR, static_cast<std::uint8_t>(0xA5 ^ (i * 0x11)));
                b.wait_ns((1 + set_at) * bit); // the first starts one bit after the write
                b.wr(LCR, LCR_8N1 | LCR_BREAK);
                b.wait_ns(set_at * 3 * bit + 7 * bit);
                b.wr(LCR, LCR_8N1);
                b.wait_ns(2.5 * bit);
                b.wr(LCR, LCR_8N1 | LCR_BREAK); // a short break inside one character
                b.wait_ns(0.7 * bit);
                b.wr(LCR, LCR_8N1);
                while (!(b.rd(LSR) & LSR_TEMT))
                    b.wait_ns(3 * bit);
                b.wait_ns(5 * bit);
            }
            // Set after the write, before the character's start bit (it is reported ahead), and cleared
            // before that start: the character goes out whole.
            b.wr(THR, 0x3C);
            b.wait_ns(0.3 * bit);
            b.wr(LCR, LCR_8N1 | LCR_BREAK);
            b.wait_ns(0.3 * bit);
            b.wr(LCR, LCR_8N1);
            b.wait_ns(15 * bit);
            // A break the receiver would take as one: longer than a frame, between characters.
            b.wr(LCR, LCR_8N1 | LCR_BREAK);
            b.wait_ns(25 * bit);
            b.wr(LCR, LCR_8N1);
            b.wr(THR, 0x42);
        },
        [](twin_bench& b) {
            b.check();
            EXPECT_GE(b.rep_chars.cuts, 5u) << "breaks cut characters";
            EXPECT_GT(b.mon_chars.breaks(), 0u) << "the long break reaches the monitor";
            bool whole = false;
            for (const decoded_char& c : b.dec_chars)
                whole |= c.data == 0x3C && !c.framing_error;
            EXPECT_TRUE(whole) << "a break released before the start leaves the character whole";
        });
}

// Loopback holds TXD at mark and takes the frames into the receiver: set inside a character (cut
// there), cleared inside one (its remaining bits on the line); the receiver reads the same both ways.
TEST(Uart16550Line, LoopbackToggledInsideCharacters) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            b.wr(FCR, FCR_EN | FCR_CLR_RX);
            b.setup(1, LCR_8N1);
            const double bit = bit_ns(1);
            for (double at : {2.2, 6.5, 0.5, 8.1}) {
                for (int i = 0; i < 8; ++i)
                    b.wr(THR, static_cast<std::uint8_t>(0x41 + i));
                b.wait_ns((1 + at) * bit);
                b.wr(MCR, MCR_LOOP | MCR_OUT2);
                b.wait_ns((23 + at) * bit); // a character whole in loopback, then cleared inside one
                b.wr(MCR, MCR_OUT2);
                b.wait_ns(4.3 * bit);
                b.wr(MCR, MCR_LOOP); // again, and with BREAK meanwhile: loopback wins on TXD
                b.wait_ns(2 * bit);
                b.wr(LCR, LCR_8N1 | LCR_BREAK);
                b.wait_ns(3 * bit);
                b.wr(MCR, 0); // the break shows
                b.wait_ns(3 * bit);
                b.wr(LCR, LCR_8N1);
                while (!(b.rd(LSR) & LSR_TEMT))
                    b.wait_ns(3 * bit);
                b.wait_ns(12 * bit);
                while (b.rd(LSR) & LSR_DR) // the receiver took the same, both ways
                    b.rd(RBR);
            }
        },
        [](twin_bench& b) {
            b.check();
            EXPECT_GE(b.rep_chars.cuts, 8u);
            EXPECT_GT(b.rep_chars.levels, 16u) << "the rest of released characters, level by level";
        });
}

// The frame format and divisor are taken when a character starts: an LCR or divisor change inside one
// leaves it as it started; the next characters go in the new format.
TEST(Uart16550Line, LcrAndDivisorChangesInsideACharacterLeaveIt) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            b.wr(FCR, FCR_EN);
            b.setup(1, LCR_8N1);
            for (int i = 0; i < 4; ++i)
                b.wr(THR, static_cast<std::uint8_t>(0x61 + i));
            b.wait_ns(4.5 * bit_ns(1));
            b.setup(3, 0x1A); // 7E1 at a third of the rate, inside the first character
            b.wait_ns(7.2 * bit_ns(3));
            b.wr(LCR, 0x1A | LCR_DLAB); // DLAB inside a character of the new format
            b.wr(DLL, 2);
            b.wr(LCR, 0x05); // 6N2
            while (!(b.rd(LSR) & LSR_TEMT))
                b.wait_ns(bit_ns(3));
            b.wr(THR, 0x2A);
        },
        [](twin_bench& b) {
            b.check(true);
            const auto& r = b.rep_chars.reported;
            ASSERT_EQ(r.size(), 5u);
            auto bit_of = [](const serial_char& c) { return (c.edge[1] - c.edge[0]).to_seconds() * 1e9; };
            EXPECT_EQ(r[0].data_bits, 8u) << "the character under way keeps its format";
            EXPECT_NEAR(bit_of(r[0]), bit_ns(1), 0.01) << "and its divisor";
            EXPECT_EQ(r[1].data_bits, 7u);
            EXPECT_TRUE(r[1].parity);
            EXPECT_NEAR(bit_of(r[1]), bit_ns(3), 0.01);
            EXPECT_EQ(r[2].data_bits, 6u) << "the second change, inside the second character";
            EXPECT_EQ(r[2].stop_bits, 2u);
            EXPECT_NEAR(bit_of(r[2]), bit_ns(2), 0.01);
            EXPECT_EQ(r[4].data, 0x2A & 0x3F);
        });
}

// A reset (the nreset pin, and reset()) cuts the character on the line: TXD at mark from then on.
TEST(Uart16550Line, ResetCutsTheCharacterOnTheLine) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            const double bit = bit_ns(1);
            for (double at : {4.4, 0.2, 9.3}) {
                b.wr(FCR, FCR_EN);
                b.setup(1, LCR_8N1);
                for (int i = 0; i < 5; ++i)
                    b.wr(THR, static_cast<std::uint8_t>(0x70 + i));
                b.wait_ns((11 + at) * bit);
                b.nreset.write(false);
                b.wait_ns(3 * bit);
                b.nreset.write(true);
                b.wait_ns(bit);
                b.wr(FCR, FCR_EN);
                b.setup(1, LCR_8N1);
                b.wr(THR, 0x11);
                b.wr(THR, 0x22);
                b.wait_ns((12 + at) * bit);
                b.reset_both();
                b.wait_ns(2 * bit);
                // A break the reset ends.
                b.setup(1, LCR_8N1 | LCR_BREAK);
                b.wait_ns(3 * bit);
                b.reset_both();
                b.wait_ns(15 * bit);
            }
        },
        [](twin_bench& b) {
            b.check();
            EXPECT_GE(b.rep_chars.cuts, 3u) << "resets cut characters";
        });
}

// A new XIN rate inside a character: its remaining bits at the new rate (reported anew).
TEST(Uart16550Line, ClockChangeInsideACharacter) {
    UARTVP_SIM_TEST();
    run_twins(
        pc_config(), pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            b.wr(FCR, FCR_EN);
            b.setup(1, LCR_8N1);
            for (int i = 0; i < 4; ++i)
                b.wr(THR, static_cast<std::uint8_t>(0x5A + i));
            b.wait_ns(3.7 * bit_ns(1));
            b.set_clock_hz(3'686'400);
            b.wait_ns(0.2 * bit_ns(1)); // between the write and the start bit of the next
            b.wr(THR, 0x33);
            b.wait_ns(12.7 * bit_ns(1, 3'686'400));
            b.set_clock_hz(1'000'000);
            while (!(b.rd(LSR) & LSR_TEMT))
                b.wait_ns(bit_ns(1));
            b.wr(THR, 0x0F);
            b.wait_ns(0.5 * bit_ns(1, 1'000'000)); // reported, not started
            b.set_clock_hz(pc_clock);
        },
        [](twin_bench& b) {
            b.check(true);
            EXPECT_GE(b.rep_chars.cuts, 2u) << "the reported rest replaced at the new rate";
        });
}

// The BCM2835 mini UART: 7 and 8 data bits, its own baud formula, BREAK and a reset inside characters.
TEST(Uart16550Line, MiniUartCharactersBreakAndReset) {
    UARTVP_SIM_TEST();
    uart16550_config cfg;
    cfg.part = uart16550_part::bcm2835_mini;
    cfg.clock_hz = 250'000'000;
    cfg.reg_shift = 2;
    cfg.reg_io_width = 4;
    constexpr unsigned aux_mu_baud = 270;
    const double bit = 8.0 * (aux_mu_baud + 1) * 1e9 / 250e6;
    run_twins(
        cfg, 1e9 / bit, serial_format{},
        [bit](twin_bench& b) {
            b.setup(aux_mu_baud, 0x03);
            for (int i = 0; i < 8; ++i)
                b.wr(THR, static_cast<std::uint8_t>(0x30 + i));
            b.wait_ns(25.5 * bit);
            b.wr(LCR, 0x03 | LCR_BREAK);
            b.wait_ns(4.2 * bit);
            b.wr(LCR, 0x03);
            b.wait_ns(13.1 * bit);
            b.nreset.write(false);
            b.wait_ns(2 * bit);
            b.nreset.write(true);
            b.setup(aux_mu_baud, 0x02); // 7 data bits
            for (int i = 0; i < 4; ++i)
                b.wr(THR, static_cast<std::uint8_t>(0x41 + i));
            while (!(b.rd(LSR) & LSR_TEMT))
                b.wait_ns(bit);
        },
        [](twin_bench& b) {
            b.check();
            EXPECT_GE(b.rep_chars.cuts, 2u);
            EXPECT_EQ(b.rep_chars.reported.back().data_bits, 7u);
        });
}

// Seeded random traffic of all of it: bursts, BREAK, loopback, format and divisor changes, resets,
// new clock rates, at times that fall anywhere in a character.
void random_traffic(const uart16550_config& cfg) {
    run_twins(
        cfg, pc_clock / 16.0, serial_format{},
        [](twin_bench& b) {
            std::mt19937_64 rng(16550);
            auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
            std::uint8_t lcr = LCR_8N1, mcr = 0;
            unsigned divisor = 1;
            std::uint64_t hz = pc_clock;
            b.wr(FCR, FCR_EN);
            b.setup(divisor, lcr);
            for (int op = 0; op < 4000; ++op) {
                const unsigned k = pick(100);
                if (k < 45) {
                    const unsigned n = 1 + pick(5);
                    for (unsigned i = 0; i < n; ++i)
                        b.wr(THR, static_cast<std::uint8_t>(rng()));
                } else if (k < 57) {
                    lcr ^= LCR_BREAK;
                    b.wr(LCR, lcr);
                } else if (k < 65) {
                    mcr ^= MCR_LOOP;
                    b.wr(MCR, mcr);
                } else if (k < 72) {
                    lcr = static_cast<std::uint8_t>((lcr & LCR_BREAK) | pick(64));
                    b.wr(LCR, lcr);
                } else if (k < 77) {
                    divisor = 1 + pick(3);
                    b.setup(divisor, lcr);
                } else if (k < 79) {
                    if (b.lt) b.sync(); // the pin at the initiator's time
                    b.nreset.write(false);
                    b.wait_ns(pick(3000));
                    if (b.lt) b.sync();
                    b.nreset.write(true);
                    lcr = 0;
                    mcr = 0;
                    b.wr(FCR, FCR_EN);
                } else if (k < 80) {
                    b.reset_both();
                    lcr = 0;
                    mcr = 0;
                } else if (k < 82) {
                    hz = pc_clock * (1 + pick(2));
                    b.set_clock_hz(hz);
                } else if (k < 90) {
                    if (b.rd(LSR) & LSR_DR) b.rd(RBR);
                } else {
                    b.rd(LSR);
                }
                b.wait_ns(pick(static_cast<unsigned>(14 * bit_ns(divisor, hz))));
            }
            lcr &= static_cast<std::uint8_t>(~LCR_BREAK);
            b.wr(LCR, lcr);
            b.wr(MCR, 0);
        },
        [](twin_bench& b) {
            b.check();
            std::printf("random traffic: %zu pin changes, %llu characters, %llu levels, %llu cuts reported\n",
                        b.pin_log.size(), static_cast<unsigned long long>(b.rep_chars.chars),
                        static_cast<unsigned long long>(b.rep_chars.levels),
                        static_cast<unsigned long long>(b.rep_chars.cuts));
            EXPECT_GT(b.rep_chars.chars, 600u);
            EXPECT_GT(b.rep_chars.cuts, 100u);
            // Loosely timed, the model reports from an access's local time, up to a quantum ahead.
            if (b.lt) EXPECT_GT(b.rep_chars.max_lead, sc_time(20, SC_US));
        });
}

TEST(Uart16550Line, RandomTrafficReportsThePinsEdges) {
    UARTVP_SIM_TEST();
    random_traffic(pc_config());
}

// Loosely timed: the model runs ahead of SystemC time to each access's local time and reports from
// there (ahead of SystemC time); the pin shows the same at its times.
TEST(Uart16550Line, RandomTrafficReportsThePinsEdges_LooselyTimed) {
    UARTVP_SIM_TEST();
    uart16550_config c = pc_config();
    c.loosely_timed = true;
    random_traffic(c);
}
