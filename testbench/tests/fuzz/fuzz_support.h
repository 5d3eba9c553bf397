// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared parts of the seeded random register-traffic tests (test_fuzz_pl011.cpp, test_fuzz_uart16550.cpp):
// settings from the environment, the failure report with the seed and the transaction index, a log of
// every change of a set of signals with its time, a join of two initiators onto one target socket, the
// book of read promises, timed input changes, the access and its transport, and the rig's shape: the
// first initiator's loop, single and twin runs.
//
// Environment (see docs/tests.md):
//   UARTVP_FUZZ_TRANSACTIONS  transactions per test (default: the test's CI count)
//   UARTVP_FUZZ_SEED          seed of every fuzz test (default: the test's own fixed seed)
//   UARTVP_FUZZ_LOG           1: print every transaction (for a reproducer)
#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/initiator_id.h>
#include <uartvp/read_promise.h>

namespace uartvp::test::fuzz {

struct settings {
    std::uint64_t transactions = 0;
    std::uint64_t seed = 0;
    bool log = false;
};

// Reads an unsigned number from the environment; a set but malformed value fails the test (no silent
// default). Returns false if the variable is not set.
inline bool env_number(const char* name, std::uint64_t& out) {
    const char* s = std::getenv(name);
    if (!s || !*s) return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 0);
    if (errno || *end || s[0] == '-') {
        ADD_FAILURE() << name << "=\"" << s << "\" is not an unsigned number";
        return false;
    }
    out = v;
    return true;
}

inline settings settings_from_env(std::uint64_t ci_transactions, std::uint64_t ci_seed) {
    settings s{ci_transactions, ci_seed, false};
    env_number("UARTVP_FUZZ_TRANSACTIONS", s.transactions);
    env_number("UARTVP_FUZZ_SEED", s.seed);
    std::uint64_t log = 0;
    if (env_number("UARTVP_FUZZ_LOG", log)) s.log = log != 0;
    std::printf("fuzz: seed %llu, %llu transactions (UARTVP_FUZZ_SEED, UARTVP_FUZZ_TRANSACTIONS)\n",
                static_cast<unsigned long long>(s.seed), static_cast<unsigned long long>(s.transactions));
    return s;
}

class rng {
public:
    explicit rng(std::uint64_t seed)
        : m_gen(seed) {}
    // 0 .. n-1 (n > 0)
    std::uint64_t pick(std::uint64_t n) { return n ? m_gen() % n : 0; }
    bool chance(unsigned percent) { return pick(100) < percent; }
    std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return lo + pick(hi - lo + 1); }
    std::uint64_t bits(unsigned n) { return n >= 64 ? m_gen() : m_gen() & ((std::uint64_t{1} << n) - 1); }

private:
    std::mt19937_64 m_gen;
};

// Where a failure happened: the seed and the transaction index reproduce it.
struct context {
    std::string test;
    std::uint64_t seed = 0;
    std::uint64_t index = 0; // transaction being executed
    std::string op;          // its description
    unsigned failures = 0;
    static constexpr unsigned max_failures = 12;
    bool stopped = false;

    std::string where() const {
        std::ostringstream o;
        o << test << ": seed " << seed << ", transaction #" << index << " at " << sc_core::sc_time_stamp()
          << " (" << op << ")";
        return o.str();
    }
    // Records a failure; after max_failures the simulation stops (the first ones say enough).
    void fail(const std::string& what) {
        ADD_FAILURE() << where() << ": " << what;
        if (++failures >= max_failures && !stopped) {
            stopped = true;
            ADD_FAILURE() << test << ": too many failures, stopping";
            sc_core::sc_stop();
        }
    }
};

inline std::string hex(std::uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
}

// Every change of the watched signals, with its time. Changes at the same time are kept in the order
// of the watched signals (deltas do not count), so that two runs can be compared change by change.
// With `keep` false only the number of changes per signal is kept.
class change_log : public sc_core::sc_module {
public:
    struct change {
        sc_core::sc_time t;
        unsigned signal;
        std::uint64_t value;
        bool operator==(const change& o) const { return t == o.t && signal == o.signal && value == o.value; }
    };
    struct watch {
        std::string name;
        const sc_core::sc_signal_in_if<bool>* b = nullptr;
        const sc_core::sc_signal_in_if<unsigned>* u = nullptr;
        std::uint64_t value() const { return b ? b->read() : u->read(); }
    };

