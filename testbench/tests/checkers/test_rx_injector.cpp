// SPDX-License-Identifier: Apache-2.0
// RX injector: every edge it drives, checked to the picosecond against times computed here.
#include "bit_times.h"
#include "sim_main.h"
#include <uartvp/line_monitor.h>
#include <uartvp/lines_vcd.h>
#include <uartvp/rx_injector.h>
#include <uartvp/vcd_writer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using sc_core::SC_PS;
using sc_core::sc_time;
using sc_core::SC_US;
using uartvp::decoded_char;
using uartvp::serial_format;
using uartvp::test::bit_time;
using uartvp::test::ps;

namespace {

using edge = std::pair<sc_time, bool>;

// An injector on a line, every value change logged, and a monitor decoding it.
struct bench : sc_core::sc_module {
    sc_core::sc_signal<bool> wire;
    uartvp::rx_injector inj;
    uartvp::line_monitor mon;
    std::vector<edge> edges;
    std::vector<decoded_char> got;
    std::vector<sc_time> done_at;
    std::function<void()> body;

    bench(sc_core::sc_module_name n, double baud, serial_format fmt)
        : sc_module(n)
        , wire("wire", true)
        , inj("inj", baud, fmt)
        , mon("mon", baud, fmt) {
        inj.line(wire);
        mon.line(wire);
        mon.on_char([this](const decoded_char& c) { got.push_back(c); });
        SC_HAS_PROCESS(bench);
        SC_METHOD(log_edge);
        sensitive << wire;
        dont_initialize();
        SC_METHOD(log_done);
        sensitive << inj.done_event();
        dont_initialize();
        SC_THREAD(run);
    }
    void log_edge() { edges.emplace_back(sc_core::sc_time_stamp(), wire.read()); }
    void log_done() { done_at.push_back(sc_core::sc_time_stamp()); }
    void run() {
        if (body) body();
    }
};

// The edges of a frame sent from t0, computed independently: bit k at t0 + round(k * 1e12 / baud) ps,
// one edge wherever the value changes, and the return to idle at the frame end if the last bit was low.
void frame_edges(std::vector<edge>& out, sc_time t0, unsigned byte, double baud, serial_format f,
                 bool flip_parity = false, bool low_stop = false) {
    std::vector<bool> bits{false};
    unsigned ones = 0;
    for (unsigned i = 0; i < f.data_bits; ++i) {
        bits.push_back((byte >> i) & 1u);
        ones += (byte >> i) & 1u;
    }
    if (f.has_parity()) {
        bool p = f.parity == uartvp::parity_mode::mark ||
                 (f.parity == uartvp::parity_mode::even && ones % 2 == 1) ||
                 (f.parity == uartvp::parity_mode::odd && ones % 2 == 0);
        bits.push_back(p != flip_parity);
    }
    for (unsigned i = 0; i < f.stop_bits; ++i)
        bits.push_back(!low_stop);
    bool level = true;
    for (std::size_t k = 0; k < bits.size(); ++k)
        if (bits[k] != level) {
            out.emplace_back(t0 + bit_time(baud, k), bits[k]);
            level = bits[k];
        }
    if (!level) out.emplace_back(t0 + bit_time(baud, bits.size()), true);
}

void expect_edges(const std::vector<edge>& got, const std::vector<edge>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].first, want[i].first) << "edge " << i;
        EXPECT_EQ(got[i].second, want[i].second) << "edge " << i;
    }
}

} // namespace

TEST(rx_injector, bit_edges_are_exact_to_the_picosecond_at_115200) {
    UARTVP_SIM_TEST();
    const double baud = 115200; // 8680555.56 ps per bit
    bench b("b", baud, serial_format{});
    const sc_time t0(5, SC_US);
    const std::string text("A\x55\x00\xff", 4);
    b.inj.send(text, t0);
    sc_core::sc_start();
    std::vector<edge> want;
    for (int j = 0; j < 4; ++j)
        frame_edges(want, t0 + bit_time(baud, 10.0L * j), text[j] & 0xff, baud, serial_format{});
    expect_edges(b.edges, want);
    // Spot checks by hand: 'A' = 0x41 is 1 0 0 0 0 0 1 0 LSB first.
    EXPECT_EQ(b.edges[0].first, t0);                            // start bit
    EXPECT_EQ(b.edges[1].first, t0 + sc_time(8680556, SC_PS));  // bit 0 = 1
    EXPECT_EQ(b.edges[2].first, t0 + sc_time(17361111, SC_PS)); // bit 1 = 0
    EXPECT_EQ(b.edges[3].first, t0 + sc_time(60763889, SC_PS)); // bit 6 = 1
    EXPECT_EQ(b.edges[4].first, t0 + sc_time(69444444, SC_PS)); // bit 7 = 0
    EXPECT_EQ(b.edges[5].first, t0 + sc_time(78125000, SC_PS)); // stop
    EXPECT_EQ(b.edges[6].first, t0 + sc_time(86805556, SC_PS)); // next start bit
    ASSERT_EQ(b.got.size(), 4u);
    EXPECT_EQ(b.got[3].data, 0xff);
}

