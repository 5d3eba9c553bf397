// SPDX-License-Identifier: Apache-2.0
#include <uartvp/pl011.h>

#include <algorithm>
#include <climits>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <uartvp/initiator_id.h>
#include <uartvp/read_promise.h>

#include "bus/access_order.h"

#include "bus/port_access.h"
#include "bus/tlm_access.h"
#include "pl011/pl011_core.h"

namespace uartvp {

using detail::apply_clk_hz;
using detail::read_or;
using detail::write_if_bound;

using namespace sc_core;

struct pl011::impl {
    impl(const pl011_config& cfg)
        : core(cfg.fifo_depth, cfg.clock_every_cycle, !cfg.rtl_vcd.empty()) {
        core.measure_eval_time(cfg.measure_eval_time);
    }
    detail::pl011_core core;
    // The process is statically sensitive to m_wake and to `plan`, the edge at which an output can
    // next change (cancelled and notified anew at each activation: a method's timeout with an event
    // list would add and remove its dynamic sensitivity to each event every time). The inputs that are
    // bound wake it through inputs_changed().
    sc_event plan{"plan"};
    sc_event input{"input"}; // notified at once by inputs_changed()
    sc_event_or_list inputs;
    bool inputs_watched = false;
    // The outputs of access edges the model has already taken but whose time has not come: an access
    // lands on the first edge after its issue, and several in one UARTCLK period on the edges after.
    // The thread shows each at its edge's time; the back one is the model's present state.
    std::deque<std::pair<std::uint64_t, detail::pl011_outputs>> ahead;
    detail::promise_breaker breaker; // accesses with side effects, input changes, reset
    detail::access_order order;
    detail::pl011_outputs shown; // what the output ports were last driven with
    std::uint64_t wakes = 0, idle_wakes = 0;
    std::uint64_t late = 0;    // accesses whose time was earlier than the edge the model had reached
    bool started = false;      // the process has run its first activation
    bool clk_watching = false; // clk_hz_changed() waits for changes of clk_hz
    bool driven = false;       // the output ports have been written once
    // Fast mode: RXD as last seen (the engine applies its changes lazily), and the edge the process
    // is to wake at (UINT64_MAX: none planned).
    bool rxd_seen = true;
    std::uint64_t planned = std::numeric_limits<std::uint64_t>::max();
    // The TX line's readers, and the level last reported between characters.
    std::vector<serial_line_if*> readers;
    bool line_level = true;
    const cycle_clock* clock = nullptr;
    static void tx_event(void* self, const detail::tx_line_event& e);
    // The RTL trace's times: each edge's SystemC time in the trace's unit, resolution units times
    // `trace_scale` (the picoseconds of one unit; 1 where the unit is the resolution itself).
    std::uint64_t trace_scale = 1;
    static std::uint64_t trace_time(void* self, std::uint64_t edge) {
        const impl& m = *static_cast<const impl*>(self);
        return static_cast<std::uint64_t>(m.clock->time_of(edge).value()) * m.trace_scale;
    }
    void open_rtl_trace(const std::string& path);