    SC_HAS_PROCESS(change_log);
    change_log(const sc_core::sc_module_name& n, std::vector<watch> w, bool keep)
        : sc_module(n)
        , m_watch(std::move(w))
        , m_keep(keep)
        , m_counts(m_watch.size(), 0) {
        for (const watch& x : m_watch)
            m_last.push_back(x.value());
        SC_METHOD(on_change);
        for (const watch& x : m_watch) {
            if (x.b)
                sensitive << *x.b;
            else
                sensitive << *x.u;
        }
        dont_initialize();
    }
    const std::string& name_of(unsigned i) const { return m_watch[i].name; }
    std::uint64_t count(unsigned signal) const { return m_counts[signal]; }

    // Compares the changes before `before` (all if sc_max_time()) of two logs and drops them; returns
    // the first difference, or "" if they are equal.
    static std::string compare_and_drop(change_log& a, change_log& b, const sc_core::sc_time& before) {
        auto &x = a.m_changes, &y = b.m_changes;
        std::size_t i = 0;
        for (;; ++i) {
            const bool in_x = i < x.size() && x[i].t < before, in_y = i < y.size() && y[i].t < before;
            if (!in_x && !in_y) break;
            if (in_x && in_y && x[i] == y[i]) continue;
            std::ostringstream o;
            o << "change #" << (a.m_dropped + i) << ": ";
            auto show = [&](const change_log& l, const std::deque<change>& v, bool in) {
                if (!in)
                    o << "(none)";
                else
                    o << l.name_of(v[i].signal) << "=" << v[i].value << " at " << v[i].t;
            };
            show(a, x, in_x);
            o << " against ";
            show(b, y, in_y);
            return o.str();
        }
        x.erase(x.begin(), x.begin() + i);
        y.erase(y.begin(), y.begin() + i);
        a.m_dropped += i;
        b.m_dropped += i;
        return "";
    }

private:
    void on_change() {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        // Keep the changes of one time sorted by signal, whatever delta they came in.
        std::size_t first_now = m_changes.size();
        while (first_now > 0 && m_changes[first_now - 1].t == now)
            --first_now;
        for (unsigned i = 0; i < m_watch.size(); ++i) {
            const std::uint64_t v = m_watch[i].value();
            if (v == m_last[i]) continue;
            m_last[i] = v;
            ++m_counts[i];
            if (!m_keep) continue;
            auto pos = m_changes.end();
            while (pos != m_changes.begin() + first_now && (pos - 1)->signal > i)
                --pos;
            m_changes.insert(pos, change{now, i, v});
        }
    }
    std::vector<watch> m_watch;
    bool m_keep;
    std::vector<std::uint64_t> m_last, m_counts;
    std::deque<change> m_changes;
    std::uint64_t m_dropped = 0;
};

// Two (or more) initiators onto one target socket, passing every call through unchanged.
class bus_join : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<bus_join, 32> in{"in"};
    tlm_utils::simple_initiator_socket<bus_join, 32> out{"out"};

    explicit bus_join(const sc_core::sc_module_name& n)
        : sc_module(n) {
        in.register_b_transport(this, &bus_join::b_transport);
        in.register_transport_dbg(this, &bus_join::transport_dbg);
    }

private:
    void b_transport(int, tlm::tlm_generic_payload& tx, sc_core::sc_time& d) { out->b_transport(tx, d); }
    unsigned transport_dbg(int, tlm::tlm_generic_payload& tx) { return out->transport_dbg(tx); }
};

// The read promises a target gave, per register: while one is neither broken nor past its `until`,
// every read of that register issued before `until` must return the promised value (on the lanes both
// reads cover).
class promise_book {
public:
    struct entry {
        std::uint64_t key;
        std::uint64_t value, lanes; // bytes of the register the promised read returned
        sc_core::sc_time given, until;
        const std::uint64_t* breaks;
        std::uint64_t breaks_at_promise;
        std::uint64_t index; // transaction that got it
    };

