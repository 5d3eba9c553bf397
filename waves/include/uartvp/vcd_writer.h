// SPDX-License-Identifier: Apache-2.0
#pragma once
// A VCD writer for SystemC signals that costs only where a signal changes: one method per signal,
// woken by its value-changed event, takes the change at its time (an observed_signal, such as the
// UARTs' observation signals, calls the writer itself, without a method). (SystemC's own sc_trace VCD file
// compares every traced value and formats the time through a stream at every time step, which
// dominates a long run.) Dotted names become scopes; vectors carry their range, as GTKWave names them.
#include <cstdint>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <uartvp/observed_signal.h>
#include <uartvp/serial_line.h>

namespace uartvp {

class vcd_writer : public sc_core::sc_module {
public:
    // `timescale_ps`: 1, 10 or 100 times a power of ten; changes are written at their time rounded to it.
    // Throws std::invalid_argument for a timescale VCD cannot express, std::runtime_error if `path`
    // cannot be written.
    vcd_writer(const sc_core::sc_module_name& name, const std::string& path, std::uint64_t timescale_ps = 1);
    ~vcd_writer() override;

    // Add before the simulation starts. `name` is dotted ("uart0.busy"); its last part must be unique
    // within its scope.
    void add(const sc_core::sc_signal_in_if<bool>& s, const std::string& name);
    template <class T>
    void add(const sc_core::sc_signal_in_if<T>& s, const std::string& name, unsigned width) {
        add_var(
            name, width, &s.value_changed_event(), [&s] { return static_cast<std::uint64_t>(s.read()); },
            dynamic_cast<const signal_observers*>(&s));
    }
    // A port's signal (a UART's lines: sc_in<bool>, sc_out<bool>, an optional port), found once the
    // ports are bound, at the end of elaboration; a port left unbound is left out.
    void add(const sc_core::sc_port_base& port, const std::string& name);
    // A variable written where `changed` fires, with the value `read` gives then.
    void add(const sc_core::sc_event& changed, const std::string& name, unsigned width,
             std::function<std::uint64_t()> read) {
        add_var(name, width, &changed, std::move(read));
    }
    // A variable whose values are known only later, each given with its time (write_at), which may be
    // in the past: from hold(t) on, changes at or after t are held back in memory until every hold is
    // released, so that the file stays in time order. Returns the variable's handle.
    std::size_t add_deferred(const std::string& name, unsigned width, std::uint64_t initial = 0);
    // Holds changes from `from` (not before the present) on; returns the hold's handle for release().
    std::uint64_t hold(const sc_core::sc_time& from);
    // `value` for deferred variable `var` from `at` on (at or after the earliest hold still open).
    void write_at(std::size_t var, const sc_core::sc_time& at, std::uint64_t value);
    void release(std::uint64_t hold);
    // A variable whose changes are given ahead of their time (write_at with a time still to come), as a
    // sender reports its line: each is written when its time comes, in time order with the others; one
    // can be withdrawn until then (withdraw), and those still ahead when the file closes never happened.
    std::size_t add_ahead(const std::string& name, unsigned width, std::uint64_t initial = 0);
    // Withdraws the changes of `var` given for `from` or later that are not written yet.
    void withdraw(std::size_t var, const sc_core::sc_time& from);
    // Write the initial values without a $dumpvars block (for readers that know only value changes).
    void plain_initial_values(bool on) { m_plain_init = on; }
    // Format and write the file in a thread of its own while the simulation runs (the default), or in
    // the simulation's thread (off; set before the simulation starts). The file is the same either way.
    void background(bool on) { m_background = on; }
    // Writes a last time stamp and closes the file (also done on destruction); false if a write failed.
    bool close();
    std::uint64_t timescale_ps() const { return m_ts_ps; }

private:
    struct var {
        std::string name;
        unsigned width;
        std::string id;
        char id_line[8] = {}; // the identifier and a newline, as a value's line ends
        std::function<std::uint64_t()> read;
        std::uint64_t initial = 0; // a deferred variable's (read is empty)
        bool ahead = false;        // given ahead of its time (add_ahead)
        std::size_t index = 0;     // in m_vars: the order within a time stamp
    };
    struct held {
        std::uint64_t tick;
        std::uint64_t at; // the exact time (resolution units): orders changes within a tick
        const var* v;
        std::uint64_t value;
    };
    // A signal that tells its observers of its changes (observed_signal) is taken that way; anything
    // else by a method woken by `changed`.
    void add_var(const std::string& name, unsigned width, const sc_core::sc_event* changed,
                 std::function<std::uint64_t()> read, const signal_observers* observed = nullptr);
    void end_of_elaboration() override;
    void start_of_simulation() override;
    struct op;
    class formatter;
    void submit(const op& o);
    void apply(const op& o);
    void change(const var& v);
    std::uint64_t tick_of(std::uint64_t units) const; // simulation time in resolution units
    void put(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value);
    void add_change(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value,
                    std::uint64_t now);
    void insert_held(std::uint64_t tick, std::uint64_t at, const var& v, std::uint64_t value);
    std::size_t new_var(const std::string& name, unsigned width);
    void flush_held(bool all, std::uint64_t now);
    std::string m_path;
    std::uint64_t m_ts_ps, m_units_per_ps_den, m_units_per_ps_num;
    std::ofstream m_out;
    bool m_ok = true;
    std::vector<std::unique_ptr<var>> m_vars; // not changed once the simulation starts
    bool m_background = true;
    bool m_plain_init = false;
    std::vector<std::pair<const sc_core::sc_port_base*, std::string>> m_ports;
    std::uint64_t m_next_hold = 0;
    // What the simulation tells the writer is applied (ordered, grouped, formatted, written) in a
    // thread of its own from the start of the simulation (background()), so that a run pays little
    // more than the telling. The members below are that thread's while it runs.
    std::unique_ptr<formatter> m_fmt;
    std::uint64_t m_last_tick = 0;
    std::uint64_t m_last_at = 0; // the exact time of the last change written
    // The held changes in time order: a vector read from `head` on (a deque's insertion and paging
    // cost more than these few changes need), compacted once most of it has been written.
    struct held_queue {
        std::vector<held> q;
        std::size_t head = 0;
        bool empty() const { return head == q.size(); }
        const held& front() const { return q[head]; }
        void pop_front() {
            if (++head == q.size()) {
                q.clear();
                head = 0;
            } else if (head >= 4096 && head * 2 >= q.size()) {
                q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(head));
                head = 0;
            }
        }
    } m_held;
    std::map<std::uint64_t, std::uint64_t> m_holds; // handle -> tick
    std::uint64_t m_hold_min = ~std::uint64_t{0};   // the earliest open hold's tick (none: the largest)
};