TEST(rx_injector, bit_edges_are_exact_at_a_rate_with_a_fractional_period) {
    UARTVP_SIM_TEST();
    // 921600 baud: 1085069.44 ps per bit; 1.5 Mbaud: 666666.67 ps; and a rate that is not an integer.
    const double baud = 921600;
    bench b("b", baud, *serial_format::parse("7O2"));
    std::vector<edge> want;
    b.body = [&] {
        const sc_time t0(2, SC_US);
        b.inj.send("Hi!", t0);
        wait(b.inj.done_event());
        const auto f = *serial_format::parse("8E1");
        const double baud2 = 1500000;
        b.inj.set_format(baud2, f);
        b.mon.set_format(baud2, f);
        const sc_time t1(100, SC_US);
        b.inj.send("ok", t1);
        wait(b.inj.done_event());
        const double baud3 = 3e6 / 7; // 428571.43 baud, not even a whole number: 2333333.33 ps
        b.inj.set_format(baud3, f);
        b.mon.set_format(baud3, f);
        const sc_time t2(200, SC_US);
        b.inj.send("\x5a", t2);
        wait(b.inj.done_event());
        for (int j = 0; j < 3; ++j)
            frame_edges(want, t0 + bit_time(baud, 11.0L * j), "Hi!"[j], baud, *serial_format::parse("7O2"));
        for (int j = 0; j < 2; ++j)
            frame_edges(want, t1 + bit_time(baud2, 11.0L * j), "ok"[j], baud2, f);
        frame_edges(want, t2, 0x5a, baud3, f);
    };
    sc_core::sc_start();
    expect_edges(b.edges, want);
    ASSERT_EQ(b.got.size(), 6u);
    EXPECT_EQ(b.got[1].data, 'i');
    EXPECT_EQ(b.got[4].data, 'k');
    EXPECT_EQ(b.got[5].data, 0x5a);
    for (const auto& c : b.got)
        EXPECT_FALSE(c.framing_error || c.parity_error);
}

TEST(rx_injector, long_paste_does_not_drift) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench b("b", baud, serial_format{});
    const std::string text(5000, 'U'); // 0x55: an edge at every bit
    b.inj.send(text);
    sc_core::sc_start();
    ASSERT_EQ(b.edges.size(), 5000u * 10);
    // The start bit of character j is at round(j * 10 bit periods) from the first, not j * round(10 periods).
    const std::size_t j = 4999;
    EXPECT_EQ(b.edges[j * 10].first, sc_time(433940972222, SC_PS));
    EXPECT_EQ(b.edges[j * 10 + 3].first, sc_time(433940972222 + 26041667, SC_PS));
    ASSERT_EQ(b.got.size(), 5000u);
    EXPECT_EQ(b.got.back().end, sc_time(433940972222 + 86805556, SC_PS));
    EXPECT_EQ(b.mon.chars(), 5000u);
}

TEST(rx_injector, gap_puts_idle_time_between_characters) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench b("b", baud, serial_format{});
    uartvp::rx_injector::options opt;
    opt.gap = sc_time(13, SC_US);
    b.inj.send("ab", sc_core::SC_ZERO_TIME, opt);
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 2u);
    EXPECT_EQ(b.got[0].start, sc_core::SC_ZERO_TIME);
    EXPECT_EQ(b.got[1].start, bit_time(baud, 10) + sc_time(13, SC_US));
    EXPECT_EQ(b.got[1].data, 'b');
}

TEST(rx_injector, bad_stop_bit_drives_the_stop_bit_low_and_makes_a_framing_error) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    const auto f = *serial_format::parse("8N2");
    bench b("b", baud, f);
    b.inj.send("a");
    b.inj.set_bad_stop(true);
    b.inj.send("b");
    b.inj.set_bad_stop(false);
    b.inj.send("c");
    sc_core::sc_start();
    std::vector<edge> want;
    frame_edges(want, sc_core::SC_ZERO_TIME, 'a', baud, f);
    frame_edges(want, bit_time(baud, 11), 'b', baud, f, false, true);
    frame_edges(want, bit_time(baud, 23), 'c', baud, f); // after one bit of mark
    expect_edges(b.edges, want);
    ASSERT_EQ(b.got.size(), 3u);
    EXPECT_FALSE(b.got[0].framing_error);
    EXPECT_TRUE(b.got[1].framing_error);
    EXPECT_EQ(b.got[1].data, 'b');
    EXPECT_FALSE(b.got[1].is_break);
    EXPECT_FALSE(b.got[2].framing_error);
}