    void add(std::uint64_t key, std::uint64_t value, std::uint64_t lanes, const read_promise& p,
             std::uint64_t index) {
        m_entries.push_back(
            {key, value, lanes, sc_core::sc_time_stamp(), p.until, p.breaks, p.breaks_at_promise, index});
        ++m_given;
    }
    // A read of `key` issued now returned `value` on `lanes`. `breaks_seen` is the target's count of
    // breaks as the reader last knew it before its read was applied (a count read later may include
    // breaks after the read: that only skips checks). Returns a description of a broken promise, or "".
    std::string check(std::uint64_t key, std::uint64_t value, std::uint64_t lanes,
                      std::uint64_t breaks_seen) {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        std::string bad;
        for (const entry& e : m_entries) {
            if (e.key != key || now >= e.until || breaks_seen != e.breaks_at_promise) continue;
            const std::uint64_t both = lanes & e.lanes;
            ++m_checked;
            if ((value & both) != (e.value & both) && bad.empty()) {
                std::ostringstream o;
                o << "read promise broken: register " << hex(key) << " promised " << hex(e.value & both)
                  << " at " << e.given << " (transaction #" << e.index << ") until " << e.until
                  << " with no break since, now reads " << hex(value & both);
                bad = o.str();
            }
        }
        return bad;
    }
    // Drops the promises that can no longer be checked.
    void prune() {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                       [&](const entry& e) {
                                           return now >= e.until || !e.breaks ||
                                                  *e.breaks != e.breaks_at_promise;
                                       }),
                        m_entries.end());
    }
    std::uint64_t given() const { return m_given; }
    std::uint64_t checked() const { return m_checked; }

private:
    std::vector<entry> m_entries;
    std::uint64_t m_given = 0, m_checked = 0;
};

// Input changes at chosen times (RXD frames, modem lines, reset pulses), applied in time order by the
// primary initiator's thread before the access of the same time.
struct input_change {
    sc_core::sc_time t;
    unsigned pin;
    bool level;
};
class input_schedule {
public:
    // Inserts keeping time order (changes of one time in the order given).
    void add(const sc_core::sc_time& t, unsigned pin, bool level) {
        auto pos = m_q.end();
        while (pos != m_q.begin() && (pos - 1)->t > t)
            --pos;
        m_q.insert(pos, input_change{t, pin, level});
    }
    bool empty() const { return m_q.empty(); }
    const input_change& front() const { return m_q.front(); }
    void pop() { m_q.pop_front(); }
    // The last time at which something is scheduled for `pin` (or `from` if none).
    sc_core::sc_time last_for(unsigned pin, const sc_core::sc_time& from) const {
        sc_core::sc_time t = from;
        for (const input_change& c : m_q)
            if (c.pin == pin && c.t > t) t = c.t;
        return t;
    }

private:
    std::deque<input_change> m_q;
};

// Canary byte for data lanes a target must leave untouched.
constexpr unsigned char canary = 0xA5;

inline const char* status_name(int s) {
    switch (s) {
    case tlm::TLM_OK_RESPONSE:
        return "OK";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        return "ADDRESS_ERROR";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
        return "COMMAND_ERROR";
    case tlm::TLM_BURST_ERROR_RESPONSE:
        return "BURST_ERROR";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
        return "BYTE_ENABLE_ERROR";
    case tlm::TLM_INCOMPLETE_RESPONSE:
        return "INCOMPLETE";
    default:
        return "GENERIC_ERROR";
    }
}

// One access of the traffic; `width` is the length (and streaming width) it has unless the traffic
// picks another.
template <unsigned width> struct bus_request {
    bool write = false;
    bool debug = false;
    std::uint64_t addr = 0;
    unsigned len = width, sw = width;
    bool has_be = false;
    std::vector<unsigned char> be; // may be empty: byte_enable_length 0
    std::array<unsigned char, 8> data{};
    bool promise = false;
    std::uint64_t annotate_ps = 0; // local time handed to b_transport

    bool lane_on(unsigned i) const {
        return !has_be || (!be.empty() && be[i % be.size()] == TLM_BYTE_ENABLED);
    }
};

template <unsigned width> std::string describe(const bus_request<width>& q) {
    std::ostringstream o;
    o << (q.debug ? "debug " : "") << (q.write ? "write " : "read ") << hex(q.addr) << " len " << q.len;
    if (q.sw != q.len) o << " sw " << q.sw;
    if (q.has_be) {
        o << " be[";
        for (unsigned char b : q.be)
            o << (b ? '1' : '0');
        o << "]";
    }
    if (q.write) {
        o << " data";
        for (unsigned i = 0; i < std::min(q.len, 8u); ++i)
            o << " " << hex(q.data[i]);
    }
    if (q.promise) o << " +promise";
    if (q.annotate_ps) o << " +" << q.annotate_ps << "ps";
    return o.str();
}

