// SPDX-License-Identifier: Apache-2.0
// Line monitor: decoded from a waveform written by hand here (bit times computed independently of the
// library) and from the RX injector.
#include "bit_times.h"
#include "sim_main.h"
#include <uartvp/line_monitor.h>
#include <uartvp/rx_injector.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using sc_core::SC_PS;
using sc_core::sc_time;
using sc_core::SC_US;
using uartvp::decoded_char;
using uartvp::parity_mode;
using uartvp::serial_format;
using uartvp::test::bit_time;
using uartvp::test::ps;

namespace {

std::vector<serial_format> all_formats() {
    std::vector<serial_format> v;
    for (unsigned d = 5; d <= 8; ++d)
        for (auto p :
             {parity_mode::none, parity_mode::even, parity_mode::odd, parity_mode::mark, parity_mode::space})
            for (unsigned s = 1; s <= 2; ++s)
                v.push_back(serial_format{d, p, s});
    return v;
}

// A line, a monitor on it, and either the test body or an RX injector driving it.
struct bench : sc_core::sc_module {
    sc_core::sc_signal<bool> wire;
    uartvp::line_monitor mon;
    std::unique_ptr<uartvp::rx_injector> inj;
    std::vector<decoded_char> got;
    std::vector<sc_time> reported_at; // when the callback ran
    std::function<void()> body;

    bench(sc_core::sc_module_name n, double baud, serial_format fmt, bool with_injector = false)
        : sc_module(n)
        , wire("wire", true)
        , mon("mon", baud, fmt) {
        mon.line(wire);
        if (with_injector) {
            inj = std::make_unique<uartvp::rx_injector>("inj", baud, fmt);
            inj->line(wire);
        }
        mon.on_char([this](const decoded_char& c) {
            got.push_back(c);
            reported_at.push_back(sc_core::sc_time_stamp());
        });
        SC_HAS_PROCESS(bench);
        SC_THREAD(run);
    }
    void run() {
        if (body) body();
    }

    void wait_until(const sc_time& t) {
        if (t > sc_core::sc_time_stamp()) wait(t - sc_core::sc_time_stamp());
    }
    void drive_at(const sc_time& t, bool v) {
        wait_until(t);
        wire.write(v);
    }
    // One frame bit-banged by hand from t0; returns the end of the frame (line high again then).
    sc_time frame_at(sc_time t0, unsigned byte, double baud, serial_format f, bool flip_parity = false,
                     bool low_stop = false) {
        std::vector<bool> bits{false};
        unsigned ones = 0;
        for (unsigned i = 0; i < f.data_bits; ++i) {
            bits.push_back((byte >> i) & 1u);
            ones += (byte >> i) & 1u;
        }
        bool p = false;
        switch (f.parity) {
        case parity_mode::even:
            p = ones % 2 == 1;
            break;
        case parity_mode::odd:
            p = ones % 2 == 0;
            break;
        case parity_mode::mark:
            p = true;
            break;
        default:
            p = false;
            break;
        }
        if (f.parity != parity_mode::none) bits.push_back(p != flip_parity);
        for (unsigned i = 0; i < f.stop_bits; ++i)
            bits.push_back(!low_stop);
        for (std::size_t k = 0; k < bits.size(); ++k)
            drive_at(t0 + bit_time(baud, k), bits[k]);
        const sc_time end = t0 + bit_time(baud, bits.size());
        drive_at(end, true);
        return end;
    }
};

void expect_clean_chars(const std::vector<decoded_char>& got, const std::vector<unsigned>& want,
                        const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].data, want[i]) << what << " char " << i;
        EXPECT_FALSE(got[i].framing_error) << what << " char " << i;
        EXPECT_FALSE(got[i].parity_error) << what << " char " << i;
        EXPECT_FALSE(got[i].is_break) << what << " char " << i;
    }
}