// A serial line written from its sender's character reports (serial_line_if) instead of a pin: hand it
// to the sender (pl011::report_line, uart16550::report_line, any UART reporting its line that way),
// which then need not drive its TX pin edge by edge, and each file it is added to gets the changes the
// pin would show, byte for byte: every level change at its exact time (written when that time comes, so
// in time order with the other signals' changes; within a time stamp the writer lists changes in the
// order the variables were added, for a pin as for a reader), a level reported inside a character or
// before one reported ahead cutting it there, the rest of a cut character given level by level, nothing
// the run did not reach.
class vcd_line_reader : public serial_line_if {
public:
    explicit vcd_line_reader(bool initial = true)
        : m_base(initial) {}
    // Adds the line to `w` as a variable `name` of its own (before the simulation starts).
    void add_to(vcd_writer& w, const std::string& name);
    void line_char(const serial_char& c) override;
    void line_level(const sc_core::sc_time& t, bool level) override;
    bool initial() const { return m_initial; }

private:
    void forget_past();
    void edge(const sc_core::sc_time& t, bool level);
    std::vector<std::pair<vcd_writer*, std::size_t>> m_to;
    std::deque<std::pair<sc_core::sc_time, bool>> m_edges; // given, not yet in the past
    bool m_base;                                           // the level before them
    bool m_initial = m_base;
    bool m_between = m_base; // the line's level between characters: the last level reported
};

} // namespace uartvp