// One access as a twin run compares it.
struct access_record {
    std::uint64_t index;
    sc_core::sc_time issued, completed;
    int status;
    std::array<unsigned char, 8> data;
    bool promised;
    sc_core::sc_time until;
    bool operator==(const access_record& o) const {
        return index == o.index && issued == o.issued && completed == o.completed && status == o.status &&
               data == o.data && promised == o.promised && until == o.until;
    }
};
inline std::string show(const access_record& a) {
    std::ostringstream o;
    o << "#" << a.index << " issued " << a.issued << " completed " << a.completed << " "
      << status_name(a.status) << " data";
    for (unsigned char b : a.data)
        o << " " << hex(b);
    if (a.promised) o << " promised until " << a.until;
    return o.str();
}

// A serial frame format for the traffic on RXD.
struct line_format {
    unsigned data_bits = 8;
    bool parity = false, even = false, stick = false;
    unsigned stop_bits = 1;
    bool parity_bit(unsigned data) const {
        if (stick) return !even; // stick parity: "even" sends 0, "odd" sends 1
        const bool odd_ones = __builtin_popcount(data & ((1u << data_bits) - 1)) & 1;
        return even ? odd_ones : !odd_ones;
    }
};

// What the traffic of both UARTs shares (derived_t: the UART's traffic, CRTP, with bit_ps() and
// generate(), which queues the next operations; op_t: its operation, with the kinds access, rx_burst,
// modem and reset_pulse). The stream is deterministic: the same seed gives the same operations whatever
// the UART answers, so that twin runs see identical traffic.
template <class derived_t, class op_t> class traffic_base {
public:
    explicit traffic_base(std::uint64_t seed)
        : r(seed) {}
    op_t next() {
        while (m_q.empty())
            static_cast<derived_t&>(*this).generate();
        op_t o = m_q.front();
        m_q.pop_front();
        return o;
    }
    fuzz::rng r;

protected:
    // The time before an operation: none, up to 1, 10, 60 or 400 bit times (5:5:5:4:1).
    std::uint64_t gap() {
        const std::uint64_t bit = static_cast<derived_t&>(*this).bit_ps();
        const unsigned k = static_cast<unsigned>(r.pick(20));
        if (k < 5) return 0;
        if (k < 10) return r.pick(bit);
        if (k < 15) return r.pick(10 * bit);
        if (k < 19) return r.pick(60 * bit);
        return r.pick(400 * bit);
    }
    // An operation after a gap, from the previous one's completion mostly, on the grid at times.
    op_t base() {
        op_t o;
        o.gap_ps = gap();
        o.after_completion = r.chance(70);
        o.on_grid = r.chance(20);
        return o;
    }
    void push(typename op_t::kind_t kind) {
        op_t o = base();
        o.kind = kind;
        m_q.push_back(o);
    }
    // A well-formed register read as a debug read (no byte enables, promise or annotation).
    static typename op_t::req_t as_debug_read(op_t reg_read) {
        reg_read.req.debug = true;
        reg_read.req.has_be = false;
        reg_read.req.promise = false;
        reg_read.req.annotate_ps = 0;
        return reg_read.req;
    }
    // A reset pulse of 1 to 40 clock periods, then the access make_first() returns, issued a little
    // after the pulse's end (counted from its start, not after a completion, off the grid, applied now).
    template <class make_t> void push_reset_pulse(std::uint64_t period_ps, make_t make_first) {
        op_t o = base();
        o.kind = op_t::reset_pulse;
        o.length_ps = period_ps * r.range(1, 40) + r.pick(period_ps);
        m_q.push_back(o);
        op_t first = make_first();
        first.gap_ps = o.length_ps + r.pick(4 * period_ps);
        first.after_completion = false;
        first.on_grid = false;
        first.req.annotate_ps = 0;
        m_q.push_back(first);
    }

    std::deque<op_t> m_q;
    unsigned m_reconfigure_in = 0; // operations until the set-up is written again (0: none planned)
};

// The parts of a fuzz bench that do not depend on the UART: its input lines, driven from a schedule by
// the first initiator's thread (so that it knows what changed when), time steps that let the UART's
// reaction settle, and the grid of times the second initiator uses.
class rig_base : public sc_core::sc_module {
public:
    struct pin_def {
        const char* name;
        bool initial;
    };
    std::vector<std::unique_ptr<sc_core::sc_signal<bool>>> pins;
    std::uint64_t input_changes = 0, resets = 0;

protected:
    rig_base(const sc_core::sc_module_name& n, const std::vector<pin_def>& defs, unsigned reset_pin,
             std::uint64_t grid_ps)
        : sc_module(n)
        , m_reset_pin(reset_pin)
        , m_grid_ps(grid_ps) {
        for (const pin_def& d : defs)
            pins.push_back(std::make_unique<sc_core::sc_signal<bool>>(d.name, d.initial));
    }
    sc_core::sc_signal<bool>& pin(unsigned p) { return *pins[p]; }