TEST(rx_injector, bad_parity_inverts_the_parity_bit) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    const auto f = *serial_format::parse("7E1");
    bench b("b", baud, f);
    uartvp::rx_injector::options bad;
    bad.bad_parity = true;
    b.inj.send("x");
    b.inj.send("xy", sc_core::SC_ZERO_TIME, bad);
    sc_core::sc_start();
    std::vector<edge> want;
    frame_edges(want, sc_core::SC_ZERO_TIME, 'x', baud, f);
    // Each item's characters are timed from the item's start (the end of the previous item).
    const sc_time item2 = bit_time(baud, 10);
    frame_edges(want, item2, 'x', baud, f, true);
    frame_edges(want, item2 + bit_time(baud, 10), 'y', baud, f, true);
    expect_edges(b.edges, want);
    ASSERT_EQ(b.got.size(), 3u);
    EXPECT_FALSE(b.got[0].parity_error);
    EXPECT_TRUE(b.got[1].parity_error);
    EXPECT_TRUE(b.got[2].parity_error);
    EXPECT_FALSE(b.got[1].framing_error);
}

TEST(rx_injector, break_holds_the_line_low_for_its_duration) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench b("b", baud, serial_format{});
    const sc_time at(10, SC_US), len(250, SC_US);
    b.inj.send_break(len, at);
    b.inj.send("!");
    sc_core::sc_start();
    ASSERT_GE(b.edges.size(), 3u);
    EXPECT_EQ(b.edges[0], edge(at, false));
    EXPECT_EQ(b.edges[1], edge(at + len, true));
    // The next character waits one bit period of mark after the break.
    EXPECT_EQ(b.edges[2], edge(at + len + bit_time(baud, 1), false));
    ASSERT_EQ(b.got.size(), 2u);
    EXPECT_TRUE(b.got[0].is_break);
    EXPECT_EQ(b.got[1].data, '!');
    EXPECT_EQ(b.mon.breaks(), 1u);
}

TEST(rx_injector, send_at_starts_no_earlier_and_queues_in_order) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench b("b", baud, serial_format{});
    b.inj.send("1", sc_time(50, SC_US));
    b.inj.send("2", sc_time(10, SC_US)); // already past when its turn comes: right after "1"
    b.inj.send("3", sc_time(500, SC_US));
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 3u);
    EXPECT_EQ(b.got[0].start, sc_time(50, SC_US));
    EXPECT_EQ(b.got[1].start, sc_time(50, SC_US) + bit_time(baud, 10));
    EXPECT_EQ(b.got[2].start, sc_time(500, SC_US));
}

TEST(rx_injector, idle_and_done_event_follow_the_last_stop_bit) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench b("b", baud, serial_format{});
    std::vector<bool> idle_seen;
    b.body = [&] {
        idle_seen.push_back(b.inj.idle()); // nothing queued yet
        b.inj.send("ab");
        idle_seen.push_back(b.inj.idle());
        wait(bit_time(baud, 15));
        idle_seen.push_back(b.inj.idle()); // inside the second frame
        wait(b.inj.done_event());
        idle_seen.push_back(b.inj.idle());
    };
    sc_core::sc_start();
    EXPECT_EQ(idle_seen, (std::vector<bool>{true, false, false, true}));
    ASSERT_EQ(b.done_at.size(), 1u);
    // End of the second frame: its start (10 bits after the first) plus one frame, each rounded once.
    EXPECT_EQ(b.done_at[0], bit_time(baud, 10) + bit_time(baud, 10));
    EXPECT_EQ(b.inj.chars_sent(), 2u);
}

namespace {
// A receiver of the injector's reports that rebuilds the line's edges from them, and notes when each
// report came.
struct line_rebuilder : uartvp::serial_line_if {
    std::vector<edge> edges;
    std::vector<sc_time> reported_at, described;
    bool level = true, between = true;
    void change(const sc_time& t, bool v) {
        if (v != level) edges.emplace_back(t, v);
        level = v;
    }
    void line_char(const uartvp::serial_char& c) override {
        reported_at.push_back(sc_core::sc_time_stamp());
        described.push_back(c.start());
        for (unsigned k = 0; k < c.bits; ++k)
            change(c.edge[k], c.level(k));
        change(c.end(), between);
    }
    void line_level(const sc_time& t, bool v) override {
        reported_at.push_back(sc_core::sc_time_stamp());
        described.push_back(t);
        between = v;
        change(t, v);
    }
};
} // namespace