    // The receive line as characters (rx_line()): the changes a sender reported, not yet applied, in
    // time order; the line's level as applied, after the last queued change, and between characters;
    // the rxd pin's level as last seen. RXD is the AND of the pin and the line.
    struct rx_reader final : serial_line_if {
        pl011* owner = nullptr;
        void line_char(const serial_char& c) override;
        void line_level(const sc_time& t, bool level) override;
    };
    rx_reader rx;
    std::deque<std::pair<sc_time, bool>> rx_future;
    bool rx_applied = true, rx_queued = true, rx_between = true;
    bool rx_pin = true;
    // Drops the queued changes from `t` on (a report that cuts a character), then queues one.
    void rx_drop_from(const sc_time& t) {
        while (!rx_future.empty() && rx_future.back().first >= t)
            rx_future.pop_back();
        rx_queued = rx_future.empty() ? rx_applied : rx_future.back().second;
    }
    void rx_queue(const sc_time& t, bool v) {
        if (v == rx_queued) return;
        rx_future.emplace_back(t, v);
        rx_queued = v;
    }
};

// A character on the receive line: its bits' levels at their edges, then the level between
// characters from its end.
void pl011::impl::rx_reader::line_char(const serial_char& c) {
    impl& m = *owner->m_impl;
    m.rx_drop_from(c.start());
    for (unsigned k = 0; k < c.bits && k < 12; ++k)
        m.rx_queue(c.edge[k], c.level(k));
    m.rx_queue(c.end(), m.rx_between);
    owner->rx_reported(c.start());
}

void pl011::impl::rx_reader::line_level(const sc_time& t, bool level) {
    impl& m = *owner->m_impl;
    m.rx_drop_from(t);
    m.rx_queue(t, level);
    m.rx_between = level;
    owner->rx_reported(t);
}

// The trace keeps today's 1 ps timescale where it holds every edge's time exactly (a resolution of
// 1 ps or coarser), else takes the resolution's own (1 fs, say).
void pl011::impl::open_rtl_trace(const std::string& path) {
    const auto units_per_s = static_cast<std::uint64_t>(sc_time(1, SC_SEC).value());
    constexpr std::uint64_t ps_per_s = 1'000'000'000'000;
    std::string timescale = "1ps";
    trace_scale = 1;
    if (units_per_s <= ps_per_s)
        trace_scale = ps_per_s / units_per_s; // resolutions are powers of ten: exact
    else
        timescale = sc_get_time_resolution().to_string(); // "100 fs": Verilator reads it as written
    core.trace_rtl(path, &impl::trace_time, this, timescale);
}

// A character started, or a reset cut one short: to the readers, in time.
void pl011::impl::tx_event(void* self, const detail::tx_line_event& e) {
    impl& m = *static_cast<impl*>(self);
    if (e.kind == detail::tx_line_event::cut) {
        const sc_time t = m.clock->time_of(e.cycle);
        for (serial_line_if* r : m.readers)
            r->line_level(t, true);
        return;
    }
    serial_char c;
    c.bits = e.bits;
    c.levels = e.levels;
    for (unsigned k = 0; k <= e.bits; ++k)
        c.edge[k] = m.clock->time_of(e.bit_edge[k]);
    c.data_bits = 5u + (e.format >> 2);
    c.parity = e.format & 2u;
    c.stop_bits = (e.format & 1u) ? 2u : 1u;
    c.data = static_cast<std::uint8_t>((e.levels >> 1) & ((1u << c.data_bits) - 1));
    for (serial_line_if* r : m.readers)
        r->line_char(c);
}

pl011::pl011(const sc_module_name& name, const pl011_config& cfg)
    : sc_module(name)
    , txdmasreq("txdmasreq")
    , txdmabreq("txdmabreq")
    , rxdmasreq("rxdmasreq")
    , rxdmabreq("rxdmabreq")
    , txdmaclr("txdmaclr")
    , rxdmaclr("rxdmaclr")
    , tx_fifo_level("tx_fifo_level", 0)
    , rx_fifo_level("rx_fifo_level", 0)
    , busy("busy", false)
    , txff("txff", false)
    , txfe("txfe", true)
    , rxff("rxff", false)
    , rxfe("rxfe", true)
    , m_cfg(cfg)
    , m_clock(cfg.clock_hz)
    , m_impl(std::make_unique<impl>(cfg)) {
    m_impl->core.txd_unseen(!cfg.txd_edges);
    m_impl->rx.owner = this;
    m_impl->clock = &m_clock;
    if (!cfg.rtl_vcd.empty()) m_impl->open_rtl_trace(cfg.rtl_vcd);
    register_transport(this, &pl011::b_transport, &pl011::transport_dbg, &pl011::get_direct_mem_ptr);
    SC_HAS_PROCESS(pl011);
    SC_METHOD(run);
    sensitive << m_wake << m_impl->plan << m_impl->input;
    SC_METHOD(inputs_changed); // runs once at the start, then at each change of a bound input
    SC_METHOD(clk_hz_changed); // runs once at the start, then only if clk_hz is bound
    if (!cfg.clock_every_cycle) {
        // RXD changes go to the engine as they come, without a wake of the model's process.
        SC_METHOD(rxd_changed);
        sensitive << rxd;
        dont_initialize();
    }
}

pl011::~pl011() = default;

std::uint64_t pl011::cycle() const {
    return m_impl->core.cycle();
}
std::uint64_t pl011::edges_evaluated() const {
    return m_impl->core.edges_evaluated();
}
double pl011::rtl_eval_seconds() const {
    return m_impl->core.eval_seconds();
}
std::uint64_t pl011::wakes() const {
    return m_impl->wakes;
}
std::uint64_t pl011::idle_wakes() const {
    return m_impl->idle_wakes;
}
std::uint64_t pl011::rtl_evals() const {
    return m_impl->core.evals();
}
std::uint64_t pl011::late_accesses() const {
    return m_impl->late;
}
void pl011::close_rtl_trace() {
    m_impl->core.close_rtl_trace();
}

void pl011::report_line(serial_line_if& reader) {
    m_impl->readers.push_back(&reader);
    m_impl->core.on_tx_line(&impl::tx_event, m_impl.get());
}

serial_line_if& pl011::rx_line() {
    return m_impl->rx;
}

// A report on the receive line, about times from `from` on: a change at the present applies at once;
// the promises given before it did not know of it; the process wakes earlier if the character may
// change an output before the wake planned.
void pl011::rx_reported(const sc_time& from) {
    impl& m = *m_impl;
    const sc_time now = sc_time_stamp();
    if (from < now)
        SC_REPORT_ERROR(kind(),
                        (std::string(name()) + ": rx_line: a report for a time already past").c_str());
    if (!m.started) return; // the first activation takes the line as it stands
    if (m_cfg.clock_every_cycle) {
        // The reference takes each change at its time, as the pin's.
        m_wake.notify(m.rx_future.empty() || m.rx_future.front().first <= now
                          ? SC_ZERO_TIME
                          : m.rx_future.front().first - now);
        m.breaker.fire(false, UINT_MAX);
        return;
    }
    release_rx(now);
    m.breaker.fire(false, UINT_MAX);
    const std::uint64_t next = next_wake();
    if (next < m.planned) {
        m.planned = next;
        const sc_time at = m_clock.time_of(next);
        m_wake.notify(at > now ? at - now : SC_ZERO_TIME);
    }
}

// The receive line's changes up to the present, as the pin's would have been applied at their times:
// seen by the edges after the change's time, or after the last edge an access took ahead of it
// (nothing moved the model between a change's time and now: every such move applies them first).
void pl011::release_rx(const sc_time& now) {
    impl& m = *m_impl;
    while (!m.rx_future.empty() && m.rx_future.front().first <= now) {
        const auto [t, v] = m.rx_future.front();
        m.rx_future.pop_front();
        m.rx_applied = v;
        if (m_cfg.clock_every_cycle) continue; // sample_inputs() reads it
        const bool level = m.rx_pin && v;
        if (level == m.rxd_seen) continue;
        m.rxd_seen = level;
        detail::pl011_core& core = m.core;
        core.rxd_change(std::max(m_clock.edge_at_or_before(t), core.cycle()), level);
    }
}

// The edge the process is to wake at: where an output can change, counting the receive line's first
// falling change not yet applied as a start bit (planned as if loaded now, which only makes it early).
std::uint64_t pl011::next_wake() const {
    const impl& m = *m_impl;
    std::uint64_t load = std::numeric_limits<std::uint64_t>::max();
    if (m.rx_pin)
        for (const auto& [t, v] : m.rx_future)
            if (!v) {
                load = std::max(m_clock.edge_at_or_before(t), m.core.cycle()) + 2;
                break;
            }
    return m.core.next_event_cycle(load);
}

void pl011::start_of_simulation() {
    if (bus.size() == 0 && bus64.size() == 0)
        SC_REPORT_ERROR(kind(), (std::string(name()) + ": neither bus nor bus64 is bound").c_str());
    // Ports are bound by now: wake on the inputs that are connected.
    sc_event_or_list& l = m_impl->inputs;
    if (m_cfg.clock_every_cycle) l |= rxd.value_changed_event();
    for (optional_in* p : {&nreset, &rst, &ncts, &ndsr, &ndcd, &nri, &txdmaclr, &rxdmaclr})
        if (p->size()) l |= (*p)->value_changed_event();
    if (clk_hz.size()) apply_clk_hz(*this, clk_hz->read()); // the clock tree's frequency from time 0
}

// A bound input changed: the process runs in this same delta cycle (an immediate notification), as it
// did when it waited for the input's event itself.
void pl011::inputs_changed() {
    impl& m = *m_impl;
    if (m.inputs.size() == 0) return; // nothing bound: not woken again
    if (m.inputs_watched) m.input.notify();
    m.inputs_watched = true;
    next_trigger(m.inputs);
}

void pl011::clk_hz_changed() {
    detail::follow_clk_hz(*this, clk_hz, m_impl->clk_watching);
}

void pl011::set_clock_hz(std::uint64_t hz) {
    detail::pl011_core& core = m_impl->core;
    const sc_time now = sc_time_stamp();
    // Before the first edge the whole clock changes; later, from the edge after the present and after
    // every edge already taken (theirs are decided).
    const std::uint64_t from = !m_impl->started && now == SC_ZERO_TIME && core.cycle() == 0
                                   ? 0
                                   : std::max(core.cycle(), m_clock.edge_at_or_before(now)) + 1;
    m_clock.set_hz(from, hz);
    if (m_impl->started) {
        m_impl->breaker.fire(false, UINT_MAX); // promised times were at the old rate
        m_wake.notify(SC_ZERO_TIME);           // the process plans its next wake anew
    }
}

void pl011::reset() {
    // nRESET low over one UARTCLK edge, the edge after the present (or after the edges already taken).
    detail::pl011_core& core = m_impl->core;
    detail::pl011_inputs& in = core.inputs();
    const sc_time now = sc_time_stamp();
    sample_inputs(now);
    const std::uint64_t present = m_clock.edge_at_or_before(now);
    core.catch_up(present);
    const std::uint64_t at = std::max(core.cycle(), present) + 1;
    const bool level = in.rst_n;
    in.rst_n = false;
    core.settle();
    core.catch_up(at);
    in.rst_n = level;
    core.settle();
    m_impl->ahead.emplace_back(at, core.out());
    m_impl->breaker.fire(false, UINT_MAX);
    m_wake.notify(m_clock.time_of(at) - now);
}

void pl011::sample_inputs(const sc_time& now) {
    detail::pl011_inputs& in = m_impl->core.inputs();
    if (!m_impl->rx_future.empty()) release_rx(now);
    // In fast mode RXD goes its own way (note_rxd): the engine holds and loads it.
    const bool rxd_here = m_cfg.clock_every_cycle;
    const bool v_rst = read_or(nreset, true) && !read_or(rst, false),
               v_rxd = rxd_here ? rxd.read() && m_impl->rx_applied : in.rxd, v_cts = read_or(ncts, true),
               v_dsr = read_or(ndsr, true), v_dcd = read_or(ndcd, true), v_ri = read_or(nri, true),
               v_txclr = read_or(txdmaclr, false), v_rxclr = read_or(rxdmaclr, false);
    if (v_rst == in.rst_n && v_rxd == in.rxd && v_cts == in.ncts && v_dsr == in.ndsr && v_dcd == in.ndcd &&
        v_ri == in.nri && v_txclr == in.txdmaclr && v_rxclr == in.rxdmaclr)
        return;
    // An input that changes at time t is seen by the edges after t; the edges up to t saw the old value.
    m_impl->core.catch_up(m_clock.edge_at_or_before(now));
    in.rst_n = v_rst;
    if (rxd_here) in.rxd = v_rxd;
    in.ncts = v_cts;
    in.ndsr = v_dsr;
    in.ndcd = v_dcd;
    in.nri = v_ri;
    in.txdmaclr = v_txclr;
    in.rxdmaclr = v_rxclr;
    m_impl->core.settle();
    m_impl->breaker.fire(false, UINT_MAX);
}

void pl011::rxd_changed() {
    ++m_impl->wakes;
    ++m_impl->idle_wakes; // it shows nothing
    note_rxd();
}

// An RXD change, as sample_inputs() would apply it (seen by the edges after the present, or after the
// last edge taken ahead), handed to the engine to apply when it next catches up. The process wakes
// earlier than planned only where the change may start a character.
void pl011::note_rxd() {
    const sc_time now = sc_time_stamp();
    release_rx(now);
    m_impl->rx_pin = rxd.read();
    const bool v = m_impl->rx_pin && m_impl->rx_applied;
    if (v == m_impl->rxd_seen) return;
    m_impl->rxd_seen = v;
    detail::pl011_core& core = m_impl->core;
    core.rxd_change(std::max(m_clock.edge_at_or_before(now), core.cycle()), v);
    m_impl->breaker.fire(false, UINT_MAX);
    const std::uint64_t next = next_wake();
    if (next < m_impl->planned) {
        m_impl->planned = next;
        const sc_time at = m_clock.time_of(next);
        m_wake.notify(at > now ? at - now : SC_ZERO_TIME);
    }
}

namespace {
bool same_pins(const detail::pl011_outputs& a, const detail::pl011_outputs& b) {
    return a.txd == b.txd && a.intr == b.intr && a.nrts == b.nrts && a.ndtr == b.ndtr && a.nout1 == b.nout1 &&
           a.nout2 == b.nout2 && a.txdmasreq == b.txdmasreq && a.txdmabreq == b.txdmabreq &&
           a.rxdmasreq == b.rxdmasreq && a.rxdmabreq == b.rxdmabreq && a.tx_level == b.tx_level &&
           a.rx_level == b.rx_level && (a.flags & 0xF8) == (b.flags & 0xF8);
}
} // namespace

bool pl011::drive_outputs(const detail::pl011_outputs& out) {
    // Without TXD edges the pin shows the line between characters only; a character goes to the
    // readers as it starts.
    detail::pl011_outputs o = out;
    if (!m_cfg.txd_edges && o.tx_in_char) o.txd = true;
    const bool level = o.tx_in_char || o.txd;
    if (level != m_impl->line_level) {
        m_impl->line_level = level;
        for (serial_line_if* r : m_impl->readers)
            r->line_level(sc_time_stamp(), level);
    }
    const detail::pl011_outputs& s = m_impl->shown;
    const bool changed = !same_pins(o, s);
    // Only what differs from what the ports were last driven with (every port on the first drive):
    // the same as writing them all, without a channel call per unchanged port.
    const bool all = !m_impl->driven;
    m_impl->driven = true;
    if (all || o.txd != s.txd) txd.write(o.txd);
    if (all || o.intr != s.intr) irq.write(o.intr);
    if (all || o.nrts != s.nrts) write_if_bound(nrts, o.nrts);
    if (all || o.ndtr != s.ndtr) write_if_bound(ndtr, o.ndtr);
    if (all || o.nout1 != s.nout1) write_if_bound(nout1, o.nout1);
    if (all || o.nout2 != s.nout2) write_if_bound(nout2, o.nout2);
    if (all || o.txdmasreq != s.txdmasreq) write_if_bound(txdmasreq, o.txdmasreq);
    if (all || o.txdmabreq != s.txdmabreq) write_if_bound(txdmabreq, o.txdmabreq);
    if (all || o.rxdmasreq != s.rxdmasreq) write_if_bound(rxdmasreq, o.rxdmasreq);
    if (all || o.rxdmabreq != s.rxdmabreq) write_if_bound(rxdmabreq, o.rxdmabreq);
    if (all || o.tx_level != s.tx_level) tx_fifo_level.write(o.tx_level);
    if (all || o.rx_level != s.rx_level) rx_fifo_level.write(o.rx_level);
    // Each flag alone: a character's start or end moves one or two of them.
    const unsigned flips = all ? 0xF8u : (o.flags ^ s.flags) & 0xF8u;
    if (flips & 0x08) busy.write(o.flags & 0x08);
    if (flips & 0x10) rxfe.write(o.flags & 0x10);
    if (flips & 0x20) txff.write(o.flags & 0x20);
    if (flips & 0x40) rxff.write(o.flags & 0x40);
    if (flips & 0x80) txfe.write(o.flags & 0x80);
    m_impl->shown = o;
    return changed;
}

// The model's own process, a method: woken at the next edge at which an output can change, at an
// access edge taken ahead of its time, or by an input change; it shows the outputs of the present.
void pl011::run() {
    detail::pl011_core& core = m_impl->core;
    auto& ahead = m_impl->ahead;
    const sc_time now = sc_time_stamp();
    const bool first = !m_impl->started;
    m_impl->started = true;
    if (first) {
        m_impl->shown = core.out();
        if (!m_cfg.txd_edges && m_impl->shown.tx_in_char) m_impl->shown.txd = true;
    } else
        ++m_impl->wakes;
    sample_inputs(now);
    if (first && !m_cfg.clock_every_cycle) note_rxd(); // RXD as it starts
    core.catch_up(m_clock.edge_at_or_before(now));
    std::optional<detail::pl011_outputs> due;
    while (!ahead.empty() && m_clock.time_of(ahead.front().first) <= now) {
        due = ahead.front().second;
        ahead.pop_front();
    }
    std::uint64_t next;
    bool changed = false;
    if (!ahead.empty()) {
        if (due) changed = drive_outputs(*due);
        next = ahead.front().first; // a later access edge, already computed: show it then
    } else {
        changed = drive_outputs(core.out());
        next = m_cfg.clock_every_cycle ? core.next_event_cycle() : next_wake();
    }
    if (m_cfg.clock_every_cycle && !m_impl->rx_future.empty()) // the reference takes each change at its time
        m_wake.notify(m_impl->rx_future.front().first - now);
    if (!changed && !first) ++m_impl->idle_wakes;
    m_impl->planned = next;
    m_impl->plan.cancel();
    if (next != std::numeric_limits<std::uint64_t>::max()) m_impl->plan.notify(m_clock.time_of(next) - now);
}

void pl011::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    detail::word_access a;
    detail::transport_in_order(
        m_impl->order, m_cfg.loosely_timed, tx, delay,
        [&] { return detail::decode_word_access(tx, map_size(), a); },
        [&](unsigned who, const sc_time& local) { serve(tx, a, delay, who, local); },
        [&](const sc_time& local) { return serves_ahead(local); });
}