const std::vector<unsigned> patterns = {0x00, 0xff, 0x55, 0xaa, 0x01, 0x80, 0x0f, 0xf0, 'A', 0x1e};
constexpr double b115200 = 115200;

} // namespace

TEST(line_monitor, decodes_every_frame_format_from_a_hand_written_waveform) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{});
    std::vector<unsigned> want;
    std::vector<sc_time> starts;
    b.body = [&] {
        sc_time t = sc_time(10, SC_US);
        for (const auto& f : all_formats()) {
            b.mon.set_format(b115200, f); // the line is idle here
            for (unsigned v : patterns) {
                starts.push_back(t);
                t = b.frame_at(t, v, b115200, f); // back to back
                want.push_back(v & f.data_mask());
            }
            t += bit_time(b115200, 3);
            b.wait_until(t);
        }
    };
    sc_core::sc_start();
    expect_clean_chars(b.got, want, "hand waveform");
    ASSERT_EQ(b.got.size(), starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i)
        EXPECT_EQ(b.got[i].start, starts[i]) << i;
    EXPECT_EQ(b.mon.chars(), want.size());
    EXPECT_EQ(b.mon.framing_errors() + b.mon.parity_errors() + b.mon.breaks() + b.mon.false_starts(), 0u);
}

TEST(line_monitor, decodes_every_frame_format_from_the_rx_injector) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{}, true);
    std::vector<unsigned> want;
    b.body = [&] {
        for (const auto& f : all_formats()) {
            b.mon.set_format(b115200, f);
            b.inj->set_format(b115200, f);
            std::string s;
            for (unsigned v : patterns) {
                s += static_cast<char>(v);
                want.push_back(v & f.data_mask());
            }
            b.inj->send(s);
            wait(b.inj->done_event());
        }
    };
    sc_core::sc_start();
    expect_clean_chars(b.got, want, "injector");
}

TEST(line_monitor, decoded_char_start_and_end_times_are_exact) {
    UARTVP_SIM_TEST();
    // 115200 baud: a bit is 8680555.56 ps, so rounding matters.
    bench b("b", b115200, serial_format{});
    const sc_time t0 = sc_time(1, SC_US) + sc_time(3, SC_PS);
    sc_time t1;
    b.body = [&] {
        t1 = b.frame_at(t0, 'x', b115200, serial_format{});
        b.frame_at(t1, 'y', b115200, serial_format{});
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 2u);
    EXPECT_EQ(b.got[0].start, t0);
    EXPECT_EQ(b.got[0].end, t0 + sc_time(86805556, SC_PS));
    EXPECT_EQ(t1, b.got[0].end);
    EXPECT_EQ(b.got[1].start, t1);
    EXPECT_EQ(b.got[1].end, t1 + sc_time(86805556, SC_PS));
    // Reported at the middle of the stop bit: 9.5 bits after the start edge, rounded once.
    EXPECT_EQ(b.reported_at[0], t0 + sc_time(82465278, SC_PS));
    EXPECT_EQ(b.reported_at[1], t1 + sc_time(82465278, SC_PS));
}

TEST(line_monitor, stop_bit_low_is_a_framing_error) {
    UARTVP_SIM_TEST();
    const auto f = *serial_format::parse("8N2");
    bench b("b", b115200, f);
    b.body = [&] {
        sc_time t = sc_time(5, SC_US);
        t = b.frame_at(t, 'a', b115200, f);
        t = b.frame_at(t, 'b', b115200, f, false, true); // both stop bits low
        // The line must rise before the next start bit, or there is no edge to see.
        t = b.frame_at(t + bit_time(b115200, 1), 'c', b115200, f);
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 3u);
    EXPECT_FALSE(b.got[0].framing_error);
    EXPECT_TRUE(b.got[1].framing_error);
    EXPECT_FALSE(b.got[1].is_break);
    EXPECT_EQ(b.got[1].data, 'b'); // the data is still there
    EXPECT_FALSE(b.got[2].framing_error);
    EXPECT_EQ(b.got[2].data, 'c');
    EXPECT_EQ(b.mon.framing_errors(), 1u);
}

