// SPDX-License-Identifier: Apache-2.0
// vcd_line_reader: a serial line written from its sender's character reports gives the files a pin
// driven edge by edge gives, byte for byte, in a VCD at 1 ps and in a lines VCD at a coarse timescale:
// random frames and bit times, characters back to back, reports ahead of their time (up to a character
// and a bit), resets cutting characters, breaks, a break ending where a start bit begins, other
// signals changing at the same instants and within a coarse tick of them, and a run that ends inside a
// reported character.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include <uartvp/lines_vcd.h>
#include <uartvp/observed_signal.h>
#include <uartvp/vcd_writer.h>

#include "sim_main.h"

using namespace sc_core;
using namespace uartvp;

namespace {

// A directory of a test's own under /tmp, removed with its files when the test ends (a failed
// assertion's early return included).
struct scratch_dir {
    std::string path;
    explicit scratch_dir(const std::string& what) {
        std::string t = "/tmp/uartvp-" + what + "-XXXXXX";
        path = mkdtemp(t.data());
    }
    ~scratch_dir() { std::filesystem::remove_all(path); }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

struct step {
    sc_time at;
    bool level;
};

// What the sender does: characters (with the time each is reported) and line levels between or
// inside them (a reset's cut, a break), in report order.
struct traffic {
    struct report {
        sc_time when; // reported at
        bool is_char;
        serial_char c;
        sc_time level_at;
        bool level = true;
    };
    std::vector<report> reports;
    std::vector<step> pin;         // the pin's changes, in time order
    std::vector<sc_time> other_at; // when the other signal changes
    sc_time end;                   // where the run stops
    unsigned cuts = 0, breaks = 0;
};

sc_time ps(std::uint64_t v) {
    return sc_time::from_value(v); // the default resolution: 1 ps
}

traffic make_traffic(unsigned chars, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    traffic t;
    // The pin's changes as a reader of the reports has them: a level given at t replaces those at
    // or after t (a cut); only changes count.
    auto drive = [&](const sc_time& at, bool l) {
        while (!t.pin.empty() && t.pin.back().at >= at)
            t.pin.pop_back();
        const bool before = t.pin.empty() ? true : t.pin.back().level;
        if (l != before) t.pin.push_back({at, l});
    };
    std::uint64_t now = pick(1000, 50'000'000), last_report = 0;
    for (unsigned i = 0; i < chars; ++i) {
        const unsigned data_bits = static_cast<unsigned>(pick(5, 8));
        const bool parity = pick(0, 1);
        const unsigned stop_bits = static_cast<unsigned>(pick(1, 2));
        serial_char c;
        c.bits = 1 + data_bits + parity + stop_bits;
        c.data_bits = data_bits;
        c.parity = parity;
        c.stop_bits = stop_bits;
        c.data = static_cast<std::uint8_t>(pick(0, (1u << data_bits) - 1));
        c.levels = static_cast<std::uint16_t>(c.data << 1);
        if (parity && pick(0, 1)) c.levels |= static_cast<std::uint16_t>(1u << (1 + data_bits));
        for (unsigned k = 1 + data_bits + parity; k < c.bits; ++k)
            c.levels |= static_cast<std::uint16_t>(1u << k);
        const std::uint64_t bit = pick(1'000'000, 30'000'000); // 1 to 30 us per bit, in ps
        for (unsigned k = 0; k <= c.bits; ++k)
            c.edge[k] = ps(now + k * bit + (k ? pick(0, bit / 8) : 0));
        // Reported up to a character and a bit ahead, never before the report before it.
        const std::uint64_t ahead = pick(0, 2) == 0 ? 0 : pick(0, (c.bits + 1) * bit);
        const std::uint64_t when = std::max(last_report, now > ahead ? now - ahead : 0);
        last_report = when;
        t.reports.push_back({ps(when), true, c, SC_ZERO_TIME, true});
        for (unsigned k = 0; k < c.bits; ++k)
            drive(c.edge[k], c.level(k));
        if (pick(0, 3) == 0) t.other_at.push_back(c.edge[0]); // at the start bit's edge
        if (pick(0, 3) == 0) t.other_at.push_back(c.edge[pick(1, c.bits - 1)]);
        // Within a lines VCD tick (100 ns) of an edge, before or after it.
        if (pick(0, 1) == 0) {
            const std::uint64_t e = c.edge[pick(1, c.bits - 1)].value(), d = pick(1, 99'999);
            t.other_at.push_back(ps(pick(0, 1) ? e + d : e - d));
        }
        std::uint64_t end = c.end().value();
        const bool last = i + 1 == chars;
        if (last) t.end = c.edge[c.bits / 2] + ps(1); // the run stops inside it, after its report
        if (!last &&
            pick(0, 5) == 0) { // a reset cuts it, reported at or after the character, at or before the cut
            const std::uint64_t cut = pick(c.edge[1].value(), c.end().value() - 1);
            const std::uint64_t at = pick(when, cut);
            last_report = at;
            t.reports.push_back({ps(at), false, {}, ps(cut), true});
            drive(ps(cut), true);
            end = cut;
            ++t.cuts;
        }
        if (!last && pick(0, 9) == 0) { // a break, then idle again
            const std::uint64_t from = end + pick(0, 3 * bit), to = from + pick(bit, 20 * bit);
            last_report = std::max(last_report, from);
            t.reports.push_back({ps(from), false, {}, ps(from), false});
            t.reports.push_back({ps(to), false, {}, ps(to), true});
            drive(ps(from), false);
            drive(ps(to), true);
            last_report = to;
            end = to;
            ++t.breaks;
        }
        now = end + (pick(0, 2) == 0 ? 0 : pick(1, 5 * bit)); // back to back, or a gap
        if (pick(0, 4) == 0) t.other_at.push_back(ps(pick(end, now)));
    }
    return t;
}

SC_MODULE(sender) {
    sc_signal<bool> pin{"pin", true};
    sc_signal<unsigned> other{"other", 0};
    sc_signal<bool> flag{"flag", false}; // toggled with `other`
    const traffic& t;
    serial_line_if& reader;
    SC_HAS_PROCESS(sender);
    sender(const sc_module_name& n, const traffic& tr, serial_line_if& r)
        : sc_module(n)
        , t(tr)
        , reader(r) {
        SC_THREAD(report);
        SC_THREAD(drive);
    }
    void report() {
        for (const auto& r : t.reports) {
            if (r.when > sc_time_stamp()) wait(r.when - sc_time_stamp());
            if (r.is_char)
                reader.line_char(r.c);
            else
                reader.line_level(r.level_at, r.level);
        }
    }
    // The pin, and at some of its instants another signal, written after it in the same delta cycle.
    void drive() {
        std::size_t p = 0, o = 0;
        unsigned n = 0;
        while (p < t.pin.size() || o < t.other_at.size()) {
            sc_time next = sc_max_time();
            if (p < t.pin.size()) next = t.pin[p].at;
            if (o < t.other_at.size()) next = std::min(next, t.other_at[o]);
            if (next > sc_time_stamp()) wait(next - sc_time_stamp());
            if (p < t.pin.size() && t.pin[p].at == next) pin.write(t.pin[p++].level);
            while (o < t.other_at.size() && t.other_at[o] == next) {
                other.write(++n);
                flag.write(n & 1);
                ++o;
            }
        }
    }
};

} // namespace

TEST(VcdLineReader, ReportedCharactersGiveThePinsFilesByteForByte) {
    UARTVP_SIM_TEST();
    traffic t = make_traffic(3000, 7);
    // Other-signal instants in time order (the generator appends a few out of order).
    std::sort(t.other_at.begin(), t.other_at.end());
    ASSERT_GT(t.cuts, 200u);
    ASSERT_GT(t.breaks, 100u);
    const scratch_dir scratch("vcd-line");
    const std::string& d = scratch.path;
    vcd_line_reader reader;
    sender s("s", t, reader);
    vcd_writer pin_vcd("pin_vcd", d + "/pin.vcd"), rep_vcd("rep_vcd", d + "/rep.vcd");
    const std::uint64_t coarse = lines_vcd::timescale_for(115200);
    lines_vcd pin_lines("pin_lines", d + "/pin.lines.vcd", coarse),
        rep_lines("rep_lines", d + "/rep.lines.vcd", coarse);
    pin_vcd.add(s.pin, "lines.txd");
    reader.add_to(rep_vcd, "lines.txd");
    pin_vcd.add(s.other, "u.other", 32);
    rep_vcd.add(s.other, "u.other", 32);
    pin_lines.add(s.pin, "txd");
    rep_lines.add(reader, "txd");
    pin_lines.add(s.flag, "flag");
    rep_lines.add(s.flag, "flag");
    sc_start(t.end);
    ASSERT_TRUE(pin_vcd.close() && rep_vcd.close() && pin_lines.close() && rep_lines.close());
    const std::string a = slurp(d + "/pin.vcd"), b = slurp(d + "/rep.vcd");
    EXPECT_GT(a.size(), 20000u);
    EXPECT_TRUE(a == b) << "NAME.vcd from the reports differs from the pin's";
    const std::string la = slurp(d + "/pin.lines.vcd"), lb = slurp(d + "/rep.lines.vcd");
    EXPECT_GT(la.size(), 10000u);
    EXPECT_TRUE(la == lb) << "NAME.lines.vcd from the reports differs from the pin's";
}

namespace {
// Writes `b` and then, a delta cycle later, `a` at 10 ns; `a` then `b` at 20 ns; and `a` twice at one
// instant (deferred: 1 then 0 at 30 ns).
SC_MODULE(two_writers) {
    sc_signal<bool> a{"a", false}, b{"b", false};
    vcd_writer& w;
    std::size_t deferred;
    SC_HAS_PROCESS(two_writers);
    two_writers(const sc_module_name& n, vcd_writer& writer)
        : sc_module(n)
        , w(writer) {
        SC_THREAD(run);
    }
    void run() {
        wait(10, SC_NS);
        b.write(true);
        wait(SC_ZERO_TIME);
        a.write(true);
        wait(10, SC_NS);
        a.write(false);
        wait(SC_ZERO_TIME);
        b.write(false);
        wait(10, SC_NS);
        w.write_at(deferred, sc_time_stamp(), 1);
        w.write_at(deferred, sc_time_stamp(), 0);
        wait(10, SC_NS);
    }
};
} // namespace

// A VCD's time stamp lists its changes in the order the variables were added, whatever the order in
// which SystemC ran the processes of that instant (so a line written from reports and its pin give one
// file); a variable given two values at one time keeps them in the order given.
TEST(VcdWriter, ChangesOfOneTimeStampInTheOrderTheVariablesWereAdded) {
    UARTVP_SIM_TEST();
    const scratch_dir scratch("vcd-order");
    const std::string& d = scratch.path;
    vcd_writer w("w", d + "/o.vcd");
    two_writers m("m", w);
    w.add(m.a, "u.a");
    w.add(m.b, "u.b");
    m.deferred = w.add_deferred("u.d", 1, 0);
    sc_start(40, SC_NS);
    ASSERT_TRUE(w.close());
    const std::string f = slurp(d + "/o.vcd");
    const std::size_t body = f.find("$end\n#10000\n");
    ASSERT_NE(body, std::string::npos) << f;
    EXPECT_EQ(f.substr(body + 5), "#10000\n1!\n1\"\n#20000\n0!\n0\"\n#30000\n1#\n0#\n#40001\n") << f;
}

namespace {
// Spans told after they end, as a core tells its polling spans: a hold from the span's start, the
// span's values written at its start and end once it ends, then the hold released; and a strobe
// given ahead of its time, as a core's bus access.
SC_MODULE(spans) {
    std::vector<vcd_writer*> to;
    std::vector<std::size_t> polling, reads, strobe;
    std::uint32_t seed;
    sc_time end;
    SC_HAS_PROCESS(spans);
    spans(const sc_module_name& n, std::uint32_t s, const sc_time& until)
        : sc_module(n)
        , seed(s)
        , end(until) {
        SC_THREAD(run);
    }
    void add(vcd_writer & w) {
        to.push_back(&w);
        polling.push_back(w.add_deferred("cpu.polling", 1));
        reads.push_back(w.add_deferred("cpu.poll_reads", 32));
        strobe.push_back(w.add_deferred("bus.read", 1));
    }
    void run() {
        std::mt19937 rng(seed);
        auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
            return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
        };
        std::uint64_t n = 0;
        while (sc_time_stamp() + ps(200'000'000) < end) {
            wait(ps(pick(0, 3) == 0 ? 0 : pick(1, 50'000'000)));
            const sc_time start = sc_time_stamp();
            std::vector<std::uint64_t> holds;
            for (vcd_writer* w : to)
                holds.push_back(w->hold(start));
            const sc_time span = ps(pick(1, 100'000'000));
            for (std::size_t i = 0; i < to.size(); ++i) { // a strobe ahead, inside the span
                to[i]->write_at(strobe[i], start + span / 2, 1);
                to[i]->write_at(strobe[i], start + span / 2 + ps(120'000), 0);
            }
            wait(span);
            ++n;
            const bool before = pick(0, 1);
            for (std::size_t i = 0; i < to.size(); ++i) {
                to[i]->write_at(polling[i], start, 1);
                to[i]->write_at(reads[i], start, n);
                to[i]->write_at(polling[i], sc_time_stamp(), 0);
                to[i]->write_at(reads[i], sc_time_stamp(), 0);
                if (before) to[i]->write_at(reads[i], start - ps(1), n); // before what is written
                to[i]->release(holds[i]);
            }
        }
    }
};
} // namespace

// The writer formats and writes its file in a thread of its own while the simulation runs; the file
// is byte for byte the one a writer doing all of it in the simulation's thread writes, over many
// batches of changes: signals, a line from reports (ahead of time, withdrawn, cut), holds released
// after the changes they held back, values given for times already written.
TEST(VcdWriter, TheFileWrittenInTheWritersThreadIsTheOneWrittenWithout) {
    UARTVP_SIM_TEST();
    traffic t = make_traffic(3000, 11);
    std::sort(t.other_at.begin(), t.other_at.end());
    const scratch_dir scratch("vcd-thread");
    const std::string& d = scratch.path;
    vcd_line_reader reader;
    sender s("s", t, reader);
    spans p("p", 5, t.end);
    vcd_writer own("own", d + "/own.vcd"), inline_vcd("inline_vcd", d + "/inline.vcd");
    inline_vcd.background(false);
    const std::uint64_t coarse = lines_vcd::timescale_for(115200);
    lines_vcd own_lines("own_lines", d + "/own.lines.vcd", coarse),
        inline_lines("inline_lines", d + "/inline.lines.vcd", coarse);
    inline_lines.background(false);
    for (vcd_writer* w : {&own, &inline_vcd}) {
        reader.add_to(*w, "lines.txd");
        w->add(s.other, "u.other", 32);
        w->add(s.flag, "u.flag");
        p.add(*w);
    }
    own_lines.add(reader, "txd");
    inline_lines.add(reader, "txd");
    own_lines.add(s.flag, "flag");
    inline_lines.add(s.flag, "flag");
    sc_start(t.end);
    ASSERT_TRUE(own.close() && inline_vcd.close() && own_lines.close() && inline_lines.close());
    const std::string a = slurp(d + "/own.vcd"), b = slurp(d + "/inline.vcd");
    EXPECT_GT(a.size(), 1'000'000u); // many batches
    EXPECT_TRUE(a == b) << "the writer's thread wrote another file";
    const std::string la = slurp(d + "/own.lines.vcd"), lb = slurp(d + "/inline.lines.vcd");
    EXPECT_GT(la.size(), 10000u);
    EXPECT_TRUE(la == lb) << "the lines writer's thread wrote another file";
}

namespace {
// The same writes to an observed_signal and to a plain sc_signal: changes, writes of the value it
// has, a value written and written back in one delta cycle, changes in successive delta cycles of one
// instant.
SC_MODULE(observed_and_plain) {
    observed_signal<unsigned> observed{"observed", 0};
    sc_signal<unsigned> plain{"plain", 0};
    observed_signal<bool> observed_bit{"observed_bit", false};
    sc_signal<bool> plain_bit{"plain_bit", false};
    SC_HAS_PROCESS(observed_and_plain);
    explicit observed_and_plain(const sc_module_name& n)
        : sc_module(n) {
        SC_THREAD(run);
    }
    void both(unsigned v) {
        observed.write(v);
        plain.write(v);
        observed_bit.write(v & 1);
        plain_bit.write(v & 1);
    }
    void run() {
        std::mt19937 rng(3);
        for (int i = 0; i < 2000; ++i) {
            const unsigned v = rng() % 4;
            both(v);
            if (rng() % 4 == 0) both(observed.read()); // back to what it has: no change at all
            switch (rng() % 3) {
            case 0:
                wait(sc_time(rng() % 1000 + 1, SC_NS));
                break;
            case 1:
                wait(SC_ZERO_TIME); // another delta cycle of this instant
                break;
            default:
                wait(sc_time(rng() % 3, SC_PS));
            }
        }
    }
};
} // namespace

// An observed_signal tells the writer of its changes itself, with no method per signal; the file is
// the one a plain sc_signal with the same writes gives, and the observer runs once per change.
TEST(VcdWriter, AnObservedSignalGivesThePlainSignalsFile) {
    UARTVP_SIM_TEST();
    const scratch_dir scratch("vcd-observed");
    const std::string& d = scratch.path;
    observed_and_plain m("m");
    unsigned changes = 0;
    m.observed.on_change([&] { ++changes; });
    vcd_writer a("a", d + "/observed.vcd"), b("b", d + "/plain.vcd");
    a.add(m.observed, "u.level", 2);
    a.add(m.observed_bit, "u.bit");
    b.add(m.plain, "u.level", 2);
    b.add(m.plain_bit, "u.bit");
    unsigned plain_changes = 0;
    sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&m.plain.value_changed_event());
    opt.dont_initialize();
    sc_spawn([&] { ++plain_changes; }, "count", &opt);
    sc_start();
    ASSERT_TRUE(a.close() && b.close());
    const std::string fa = slurp(d + "/observed.vcd"), fb = slurp(d + "/plain.vcd");
    EXPECT_GT(fb.size(), 5000u);
    EXPECT_TRUE(fa == fb) << "an observed_signal's file differs from the plain signal's";
    EXPECT_GT(plain_changes, 500u);
    EXPECT_EQ(changes, plain_changes);
}

namespace {
// An 8N1 character of `data` from `start`, `bit` apart, its stop bit `stop`.
serial_char frame_at(std::uint64_t start, std::uint64_t bit, std::uint8_t data, bool stop) {
    serial_char c;
    c.bits = 10;
    c.data_bits = 8;
    c.parity = false;
    c.stop_bits = 1;
    c.data = data;
    c.levels = static_cast<std::uint16_t>((data << 1) | (stop ? 1u << 9 : 0));
    for (unsigned k = 0; k <= c.bits; ++k)
        c.edge[k] = ps(start + k * bit);
    return c;
}
} // namespace

// A character sent with its stop bit low (a framing error on purpose) leaves the line low for its
// stop bit only: the reader writes the rise back to the level between characters at its end, as the
// pin shows it, whether a gap or another character follows, and the level between characters is the
// last one reported (a break's low).
TEST(VcdLineReader, AStopBitSentLowRisesAtTheCharactersEnd) {
    UARTVP_SIM_TEST();
    const std::uint64_t bit = 8'680'556; // 115200 baud, in ps
    traffic t;
    std::uint64_t at = 10'000'000;
    const std::pair<std::uint8_t, bool> chars[] = {{0x41, true},  {0x00, false}, {0x42, true},
                                                   {0x7E, false}, {0x10, false}, {0x43, true}};
    for (std::size_t i = 0; i < std::size(chars); ++i) {
        const serial_char c = frame_at(at, bit, chars[i].first, chars[i].second);
        t.reports.push_back({c.edge[0], true, c, SC_ZERO_TIME, true});
        at = c.end().value() + (i == 3 ? 0 : 3 * bit); // the fifth back to back with the fourth
    }
    // Then a break, a character inside it (its end goes back to the break's low), and idle again.
    const std::uint64_t brk = at;
    t.reports.push_back({ps(brk), false, {}, ps(brk), false});
    const serial_char in_break = frame_at(brk + 20 * bit, bit, 0x55, true);
    t.reports.push_back({in_break.edge[0], true, in_break, SC_ZERO_TIME, true});
    const std::uint64_t idle = in_break.end().value() + 5 * bit;
    t.reports.push_back({ps(idle), false, {}, ps(idle), true});
    t.end = ps(idle + 10 * bit);
    // The pin: every bit's level, and the level between characters after each one.
    bool between = true;
    auto drive = [&](const sc_time& when, bool l) {
        const bool before = t.pin.empty() ? true : t.pin.back().level;
        if (l != before) t.pin.push_back({when, l});
    };
    for (const auto& r : t.reports) {
        if (!r.is_char) {
            between = r.level;
            drive(r.level_at, r.level);
            continue;
        }
        for (unsigned k = 0; k < r.c.bits; ++k)
            drive(r.c.edge[k], r.c.level(k));
        drive(r.c.end(), between);
    }
    const scratch_dir scratch("vcd-stop");
    const std::string& d = scratch.path;
    vcd_line_reader reader;
    sender s("s", t, reader);
    vcd_writer pin_vcd("pin_vcd", d + "/pin.vcd"), rep_vcd("rep_vcd", d + "/rep.vcd");
    pin_vcd.add(s.pin, "lines.rxd");
    reader.add_to(rep_vcd, "lines.rxd");
    sc_start(t.end);
    ASSERT_TRUE(pin_vcd.close() && rep_vcd.close());
    const std::string a = slurp(d + "/pin.vcd"), b = slurp(d + "/rep.vcd");
    EXPECT_EQ(a, b) << "the reader's line differs from the pin's";
}