namespace {
// Plain text, gaps, a bad stop bit followed by a break right after its mark, a break, bad parity in
// 7E2 at another rate.
void queue_mixed_items(uartvp::rx_injector& inj) {
    inj.send("Hello, line", sc_time(20, SC_US));
    uartvp::rx_injector::options gap;
    gap.gap = sc_time(3, SC_US);
    inj.send("gaps", sc_time(0, SC_US), gap);
    uartvp::rx_injector::options bad_stop;
    bad_stop.bad_stop = true;
    inj.send(std::string("\0\xFF", 2), sc_time(0, SC_US), bad_stop);
    inj.send_break(sc_time(250, SC_US));
    inj.send(std::string("\x55", 1), sc_time(0, SC_US), bad_stop);
    inj.send_break(sc_time(40, SC_US));
    inj.set_format(57600, *serial_format::parse("7E2"));
    uartvp::rx_injector::options bad_parity;
    bad_parity.bad_parity = true;
    inj.send("par", sc_time(0, SC_US), bad_parity);
    inj.send("ok");
}
constexpr unsigned bad_stop_chars = 3, breaks = 2;

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}
} // namespace

// report_to(): the same items as characters give, rebuilt, exactly the pin's edges of an injector
// driving it, each report made at the time it describes, with the same characters counted and the
// same end.
TEST(rx_injector, as_characters_reports_exactly_the_edges_the_pin_shows) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench pin("pin", baud, serial_format{});
    bench chars("chars", baud, serial_format{});
    line_rebuilder rx;
    chars.inj.report_to(rx);
    for (bench* b : {&pin, &chars})
        queue_mixed_items(b->inj);
    sc_core::sc_start();
    EXPECT_GT(pin.edges.size(), 60u);
    expect_edges(rx.edges, pin.edges);
    EXPECT_TRUE(chars.edges.empty()) << "the line is not driven";
    EXPECT_EQ(rx.reported_at, rx.described) << "each report at the time it describes";
    // And each break's two levels, each low stop bit's rise at its frame's end.
    EXPECT_EQ(rx.reported_at.size(), chars.inj.chars_sent() + 2 * breaks + bad_stop_chars);
    EXPECT_EQ(chars.inj.chars_sent(), pin.inj.chars_sent());
    EXPECT_EQ(chars.done_at, pin.done_at);
}

// The waves of a receive line written from the injector's reports (a vcd_line_reader, as tty-paste's
// --vcd writes RXD) are byte for byte those of the pin it drives otherwise, in a VCD at 1 ps and in a
// lines VCD at the coarse timescale: a low stop bit's rise at its frame's end included, which a reader
// taking the stop bits' level as the level after the frame would miss. A second receiver gets the
// same reports.
TEST(rx_injector, as_characters_to_a_vcd_line_reader_gives_the_pins_waves_byte_for_byte) {
    UARTVP_SIM_TEST();
    const double baud = 115200;
    bench pin("pin", baud, serial_format{});
    bench chars("chars", baud, serial_format{});
    uartvp::vcd_line_reader reader;
    line_rebuilder rx;
    chars.inj.report_to(reader);
    chars.inj.report_to(rx);
    for (bench* b : {&pin, &chars})
        queue_mixed_items(b->inj);
    char dir[] = "/tmp/uartvp-rx-waves-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string d = dir;
    uartvp::vcd_writer pin_vcd("pin_vcd", d + "/pin.vcd"), rep_vcd("rep_vcd", d + "/rep.vcd");
    const std::uint64_t coarse = uartvp::lines_vcd::timescale_for(baud);
    uartvp::lines_vcd pin_lines("pin_lines", d + "/pin.lines.vcd", coarse),
        rep_lines("rep_lines", d + "/rep.lines.vcd", coarse);
    pin_vcd.add(pin.wire, "lines.rxd");
    reader.add_to(rep_vcd, "lines.rxd");
    pin_lines.add(pin.wire, "rxd");
    rep_lines.add(reader, "rxd");
    sc_core::sc_start();
    ASSERT_TRUE(pin_vcd.close() && rep_vcd.close() && pin_lines.close() && rep_lines.close());
    expect_edges(rx.edges, pin.edges);
    for (const char* f : {"/pin.vcd", "/pin.lines.vcd"}) {
        const std::string a = slurp(d + f), b = slurp(d + "/rep" + (f + 4));
        EXPECT_GT(a.size(), 600u) << f;
        EXPECT_TRUE(a == b) << f << " from the reports differs from the pin's:\n" << a << "\n----\n" << b;
    }
    for (const char* f : {"/pin.vcd", "/rep.vcd", "/pin.lines.vcd", "/rep.lines.vcd"})
        std::remove((d + f).c_str());
    rmdir(d.c_str());
}