// An access issued ahead of SystemC time, with nothing for SystemC to do until its time, is served at
// once: the inputs are those of its time, no output changes before it (the process would be due), and
// no queued RXD change comes before it (those are applied at the next catch-up, not by a process).
bool pl011::serves_ahead(const sc_time& local) const {
    return !m_cfg.clock_every_cycle && m_impl->started &&
           (m_impl->rx_future.empty() || m_impl->rx_future.front().first > local);
}

// Loosely timed: the model runs ahead of SystemC time to an access's local time. The outputs of the
// edges it passes on the way go to `ahead`, for the process to show each at its edge's time.
void pl011::run_ahead(std::uint64_t target) {
    detail::pl011_core& core = m_impl->core;
    while (core.cycle() < target) {
        const std::uint64_t next = core.next_event_cycle();
        if (next > target) break;
        core.catch_up(next);
        note_ahead(next);
    }
    core.catch_up(target);
}

// Loosely timed: keeps the model's present outputs for the process to show at edge `at`, if they differ
// from the last kept (or shown). Kept even at the present time: the initiator may run the model further
// ahead before the process runs.
void pl011::note_ahead(std::uint64_t at) {
    auto& ahead = m_impl->ahead;
    const detail::pl011_outputs& o = m_impl->core.out();
    if (same_pins(ahead.empty() ? m_impl->shown : ahead.back().second, o)) return;
    ahead.emplace_back(at, o);
    const sc_time t = m_clock.time_of(at), now = sc_time_stamp();
    m_wake.notify(t > now ? t - now : SC_ZERO_TIME);
}