TEST(line_monitor, wrong_parity_bit_is_a_parity_error_in_every_parity_mode) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{});
    std::vector<bool> want_error;
    b.body = [&] {
        sc_time t = sc_time(5, SC_US);
        for (auto p : {parity_mode::even, parity_mode::odd, parity_mode::mark, parity_mode::space}) {
            const serial_format f{7, p, 1};
            b.mon.set_format(b115200, f);
            for (unsigned v : {0x41u, 0x43u}) {
                t = b.frame_at(t, v, b115200, f, false);
                want_error.push_back(false);
                t = b.frame_at(t, v, b115200, f, true);
                want_error.push_back(true);
            }
            t += bit_time(b115200, 2);
            b.wait_until(t);
        }
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), want_error.size());
    for (std::size_t i = 0; i < want_error.size(); ++i) {
        EXPECT_EQ(b.got[i].parity_error, want_error[i]) << i;
        EXPECT_FALSE(b.got[i].framing_error) << i;
        EXPECT_EQ(b.got[i].data, i % 4 < 2 ? 0x41 : 0x43) << i;
    }
    EXPECT_EQ(b.mon.parity_errors(), 8u);
}

TEST(line_monitor, break_is_reported_once_then_waits_for_the_line_to_go_high) {
    UARTVP_SIM_TEST();
    const auto f = *serial_format::parse("7E2");
    bench b("b", b115200, f);
    const sc_time t0 = sc_time(7, SC_US);
    sc_time after;
    b.body = [&] {
        b.drive_at(t0, false);
        b.drive_at(t0 + bit_time(b115200, 55), true); // low for five frames
        after = t0 + bit_time(b115200, 56);
        b.frame_at(after, 'Z', b115200, f);
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 2u);
    EXPECT_TRUE(b.got[0].is_break);
    EXPECT_TRUE(b.got[0].framing_error);
    EXPECT_FALSE(b.got[0].parity_error);
    EXPECT_EQ(b.got[0].data, 0);
    EXPECT_EQ(b.got[0].start, t0);
    EXPECT_FALSE(b.got[1].is_break);
    EXPECT_EQ(b.got[1].data, 'Z');
    EXPECT_EQ(b.got[1].start, after);
    EXPECT_EQ(b.mon.breaks(), 1u);
    EXPECT_EQ(b.mon.chars(), 1u);
}

TEST(line_monitor, nul_with_bad_stop_bit_is_not_a_break) {
    UARTVP_SIM_TEST();
    // 0x00 with its first stop bit low and its second high: a framing error, not a break (a break holds
    // every stop bit low).
    const auto f = *serial_format::parse("8N2");
    bench b("b", b115200, f);
    b.body = [&] {
        const sc_time t0 = sc_time(3, SC_US);
        b.drive_at(t0, false);
        b.drive_at(t0 + bit_time(b115200, 10), true); // second stop bit high
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 1u);
    EXPECT_FALSE(b.got[0].is_break);
    EXPECT_TRUE(b.got[0].framing_error);
    EXPECT_EQ(b.got[0].data, 0);
}

TEST(line_monitor, glitch_shorter_than_half_a_bit_is_ignored) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{});
    b.body = [&] {
        const sc_time g = sc_time(4, SC_US);
        b.drive_at(g, false);
        b.drive_at(g + bit_time(b115200, 0.45), true);
        b.frame_at(sc_time(40, SC_US), 'K', b115200, serial_format{});
    };
    sc_core::sc_start();
    ASSERT_EQ(b.got.size(), 1u);
    EXPECT_EQ(b.got[0].data, 'K');
    EXPECT_EQ(b.got[0].start, sc_time(40, SC_US));
    EXPECT_EQ(b.mon.false_starts(), 1u);
    EXPECT_EQ(b.mon.chars(), 1u);
}

