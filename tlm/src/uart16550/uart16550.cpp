// SPDX-License-Identifier: Apache-2.0
#include <uartvp/uart16550.h>

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <uartvp/initiator_id.h>
#include <uartvp/read_promise.h>

#include "bus/access_order.h"
#include "bus/port_access.h"
#include "uart16550/uart16550_core.h"

namespace uartvp {

using detail::apply_clk_hz;
using detail::read_or;
using detail::write_if_bound;

using namespace sc_core;

struct uart16550::impl {
    impl(const uart16550_config& cfg, const cycle_clock& clk)
        : core(cfg, clk)
        , scratch(cfg, clk) {}
    detail::uart16550_core core;
    // Run forward to find a promise's end; kept to reuse its storage.
    detail::uart16550_core scratch;
    // The last promise made: while nothing breaks it, a later read of that register before its end
    // reads the same value and gets the same end (the state runs on deterministically).
    struct {
        bool valid = false;
        unsigned idx = 0;
        std::uint8_t mask = 0; // the bits named (0: all)
        std::uint8_t held = 0; // the bits promised (0: all)
        std::uint64_t breaks = 0;
        sc_time until;
    } last_promise;
    sc_event_or_list wake_on;
    detail::promise_breaker breaker; // accesses with side effects, input changes, reset
    detail::access_order order;
    // The TX line's readers (report_line), each told what the core reports.
    struct fanout : serial_line_if {
        std::vector<serial_line_if*> readers;
        void line_char(const serial_char& c) override {
            for (serial_line_if* r : readers)
                r->line_char(c);
        }
        void line_level(const sc_time& t, bool level) override {
            for (serial_line_if* r : readers)
                r->line_level(t, level);
        }
    } line_readers;
    bool rxd = true, reset = false;
    std::uint8_t modem = 0;
    struct shown_outputs {
        bool txd = true, irq = false, ndtr = true, nrts = true, nout1 = true, nout2 = true;
        unsigned tx_level = 0, rx_level = 0;
        bool thre = true, temt = true, dr = false, fifo_enabled = false;
    };
    shown_outputs shown; // what the ports were last driven with
    bool driven = false; // the ports have been written once
    // Loosely timed: the outputs of the times the model ran ahead to, for the process to show each at
    // its time; the back one is the model's present state.
    std::deque<std::pair<sc_time, shown_outputs>> ahead;
    shown_outputs show;        // what drive_outputs() drives
    std::uint64_t late = 0;    // accesses whose time was earlier than the model's
    bool clk_watching = false; // clk_hz_changed() waits for changes of clk_hz
    static shown_outputs outputs_of(const detail::uart16550_core& c) {
        shown_outputs o;
        o.txd = c.txd_pin();
        o.irq = c.irq_pin();
        o.ndtr = !c.out_active(0x01);
        o.nrts = !c.out_active(0x02);
        o.nout1 = !c.out_active(0x04);
        o.nout2 = !c.out_active(0x08);
        o.tx_level = c.tx_level();
        o.rx_level = c.rx_level();
        o.thre = c.thre();
        o.temt = c.temt();
        o.dr = c.data_ready();
        o.fifo_enabled = c.fifo_enabled();
        return o;
    }
    static bool same_outputs(const shown_outputs& a, const shown_outputs& b) {
        return a.txd == b.txd && a.irq == b.irq && a.ndtr == b.ndtr && a.nrts == b.nrts &&
               a.nout1 == b.nout1 && a.nout2 == b.nout2 && a.tx_level == b.tx_level &&
               a.rx_level == b.rx_level && a.thre == b.thre && a.temt == b.temt && a.dr == b.dr &&
               a.fifo_enabled == b.fifo_enabled;
    }
};

namespace {
const uart16550_config& checked(const uart16550_config& cfg) {
    if (cfg.reg_shift > 2) throw std::invalid_argument("uart16550: reg_shift must be 0, 1 or 2");
    if ((cfg.reg_io_width != 1 && cfg.reg_io_width != 2 && cfg.reg_io_width != 4) ||
        cfg.reg_io_width > (1u << cfg.reg_shift))
        throw std::invalid_argument("uart16550: reg_io_width must be 1, 2 or 4 and fit the register stride");
    if (cfg.part == uart16550_part::bcm2835_mini && (cfg.thre_delay != SC_ZERO_TIME || cfg.out2_gates_irq))
        throw std::invalid_argument("uart16550: the BCM2835 mini UART has neither a late THRE nor OUT2");
    return cfg;
}
} // namespace

uart16550::uart16550(const sc_module_name& name, const uart16550_config& cfg)
    : sc_module(name)
    , tx_fifo_level("tx_fifo_level", 0)
    , rx_fifo_level("rx_fifo_level", 0)
    , thre("thre", true)
    , temt("temt", true)
    , dr("dr", false)
    , fifo_enabled("fifo_enabled", false)
    , m_cfg(checked(cfg))
    , m_clock(cfg.clock_hz)
    , m_impl(std::make_unique<impl>(m_cfg, m_clock)) {
    register_transport(this, &uart16550::b_transport, &uart16550::transport_dbg,
                       &uart16550::get_direct_mem_ptr);
    SC_HAS_PROCESS(uart16550);
    SC_METHOD(run);
    SC_METHOD(clk_hz_changed); // runs once at the start, then only if clk_hz is bound
}

uart16550::~uart16550() = default;

std::uint64_t uart16550::tx_lost() const {
    return m_impl->core.tx_lost();
}
std::uint64_t uart16550::rx_overruns() const {
    return m_impl->core.rx_overruns();
}
std::uint64_t uart16550::late_accesses() const {
    return m_impl->late;
}

void uart16550::report_line(serial_line_if& reader) {
    m_impl->line_readers.readers.push_back(&reader);
    m_impl->core.report_line_to(&m_impl->line_readers);
}

void uart16550::start_of_simulation() {
    if (bus.size() == 0 && bus64.size() == 0)
        SC_REPORT_ERROR(kind(), (std::string(name()) + ": neither bus nor bus64 is bound").c_str());
    sc_event_or_list& l = m_impl->wake_on;
    l |= m_wake;
    l |= rxd.value_changed_event();
    for (optional_in* p : {&nreset, &rst, &ncts, &ndsr, &ndcd, &nri})
        if (p->size()) l |= (*p)->value_changed_event();
    if (clk_hz.size()) apply_clk_hz(*this, clk_hz->read()); // the clock tree's frequency from time 0
}

void uart16550::clk_hz_changed() {
    detail::follow_clk_hz(*this, clk_hz, m_impl->clk_watching);
}

void uart16550::set_clock_hz(std::uint64_t hz) {
    impl& m = *m_impl;
    const sc_time now = sc_time_stamp();
    m.core.advance(now); // what happened up to now, at the old rate
    // Before anything happened the whole clock changes; later, from the XIN edge after the present
    // (or after the model's own time, when it ran ahead).
    const std::uint64_t from = now == SC_ZERO_TIME && m.core.now() == SC_ZERO_TIME && !m.driven
                                   ? 0
                                   : m_clock.edge_at_or_before(std::max(now, m.core.now())) + 1;
    m_clock.set_hz(from, hz);
    m.core.set_clock(m_clock);
    m.scratch.set_clock(m_clock);
    m.last_promise.valid = false;
    if (m.driven) {
        m.breaker.fire(false, UINT_MAX); // promised times were at the old rate
        m_wake.notify(SC_ZERO_TIME);     // the process plans its next wake anew
    }
}

void uart16550::reset() {
    // A pulse on MR at the present time: the reset state, then the inputs' own levels again.
    impl& m = *m_impl;
    sample_inputs();
    m.core.advance(sc_time_stamp());
    m.core.set_reset(true);
    m.core.set_reset(m.reset);
    m.breaker.fire(false, UINT_MAX);
    m_wake.notify(SC_ZERO_TIME);
}

void uart16550::sample_inputs() {
    impl& m = *m_impl;
    const bool v_rxd = rxd.read(), v_rst = !read_or(nreset, true) || read_or(rst, false);
    const std::uint8_t v_modem = std::uint8_t(!read_or(ncts, true) | !read_or(ndsr, true) << 1 |
                                              !read_or(nri, true) << 2 | !read_or(ndcd, true) << 3);
    if (v_rxd == m.rxd && v_rst == m.reset && v_modem == m.modem) return;
    // An input that changes at t is seen by what happens after t.
    m.core.advance(sc_time_stamp());
    if (v_rst != m.reset) m.core.set_reset(v_rst);
    if (v_modem != m.modem) m.core.set_modem(v_modem & 1, v_modem & 2, v_modem & 4, v_modem & 8);
    if (v_rxd != m.rxd) m.core.set_rxd(v_rxd);
    m.rxd = v_rxd;
    m.reset = v_rst;
    m.modem = v_modem;
    m.breaker.fire(false, UINT_MAX);
}

void uart16550::drive_outputs() {
    // Only what differs from what the ports were last driven with (every port on the first drive):
    // the same as writing them all, without a channel call per unchanged port.
    const impl::shown_outputs& o = m_impl->show;
    impl::shown_outputs& s = m_impl->shown;
    const bool all = !m_impl->driven;
    m_impl->driven = true;
    if (all || o.txd != s.txd) txd.write(o.txd);
    if (all || o.irq != s.irq) irq.write(o.irq);
    if (all || o.ndtr != s.ndtr) write_if_bound(ndtr, o.ndtr);
    if (all || o.nrts != s.nrts) write_if_bound(nrts, o.nrts);
    if (all || o.nout1 != s.nout1) write_if_bound(nout1, o.nout1);
    if (all || o.nout2 != s.nout2) write_if_bound(nout2, o.nout2);
    if (all || o.tx_level != s.tx_level) tx_fifo_level.write(o.tx_level);
    if (all || o.rx_level != s.rx_level) rx_fifo_level.write(o.rx_level);
    if (all || o.thre != s.thre) thre.write(o.thre);
    if (all || o.temt != s.temt) temt.write(o.temt);
    if (all || o.dr != s.dr) dr.write(o.dr);
    if (all || o.fifo_enabled != s.fifo_enabled) fifo_enabled.write(o.fifo_enabled);
    s = o;
}

// A method (a next_trigger costs well under half a thread's wait): woken at the model's next event or
// by an input change or an access that changed the state; it shows the outputs of the present.
void uart16550::run() {
    detail::uart16550_core& core = m_impl->core;
    const sc_time now = sc_time_stamp();
    sample_inputs();
    core.advance(now);
    auto& ahead = m_impl->ahead;
    bool due = false;
    while (!ahead.empty() && ahead.front().first <= now) {
        m_impl->show = ahead.front().second;
        due = true;
        ahead.pop_front();
    }
    sc_time next;
    if (!ahead.empty()) {
        if (due) drive_outputs();
        next = ahead.front().first; // a later time the model already ran to: show it then
    } else {
        m_impl->show = impl::outputs_of(core);
        drive_outputs();
        next = core.next_event();
    }
    if (next == sc_max_time())
        next_trigger(m_impl->wake_on);
    else
        next_trigger(next - now, m_impl->wake_on);
}

// Loosely timed: the model runs ahead of SystemC time to an access's local time, keeping the outputs
// of the events it passes for the process to show at their times.
void uart16550::run_ahead(const sc_time& t) {
    detail::uart16550_core& core = m_impl->core;
    for (;;) {
        const sc_time e = core.next_event();
        if (e > t || e == sc_max_time()) break;
        core.advance(e);
        note_ahead();
    }
    core.advance(t);
}

// Loosely timed: keeps the model's present outputs for the process to show at the model's time, if they
// differ from the last kept (or shown). Kept even at the present time: the initiator may run the model
// further ahead before the process runs.
void uart16550::note_ahead() {
    const detail::uart16550_core& core = m_impl->core;
    auto& ahead = m_impl->ahead;
    const impl::shown_outputs o = impl::outputs_of(core);
    if (impl::same_outputs(ahead.empty() ? m_impl->shown : ahead.back().second, o)) return;
    ahead.emplace_back(core.now(), o);
    const sc_time now = sc_time_stamp();
    m_wake.notify(core.now() > now ? core.now() - now : SC_ZERO_TIME);
}

namespace {
// Register index of an access, or the error response it deserves. Served: 1 byte, or the configured
// width, at a register's offset; the register is the low byte (lane 0) of a wider access.
tlm::tlm_response_status decode(const tlm::tlm_generic_payload& tx, const uart16550_config& cfg,
                                unsigned& idx, bool& lane0) {
    const std::uint64_t addr = tx.get_address();
    const unsigned len = tx.get_data_length();
    if ((len != 1 && len != cfg.reg_io_width) || tx.get_streaming_width() < len)
        return tlm::TLM_BURST_ERROR_RESPONSE;
    if (addr >= (std::uint64_t{8} << cfg.reg_shift) || addr % (1u << cfg.reg_shift) != 0)
        return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    const unsigned char* be = tx.get_byte_enable_ptr();
    if (be && tx.get_byte_enable_length() == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    idx = static_cast<unsigned>(addr >> cfg.reg_shift);
    lane0 = !be || be[0] == TLM_BYTE_ENABLED;
    return tlm::TLM_OK_RESPONSE;
}
void to_payload(tlm::tlm_generic_payload& tx, std::uint8_t v) {
    const unsigned char* be = tx.get_byte_enable_ptr();
    for (unsigned i = 0; i < tx.get_data_length(); ++i)
        if (!be || be[i % tx.get_byte_enable_length()] == TLM_BYTE_ENABLED)
            tx.get_data_ptr()[i] = i == 0 ? v : 0; // upper lanes of a wide access read 0
}
} // namespace

void uart16550::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    unsigned idx = 0;
    bool lane0 = true;
    detail::transport_in_order(
        m_impl->order, m_cfg.loosely_timed, tx, delay, [&] { return decode(tx, m_cfg, idx, lane0); },
        [&](unsigned who, const sc_time& local) { serve(tx, idx, lane0, who, local, delay); });
}

// One access at `local`: the present in synchronising mode, the initiator's local time (at or after
// the present) when loosely timed. It is applied at the later of that and the model's own time.
void uart16550::serve(tlm::tlm_generic_payload& tx, unsigned idx, bool lane0, unsigned who,
                      const sc_time& local, sc_time& delay) {
    detail::uart16550_core& core = m_impl->core;
    const sc_time now = sc_time_stamp();
    const bool lt = m_cfg.loosely_timed;
    if (lt) run_ahead(now); // what happens up to the present, kept to be shown
    sample_inputs();
    if (lt) note_ahead();
    if (local < core.now()) ++m_impl->late;
    if (lt)
        run_ahead(local);
    else
        core.advance(local);
    const sc_time at = core.now();
    if (at > now) delay = at - now; // the access's time, as the initiator's local time
    bool changed = true;
    if (tx.is_write()) {
        if (lane0) {
            core.write(idx, tx.get_data_ptr()[0]);
            m_impl->breaker.fire(true, who);
        }
    } else if (lane0 && core.read_has_side_effect(idx)) {
        to_payload(tx, core.read(idx));
        m_impl->breaker.fire(true, who); // an RBR pop, or LSR/MSR/IIR bits cleared by the read
    } else {
        read_promise* promise = nullptr;
        if (!m_cfg.loosely_timed) tx.get_extension(promise); // its end would be a SystemC time
        if (promise && lane0) {
            auto& last = m_impl->last_promise;
            // Bits a loop names (LSR's THRE and TEMT, say) may hold past a change of the others: the
            // copy runs on to their change, and the promise names them where that comes later.
            const std::uint8_t mask = static_cast<std::uint8_t>(promise->mask);
            if (!(last.valid && last.idx == idx && last.mask == mask &&
                  last.breaks == m_impl->breaker.count && now < last.until)) {
                sc_time whole;
                last.until = core.stable_until(idx, m_impl->scratch, mask, &whole);
                last.held = mask && last.until > whole ? mask : 0;
                last.idx = idx;
                last.mask = mask;
                last.breaks = m_impl->breaker.count;
                last.valid = true;
            }
            m_impl->breaker.promise(*promise, who);
            promise->until = last.until;
            promise->held = last.held;
        }
        to_payload(tx, core.peek(idx));
        changed = false; // a read without side effects changed nothing the process shows: no wake
    }
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
    if (!changed) return;
    if (lt)
        note_ahead(); // the process shows the access's outputs at its time
    else
        m_wake.notify(SC_ZERO_TIME);
}

bool uart16550::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    // Refused over the whole register window: register accesses have side effects.
    dmi.set_start_address(0);
    dmi.set_end_address(map_size() - 1);
    dmi.allow_read_write();
    return false;
}

unsigned uart16550::transport_dbg(tlm::tlm_generic_payload& tx) {
    // Reads only, and without side effects: a copy of the state answers.
    unsigned idx = 0;
    bool lane0 = true;
    if (!tx.is_read() || decode(tx, m_cfg, idx, lane0) != tlm::TLM_OK_RESPONSE) return 0;
    detail::uart16550_core c = m_impl->core;
    c.advance(sc_time_stamp());
    to_payload(tx, c.peek(idx));
    return tx.get_data_length();
}

void uart16550::trace(sc_trace_file* tf) const {
    sc_trace(tf, *this, name()); // src/uart_trace.cpp
}

} // namespace uartvp