    // Applies the changes scheduled for t (the last one per pin wins; a pin written with its own
    // value does not change).
    void apply_inputs_at(const sc_core::sc_time& t) {
        std::vector<int> level(pins.size(), -1);
        while (!m_inputs.empty() && m_inputs.front().t == t) {
            level[m_inputs.front().pin] = m_inputs.front().level;
            m_inputs.pop();
        }
        bool changed = false;
        for (unsigned p = 0; p < pins.size(); ++p) {
            if (level[p] < 0 || bool(level[p]) == pins[p]->read()) continue;
            pins[p]->write(level[p]);
            changed = true;
            if (p == m_reset_pin && !level[p]) ++resets;
        }
        if (changed) {
            ++input_changes;
            m_input_times.push_back(t);
        }
    }
    // Lets the signals written at this time, and the UART's reaction to them and to its own accesses,
    // settle (a few deltas; the UART drives its outputs a delta after it is woken).
    void settle() {
        for (int i = 0; i < 3; ++i)
            wait(sc_core::SC_ZERO_TIME);
    }
    // Goes to time t, applying the input changes scheduled up to it.
    void advance_to(const sc_core::sc_time& t) {
        while (!m_inputs.empty() && m_inputs.front().t <= t) {
            const sc_core::sc_time at = m_inputs.front().t;
            if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
            apply_inputs_at(at);
        }
        if (t > sc_core::sc_time_stamp()) wait(t - sc_core::sc_time_stamp());
        settle();
    }
    sc_core::sc_time next_grid(const sc_core::sc_time& t) const {
        const std::uint64_t g = m_grid_ps, v = t.value();
        return sc_core::sc_time::from_value((v + g - 1) / g * g);
    }
    // A local-time annotation the initiator can afford: none if it would pass an input change (the
    // initiator cannot apply that while the target waits).
    std::uint64_t affordable_annotation(std::uint64_t ps) const {
        if (ps && !m_inputs.empty() &&
            sc_core::sc_time_stamp() + sc_core::sc_time::from_value(ps) >= m_inputs.front().t)
            return 0;
        return ps;
    }
    bool input_changed_at(const sc_core::sc_time& t) const {
        return std::find(m_input_times.begin(), m_input_times.end(), t) != m_input_times.end();
    }
    void forget_inputs_before(const sc_core::sc_time& t) {
        while (!m_input_times.empty() && m_input_times.front() < t)
            m_input_times.pop_front();
    }

    // Traffic on RXD from now on (after what is already scheduled): characters in `fmt` at `bit_ps`
    // (a few percent off at times), some with a bad stop or parity bit, all-zero ones, breaks, glitches.
    void schedule_rx(rng& r, unsigned rxd, std::uint64_t bit_ps, line_format fmt) {
        sc_core::sc_time t =
            std::max(sc_core::sc_time_stamp() + sc_core::sc_time::from_value(r.pick(bit_ps)), m_rx_free);
        static const double errs[] = {0, 0, 0, 0.01, -0.01, 0.02, -0.02, 0.035, -0.035, 0.045, -0.045};
        const double bit = bit_ps * (1 + errs[r.pick(11)]);
        auto at = [&](double ps) { return t + sc_core::sc_time::from_value(static_cast<std::uint64_t>(ps)); };
        const unsigned kind = static_cast<unsigned>(r.pick(100));
        if (kind < 16) { // a break (12 to 40 bits low), or a glitch (up to half a bit)
            m_inputs.add(at(0), rxd, false);
            t = kind < 8 ? at(bit * r.range(12, 40)) : at(1 + r.pick(static_cast<std::uint64_t>(bit / 2)));
            m_inputs.add(t, rxd, true);
            m_rx_free = at(bit);
            return;
        }
        const unsigned chars =
            r.chance(20) ? static_cast<unsigned>(r.range(2, 48)) : static_cast<unsigned>(r.range(1, 6));
        for (unsigned c = 0; c < chars; ++c) {
            const unsigned data = r.chance(10) ? 0 : static_cast<unsigned>(r.bits(8));
            const bool bad_stop = r.chance(6), bad_parity = r.chance(6);
            std::vector<bool> bits{false};
            for (unsigned i = 0; i < fmt.data_bits; ++i)
                bits.push_back((data >> i) & 1);
            if (fmt.parity) bits.push_back(fmt.parity_bit(data) != bad_parity);
            for (unsigned i = 0; i < fmt.stop_bits; ++i)
                bits.push_back(!bad_stop);
            bool level = true;
            for (std::size_t i = 0; i < bits.size(); ++i)
                if (bits[i] != level) {
                    m_inputs.add(at(i * bit), rxd, bits[i]);
                    level = bits[i];
                }
            t = at(bits.size() * bit + (bad_stop ? bit : 0));
            if (!level) m_inputs.add(t, rxd, true);
            if (r.chance(30)) t = at(r.pick(static_cast<std::uint64_t>(3 * bit)));
        }
        m_rx_free = t;
    }
    // A change of `p` to `level` a little after anything already scheduled for it, and maybe back.
    void schedule_toggle(rng& r, unsigned p, std::uint64_t step_ps, bool level, std::uint64_t back_after_ps) {
        const sc_core::sc_time t = m_inputs.last_for(p, sc_core::sc_time_stamp()) +
                                   sc_core::sc_time::from_value(1 + r.pick(step_ps));
        m_inputs.add(t, p, level);
        if (back_after_ps) m_inputs.add(t + sc_core::sc_time::from_value(back_after_ps), p, !level);
    }