TEST(line_monitor, sender_3_percent_fast_still_decodes) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{}, true);
    std::vector<unsigned> want;
    b.body = [&] {
        for (const char* name : {"8N1", "8E2", "7O1", "5N1", "8M2"}) {
            const auto f = *serial_format::parse(name);
            b.mon.set_format(b115200, f);
            b.inj->set_format(b115200 * 1.03, f);
            std::string s;
            for (unsigned v = 0; v < 256; v += 7) {
                s += static_cast<char>(v);
                want.push_back(v & f.data_mask());
            }
            b.inj->send(s); // back to back: the fast sender's next start bit comes early
            wait(b.inj->done_event());
            wait(bit_time(b115200, 2));
        }
    };
    sc_core::sc_start();
    expect_clean_chars(b.got, want, "+3%");
}

TEST(line_monitor, sender_3_percent_slow_still_decodes) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{}, true);
    std::vector<unsigned> want;
    b.body = [&] {
        for (const char* name : {"8N1", "8E2", "7O1", "5N1", "8S1"}) {
            const auto f = *serial_format::parse(name);
            b.mon.set_format(b115200, f);
            b.inj->set_format(b115200 * 0.97, f);
            std::string s;
            for (unsigned v = 0; v < 256; v += 7) {
                s += static_cast<char>(v);
                want.push_back(v & f.data_mask());
            }
            b.inj->send(s);
            wait(b.inj->done_event());
            wait(bit_time(b115200, 2));
        }
    };
    sc_core::sc_start();
    expect_clean_chars(b.got, want, "-3%");
}

TEST(line_monitor, sender_8_percent_off_is_not_decoded_cleanly) {
    UARTVP_SIM_TEST();
    // The other side of the tolerance: the ±3% tests would pass trivially if the monitor ignored timing.
    bench b("b", b115200, serial_format{}, true);
    b.body = [&] {
        b.inj->set_format(b115200 * 1.08, serial_format{});
        b.inj->send("\x0f\x0f\x0f\x0f");
    };
    sc_core::sc_start();
    bool any_wrong = b.got.size() != 4;
    for (const auto& c : b.got)
        any_wrong |= c.data != 0x0f || c.framing_error;
    EXPECT_TRUE(any_wrong);
}

TEST(line_monitor, idle_line_does_not_wake_the_monitor) {
    UARTVP_SIM_TEST();
    bench b("b", b115200, serial_format{});
    sc_core::sc_start(sc_time(1, sc_core::SC_SEC));
    // One second idle is 115200 bit times: a per-bit poll would show as that many delta cycles.
    EXPECT_LT(sc_core::sc_delta_count(), 10u);
    EXPECT_TRUE(b.got.empty());
}

TEST(line_monitor, text_is_kept_only_when_asked_and_counts_always) {
    UARTVP_SIM_TEST();
    struct two : sc_core::sc_module {
        sc_core::sc_signal<bool> wire{"wire", true};
        uartvp::line_monitor quiet{"quiet", b115200, serial_format{}};
        uartvp::line_monitor keeper{"keeper", b115200, serial_format{}};
        uartvp::rx_injector inj{"inj", b115200, serial_format{}};
        explicit two(sc_core::sc_module_name n)
            : sc_module(n) {
            quiet.line(wire);
            keeper.line(wire);
            inj.line(wire);
            keeper.keep_text(true);
            inj.send("hello, world\n");
        }
    } t("t");
    sc_core::sc_start();
    EXPECT_EQ(t.keeper.text(), "hello, world\n");
    EXPECT_EQ(t.quiet.text(), "");
    EXPECT_EQ(t.quiet.chars(), 13u);
    EXPECT_EQ(t.keeper.chars(), 13u);
}