// One access at the present time. It lands on the first UARTCLK edge after the edges already taken
// (the first after its issue, unless another access took that one) and sees the state before it. An
// access with a side effect (a write, a DR read) takes that edge; a read without one only looks.
// `local` is the access's time: the present in synchronising mode, the initiator's local time (at or
// after the present) when loosely timed.
void pl011::serve(tlm::tlm_generic_payload& tx, const detail::word_access& a, sc_time& delay, unsigned who,
                  const sc_time& local) {
    detail::pl011_core& core = m_impl->core;
    const sc_time now = sc_time_stamp();
    const bool lt = m_cfg.loosely_timed;
    if (!m_cfg.clock_every_cycle && !m_impl->rx_future.empty())
        release_rx(now);                               // before anything moves the model
    if (lt) run_ahead(m_clock.edge_at_or_before(now)); // what happens up to the present, kept to be shown
    // Synchronising, an access is served with nothing left to run at its time: the process, woken by
    // every input change, has taken them all (it samples first). Loosely timed, it may not have yet.
    if (lt || !m_impl->started) sample_inputs(now);
    if (lt) note_ahead(core.cycle());
    const std::uint64_t present = m_clock.edge_at_or_before(local);
    const bool side_effect = a.write || a.word == 0; // a DR read pops the RX FIFO and clears errors
    if (local < m_clock.time_of(core.cycle())) ++m_impl->late;
    // A read without side effects sees the registers as they are at the present edge. While nothing but
    // counters changes before it, the model answers as it stands, without catching up (in fast mode).
    if (side_effect || m_cfg.clock_every_cycle || core.read_needs_catch_up(present)) {
        if (lt)
            run_ahead(present);
        else
            core.catch_up(present);
    }
    const std::uint64_t at = std::max(core.cycle(), present) + 1;
    if (a.strb == 0) {
        // No byte lane enabled: nothing is read or written, no state changes.
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        delay = m_clock.time_of(at) - now;
        return;
    }
    std::uint32_t data = a.write ? detail::lanes_from_payload(tx, a) : 0;
    detail::bus_result r;
    read_promise* promise = nullptr;
    if (side_effect) {
        r = core.access(at, a.write, static_cast<std::uint16_t>(a.word), a.strb, data);
    } else {
        r = core.peek(static_cast<std::uint16_t>(a.word), data);
        if (!m_cfg.loosely_timed) tx.get_extension(promise); // its end would be a SystemC time
    }
    if (r != detail::bus_result::ok) {
        tx.set_response_status(r == detail::bus_result::address_error ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                      : tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (!a.write) detail::lanes_to_payload(tx, a, data);
    if (side_effect) {
        m_impl->ahead.emplace_back(at, core.out());
        m_impl->breaker.fire_at(lt ? now : local, true, who);
        m_wake.notify(m_clock.time_of(at) - now); // the process shows the edge at its time
    } else if (promise) {
        // The value holds until the next edge at which a register may change by itself; FR bits that
        // a loop names (as they lie in the payload: an access from the register's first byte) may
        // hold longer.
        const std::uint64_t whole = core.next_register_change(present);
        std::uint64_t stable_until = whole;
        promise->held = 0;
        if (promise->mask != 0 && a.word == detail::pl011_core::fr_word && a.lane == 0) {
            stable_until = core.next_fr_change(present, promise->mask);
            if (stable_until > whole) promise->held = promise->mask;
        }
        m_impl->breaker.promise(*promise, who);
        promise->until = stable_until == std::numeric_limits<std::uint64_t>::max()
                             ? sc_max_time()
                             : m_clock.time_of(stable_until);
        // Or until the receive line's next change: the pin's would break it there.
        if (!m_impl->rx_future.empty() && m_impl->rx_future.front().first < promise->until)
            promise->until = m_impl->rx_future.front().first;
        // A read completes at the first UARTCLK edge after its issue: at most one period (plus the
        // rounding of edge times) later.
        promise->latency = sc_time::from_value(m_clock.period().value() + 1);
    }
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
    delay = m_clock.time_of(at) - now; // it completes at its edge
}

bool pl011::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    // Refused over the whole register window: every register access may have a side effect.
    dmi.set_start_address(0);
    dmi.set_end_address(map_size() - 1);
    dmi.allow_read_write();
    return false;
}

unsigned pl011::transport_dbg(tlm::tlm_generic_payload& tx) {
    // Reads only, and without side effects: no access edge is taken (reading DR does not pop the
    // FIFO) and no output moves. The model may lag behind the present where no output changed (a
    // masked RT interrupt, say): it is brought up to now first, which is what it would be anyway.
    detail::word_access a;
    if (!tx.is_read() || detail::decode_word_access(tx, map_size(), a) != tlm::TLM_OK_RESPONSE) return 0;
    detail::pl011_core& core = m_impl->core;
    if (!m_cfg.clock_every_cycle) release_rx(sc_time_stamp());
    core.catch_up(m_clock.edge_at_or_before(sc_time_stamp()));
    std::uint32_t data = 0;
    if (core.peek(static_cast<std::uint16_t>(a.word), data) != detail::bus_result::ok) return 0;
    detail::lanes_to_payload(tx, a, data);
    return a.length;
}

void pl011::trace(sc_trace_file* tf) const {
    sc_trace(tf, *this, name()); // src/uart_trace.cpp
}

} // namespace uartvp