    input_schedule m_inputs;
    std::deque<sc_core::sc_time> m_input_times; // when the inputs changed (recent ones)
    sc_core::sc_time m_rx_free;
    unsigned m_reset_pin;
    std::uint64_t m_grid_ps;
};

// What the rigs of both UARTs share around their checks (derived_t: the UART's rig, CRTP): two
// initiators joined onto the UART's socket, the settings, the failure context, the traffic and the
// second initiator's random source, the records a twin run compares, the book of promises with the
// break count they share, and the first initiator's loop over the traffic. The rig supplies
// flush(bool last) (optional), check_cause(), check_at_rest(), schedule(const op&) for the operations
// that are no access, debug_access(req) and bus_access(req, seq) returning the completion time.
template <class derived_t, class options_t, class traffic_t> class rig_core : public rig_base {
public:
    // The outputs every UART has (the rig's first six pins are its inputs: see line_pins()).
    sc_core::sc_signal<bool> txd{"txd", true}, irq{"irq"}, nrts{"nrts", true}, ndtr{"ndtr", true},
        nout1{"nout1", true}, nout2{"nout2", true};
    bus_join join{"join"};
    tlm_utils::simple_initiator_socket<rig_core, 32> sock1{"sock1"}, sock2{"sock2"};
    std::unique_ptr<change_log> outputs;

    options_t opt;
    settings set;
    context ctx;
    traffic_t gen;
    fuzz::rng r2; // the second initiator's choices
    sc_core::sc_event done_event;
    bool done = false;
    std::deque<access_record> records1, records2; // with opt.keep_records

    std::uint64_t promise_checks() const { return m_promises.checked(); }

protected:
    using socket_t = tlm_utils::simple_initiator_socket<rig_core, 32>;

    rig_core(const sc_core::sc_module_name& nm, const std::vector<pin_def>& defs, unsigned reset_pin,
             const options_t& o, const settings& s, traffic_t g)
        : rig_base(nm, defs, reset_pin, o.grid_ps)
        , opt(o)
        , set(s)
        , gen(std::move(g))
        , r2(s.seed * 0x9E3779B97F4A7C15ull + 7) {
        ctx.test = opt.name;
        ctx.seed = s.seed;
        sock1.bind(join.in);
        sock2.bind(join.in);
    }

    // The inputs every UART has, as the rig's pins 0 to 5 (rxd, ncts, ndsr, ndcd, nri, nreset), then `more`.
    static std::vector<pin_def> line_pins(std::vector<pin_def> more) {
        std::vector<pin_def> d{{"rxd", true},  {"ncts", true}, {"ndsr", true},
                               {"ndcd", true}, {"nri", true},  {"nreset", true}};
        d.insert(d.end(), more.begin(), more.end());
        return d;
    }
    // Binds the UART's bus, the outputs and inputs above.
    template <class uart_t> void bind_lines(uart_t& uart) {
        join.out.bind(uart.bus);
        uart.txd(txd);
        uart.irq(irq);
        uart.rxd(pin(0));
        uart.ncts(pin(1));
        uart.ndsr(pin(2));
        uart.ndcd(pin(3));
        uart.nri(pin(4));
        uart.nreset(pin(5));
        uart.nrts(nrts);
        uart.ndtr(ndtr);
        uart.nout1(nout1);
        uart.nout2(nout2);
    }
    // The outputs above as the change log watches them (signals 0 to 5), then `more`.
    std::vector<change_log::watch> line_watches(std::vector<change_log::watch> more) {
        std::vector<change_log::watch> w{{"txd", &txd},   {"irq", &irq},     {"nrts", &nrts},
                                         {"ndtr", &ndtr}, {"nout1", &nout1}, {"nout2", &nout2}};
        w.insert(w.end(), more.begin(), more.end());
        return w;
    }

    // A debug access of the first initiator; returns the bytes transport_dbg answered.
    unsigned dbg(std::uint64_t addr, unsigned len, unsigned char* buf, bool write = false) {
        tlm::tlm_generic_payload tx;
        tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        tx.set_address(addr);
        tx.set_data_ptr(buf);
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        return sock1->transport_dbg(tx);
    }

    // One access through `sock`: `buf` gets the data to write (or canaries for a read), the payload the
    // initiator id `who` (none if 0), the byte enables and a read promise if `q` asks for them. Leaves
    // the delay in `d`; returns the response.
    template <unsigned width>
    tlm::tlm_response_status transport(socket_t& sock, const bus_request<width>& q,
                                       std::array<unsigned char, 8>& buf, unsigned who, read_promise& promise,
                                       sc_core::sc_time& d) {
        if (q.write)
            buf = q.data;
        else
            buf.fill(canary);
        unsigned char be_none = 0;
        tlm::tlm_generic_payload tx;
        tx.set_command(q.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        tx.set_address(q.addr);
        tx.set_data_ptr(buf.data());
        tx.set_data_length(q.len);
        tx.set_streaming_width(q.sw);
        if (q.has_be) {
            tx.set_byte_enable_ptr(q.be.empty() ? &be_none : const_cast<unsigned char*>(q.be.data()));
            tx.set_byte_enable_length(static_cast<unsigned>(q.be.size()));
        }
        initiator_id id(who);
        if (who) tx.set_extension(&id);
        if (q.promise) tx.set_extension(&promise);
        sock->b_transport(tx, d);
        if (who) tx.clear_extension(&id);
        if (q.promise) tx.clear_extension(&promise);
        return tx.get_response_status();
    }

    // The first promise tells where the target counts its breaks and their cause.
    void note_promise(const read_promise& promise) {
        if (!promise.valid || m_breaks) return;
        m_breaks = promise.breaks;
        m_cause = promise.cause;
        m_breaks_seen = m_breaks ? *m_breaks : 0;
    }

    void flush(bool) {} // nothing pending by default

    // The checks between two operations (last: after the traffic, once the line has drained).
    void look(bool last) {
        derived_t& self = static_cast<derived_t&>(*this);
        self.flush(last);
        self.check_cause();
        if (opt.checks) {
            self.check_at_rest();
            if (!last) m_promises.prune();
        }
    }

    // ---- the first initiator: the traffic, with the checks
    void first_initiator() {
        derived_t& self = static_cast<derived_t&>(*this);
        sc_core::sc_time last_completion;
        std::uint64_t bus_count = 0;
        for (ctx.index = 0; ctx.index < set.transactions && !ctx.stopped;) {
            auto o = gen.next();
            sc_core::sc_time t = (o.after_completion ? std::max(last_completion, sc_core::sc_time_stamp())
                                                     : sc_core::sc_time_stamp()) +
                                 sc_core::sc_time::from_value(o.gap_ps);
            if (o.on_grid) t = next_grid(t);
            advance_to(t);
            look(false);
            if (o.kind != decltype(o)::access) {
                self.schedule(o);
                continue;
            }
            ctx.op = describe(o.req);
            if (set.log)
                std::printf("%s #%llu %s %s\n", opt.name.c_str(), static_cast<unsigned long long>(ctx.index),
                            sc_core::sc_time_stamp().to_string().c_str(), ctx.op.c_str());
            if (o.req.debug) {
                if (opt.debug_reads) self.debug_access(o.req);
            } else {
                // Keep a local time annotation short of the next input change (the initiator cannot
                // apply it while the target waits).
                o.req.annotate_ps = affordable_annotation(o.req.annotate_ps);
                last_completion = self.bus_access(o.req, bus_count++);
            }
            ++ctx.index;
        }
        // Let the line drain, then the last checks.
        advance_to(sc_core::sc_time_stamp() + sc_core::sc_time::from_value(200 * gen.bit_ps()));
        look(true);
        done = true;
        done_event.notify();
    }

    promise_book m_promises;
    const std::uint64_t* m_breaks = nullptr;
    const read_promise::break_cause* m_cause = nullptr;
    std::uint64_t m_breaks_seen = 0;
    sc_core::sc_time m_obs_time; // the cause of breaks is known up to here
    // The second initiator: the grid point it will issue at next (or has issued at and not finished),
    // and the issue time of its last access that returned.
    sc_core::sc_time m_second_at = sc_core::sc_max_time();
    sc_core::sc_time m_second_returned = sc_core::sc_max_time();
};

// Stops the simulation once every rig has run its traffic.
template <class rig_t> struct stopper : sc_core::sc_module {
    std::vector<rig_t*> rigs;
    SC_HAS_PROCESS(stopper);
    stopper(const sc_core::sc_module_name& n, std::vector<rig_t*> r)
        : sc_module(n)
        , rigs(std::move(r)) {
        SC_THREAD(run);
    }
    void run() {
        for (rig_t* x : rigs)
            while (!x->done)
                wait(x->done_event);
        sc_core::sc_stop();
    }
};

// Compares two rigs' records (every access result of both initiators) and outputs (every change) as
// the run goes, dropping what has been compared: long runs keep little in memory.
template <class rig_t> struct twin_comparer : sc_core::sc_module {
    rig_t &a, &b;
    std::string first;
    SC_HAS_PROCESS(twin_comparer);
    twin_comparer(const sc_core::sc_module_name& n, rig_t& x, rig_t& y)
        : sc_module(n)
        , a(x)
        , b(y) {
        SC_THREAD(run);
    }
    void run() {
        while (first.empty()) {
            wait(sc_core::sc_time(1, sc_core::SC_MS));
            compare(sc_core::sc_time_stamp());
            if (!first.empty()) sc_core::sc_stop();
        }
    }
    void compare(const sc_core::sc_time& before) {
        if (!first.empty()) return;
        first = change_log::compare_and_drop(*a.outputs, *b.outputs, before);
        if (!first.empty()) return;
        for (auto [p, q] : {std::pair{&a.records1, &b.records1}, std::pair{&a.records2, &b.records2}}) {
            while ((!p->empty() && p->front().issued < before) ||
                   (!q->empty() && q->front().issued < before)) {
                const bool in_p = !p->empty() && p->front().issued < before,
                           in_q = !q->empty() && q->front().issued < before;
                if (!in_p || !in_q || !(p->front() == q->front())) {
                    first = "first different access: " + (in_p ? show(p->front()) : std::string("(none)")) +
                            " against " + (in_q ? show(q->front()) : std::string("(none)"));
                    return;
                }
                p->pop_front();
                q->pop_front();
            }
        }
    }
};

// A run of one rig (rig_t's options, the CI count and seed unless the environment says otherwise).
// report(rig) and expect_exercised(rig) are the rig's own, found beside it.
template <class rig_t, class options_t>
void run_fuzz(const options_t& o, std::uint64_t ci_transactions, std::uint64_t ci_seed) {
    const settings s = settings_from_env(ci_transactions, ci_seed);
    rig_t x(o.name.c_str(), o, s);
    stopper<rig_t> stop("stop", {&x});
    sc_core::sc_start();
    report(x);
    expect_exercised(x);
}

// Two rigs on identical traffic, compared output change by output change and access by access.
template <class rig_t, class options_t>
void run_twins(options_t a, options_t b, std::uint64_t ci_transactions, std::uint64_t ci_seed) {
    const settings s = settings_from_env(ci_transactions, ci_seed);
    a.keep_records = b.keep_records = true;
    rig_t x(a.name.c_str(), a, s), y(b.name.c_str(), b, s);
    stopper<rig_t> stop("stop", {&x, &y});
    twin_comparer<rig_t> cmp("cmp", x, y);
    sc_core::sc_start();
    cmp.compare(sc_core::sc_max_time());
    report(x);
    report(y);
    expect_exercised(x);
    EXPECT_EQ(cmp.first, "") << a.name << " against " << b.name << " (seed " << s.seed << ")";
}

// "The traffic did exercise the UART": at least so many per 10^5 transactions (runs shorter than
// 2*10^4 transactions are not asked).
class exercise_quota {
public:
    explicit exercise_quota(std::uint64_t transactions)
        : m_k(transactions / 1e5)
        , m_applies(transactions >= 20000) {}
    bool applies() const { return m_applies; }
    void at_least(std::uint64_t got, double per_1e5, const char* what) const {
        EXPECT_GE(got, static_cast<std::uint64_t>(per_1e5 * m_k)) << what;
    }

private:
    double m_k;
    bool m_applies;
};

} // namespace uartvp::test::fuzz