TEST(line_monitor, line_low_at_start_is_not_a_frame) {
    UARTVP_SIM_TEST();
    // A line that starts low (receiver powered before the sender) is waited out, not decoded.
    struct low : sc_core::sc_module {
        sc_core::sc_signal<bool> wire{"wire", false};
        uartvp::line_monitor mon{"mon", b115200, serial_format{}};
        std::vector<decoded_char> got;
        explicit low(sc_core::sc_module_name n)
            : sc_module(n) {
            mon.line(wire);
            mon.on_char([this](const decoded_char& c) { got.push_back(c); });
            SC_HAS_PROCESS(low);
            SC_THREAD(run);
        }
        void run() {
            wait(sc_time(200, SC_US));
            wire.write(true);
            wait(sc_time(20, SC_US));
            // 'R' = 0x52, LSB first: 0 1 0 0 1 0 1 0, framed by start 0 and stop 1.
            const bool bits[] = {false, false, true, false, false, true, false, true, false, true};
            const sc_time t0 = sc_core::sc_time_stamp();
            for (int k = 0; k < 10; ++k) {
                const sc_time t = t0 + bit_time(b115200, k);
                if (t > sc_core::sc_time_stamp()) wait(t - sc_core::sc_time_stamp());
                wire.write(bits[k]);
            }
        }
    } t("t");
    sc_core::sc_start();
    ASSERT_EQ(t.got.size(), 1u);
    EXPECT_EQ(t.got[0].data, 'R');
    EXPECT_EQ(t.mon.breaks(), 0u);
}

namespace {
// 8N1 `byte` from t0 as a sender reports it.
uartvp::serial_char reported_8n1(const sc_time& t0, std::uint8_t byte, double baud) {
    uartvp::serial_char c;
    c.bits = 10;
    c.levels = static_cast<std::uint16_t>(byte << 1 | 1u << 9);
    for (unsigned k = 0; k <= c.bits; ++k)
        c.edge[k] = t0 + bit_time(baud, k);
    c.data = byte;
    return c;
}
} // namespace

// From characters: a character reported ahead of its start, then (before that start) a short low
// glitch and another character earlier than the first: the monitor takes the frame's start again on
// the line as the later reports leave it, as it would from the pin (a false start, then the second).
TEST(line_monitor, a_report_before_a_start_reported_ahead_is_taken_again) {
    UARTVP_SIM_TEST();
    struct feeder : sc_core::sc_module {
        uartvp::line_monitor mon{"mon", b115200, serial_format{}};
        sc_core::sc_signal<bool> wire{"wire", true};
        std::vector<decoded_char> got;
        SC_HAS_PROCESS(feeder);
        explicit feeder(sc_core::sc_module_name n)
            : sc_module(n) {
            mon.line(wire);
            mon.take_characters(true);
            mon.on_char([this](const decoded_char& c) { got.push_back(c); });
            SC_THREAD(run);
        }
        void run() {
            const sc_time t0(10, SC_US);
            wait(t0);
            mon.line_char(reported_8n1(t0 + bit_time(b115200, 5), 'A', b115200)); // five bits ahead
            wait(bit_time(b115200, 2));
            mon.line_level(sc_core::sc_time_stamp(), false); // cuts 'A' before its start
            wait(bit_time(b115200, 0.3L));
            mon.line_level(sc_core::sc_time_stamp(), true); // a glitch shorter than half a bit
            mon.line_char(reported_8n1(t0 + bit_time(b115200, 3), 'B', b115200));
        }
    };
    feeder f("feeder");
    sc_core::sc_start(sc_time(500, SC_US));
    ASSERT_EQ(f.got.size(), 1u);
    EXPECT_EQ(f.got[0].data, 'B');
    EXPECT_EQ(f.got[0].start, sc_time(10, SC_US) + bit_time(b115200, 3));
    EXPECT_FALSE(f.got[0].framing_error);
    EXPECT_EQ(f.mon.false_starts(), 1u) << "the glitch, seen as a start and dropped at its middle";
}
