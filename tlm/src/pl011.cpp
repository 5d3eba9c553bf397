#include <uartvp/pl011.h>

#include <limits>
#include <optional>
#include <stdexcept>

#include <uartvp/read_promise.h>

#include "pl011_core.h"
#include "tlm_access.h"

namespace uartvp {

using namespace sc_core;

struct pl011::impl {
    impl(const pl011_config& cfg)
        : core(cfg.fifo_depth, cfg.clock_every_cycle) {
        core.measure_eval_time(cfg.measure_eval_time);
        if (!cfg.rtl_vcd.empty()) core.trace_rtl(cfg.rtl_vcd, cfg.uartclk_hz);
    }
    detail::pl011_core core;
    sc_event_or_list wake_on;
    // Outputs of an edge that a bus access ran through before the thread could show them.
    std::optional<detail::pl011_outputs> passed;
    std::uint64_t shown = 0; // the cycle whose outputs the ports show (or will, from `passed`)
    sc_event promise_broken; // a bus write or an input change: earlier read promises may not hold
};

namespace {
bool read_or(const optional_in& p, bool inactive) {
    return p.size() ? p->read() : inactive;
}
void write_if_bound(optional_out& p, bool v) {
    if (p.size()) p->write(v);
}
} // namespace

pl011::pl011(const sc_module_name& name, const pl011_config& cfg)
    : sc_module(name)
    , bus("bus")
    , irq("irq")
    , txd("txd")
    , rxd("rxd")
    , nreset("nreset")
    , ncts("ncts")
    , ndsr("ndsr")
    , ndcd("ndcd")
    , nri("nri")
    , nrts("nrts")
    , ndtr("ndtr")
    , nout1("nout1")
    , nout2("nout2")
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
    , m_clock(cfg.uartclk_hz)
    , m_impl(std::make_unique<impl>(cfg)) {
    bus.register_b_transport(this, &pl011::b_transport);
    bus.register_transport_dbg(this, &pl011::transport_dbg);
    SC_HAS_PROCESS(pl011);
    SC_THREAD(run);
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
void pl011::close_rtl_trace() {
    m_impl->core.close_rtl_trace();
}

void pl011::start_of_simulation() {
    // Ports are bound by now: wake on the inputs that are connected.
    sc_event_or_list& l = m_impl->wake_on;
    l |= m_wake;
    l |= rxd.value_changed_event();
    for (optional_in* p : {&nreset, &ncts, &ndsr, &ndcd, &nri, &txdmaclr, &rxdmaclr})
        if (p->size()) l |= (*p)->value_changed_event();
}

void pl011::sample_inputs() {
    detail::pl011_inputs& in = m_impl->core.inputs();
    const bool v_rst = read_or(nreset, true), v_rxd = rxd.read(), v_cts = read_or(ncts, true),
               v_dsr = read_or(ndsr, true), v_dcd = read_or(ndcd, true), v_ri = read_or(nri, true),
               v_txclr = read_or(txdmaclr, false), v_rxclr = read_or(rxdmaclr, false);
    if (v_rst == in.rst_n && v_rxd == in.rxd && v_cts == in.ncts && v_dsr == in.ndsr && v_dcd == in.ndcd &&
        v_ri == in.nri && v_txclr == in.txdmaclr && v_rxclr == in.rxdmaclr)
        return;
    // An input that changes at time t is seen by the edges after t; the edges up to t saw the old value.
    m_impl->core.catch_up(m_clock.edge_at_or_before(sc_time_stamp()));
    in.rst_n = v_rst;
    in.rxd = v_rxd;
    in.ncts = v_cts;
    in.ndsr = v_dsr;
    in.ndcd = v_dcd;
    in.nri = v_ri;
    in.txdmaclr = v_txclr;
    in.rxdmaclr = v_rxclr;
    m_impl->core.settle();
    m_impl->promise_broken.notify();
}

void pl011::drive_outputs(const detail::pl011_outputs& o) {
    txd.write(o.txd);
    irq.write(o.intr);
    write_if_bound(nrts, o.nrts);
    write_if_bound(ndtr, o.ndtr);
    write_if_bound(nout1, o.nout1);
    write_if_bound(nout2, o.nout2);
    write_if_bound(txdmasreq, o.txdmasreq);
    write_if_bound(txdmabreq, o.txdmabreq);
    write_if_bound(rxdmasreq, o.rxdmasreq);
    write_if_bound(rxdmabreq, o.rxdmabreq);
    tx_fifo_level.write(o.tx_level);
    rx_fifo_level.write(o.rx_level);
    busy.write(o.flags & 0x08);
    rxfe.write(o.flags & 0x10);
    txff.write(o.flags & 0x20);
    rxff.write(o.flags & 0x40);
    txfe.write(o.flags & 0x80);
}

void pl011::run() {
    detail::pl011_core& core = m_impl->core;
    for (;;) {
        const sc_time now = sc_time_stamp();
        sample_inputs();
        core.catch_up(m_clock.edge_at_or_before(now));
        if (m_impl->passed) {
            drive_outputs(*m_impl->passed);
            m_impl->passed.reset();
        }
        std::uint64_t next;
        if (m_clock.time_of(core.cycle()) > now) {
            next = core.cycle(); // a bus access took the model to a later edge: show it then
        } else {
            drive_outputs(core.out());
            m_impl->shown = core.cycle();
            next = core.next_event_cycle();
        }
        if (next == std::numeric_limits<std::uint64_t>::max())
            wait(m_impl->wake_on);
        else
            wait(m_clock.time_of(next) - now, m_impl->wake_on);
    }
}

void pl011::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    if (tx.is_read() == tx.is_write()) { // TLM_IGNORE_COMMAND
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    detail::word_access a;
    const tlm::tlm_response_status st = detail::decode_word_access(tx, map_size, a);
    if (st != tlm::TLM_OK_RESPONSE) {
        tx.set_response_status(st);
        return;
    }
    // The access happens at the initiator's local time: synchronise, then land on the first UARTCLK
    // edge after it (one access per edge). It sees the state of every edge up to its time.
    if (delay != SC_ZERO_TIME) {
        wait(delay);
        delay = SC_ZERO_TIME;
    }
    detail::pl011_core& core = m_impl->core;
    sample_inputs();
    const sc_time now = sc_time_stamp();
    const std::uint64_t at = std::max(m_clock.edge_at_or_before(now), core.cycle()) + 1;
    core.catch_up(at - 1);
    bool wake = a.write || a.word == 0; // a write or a DR read changes what the thread plans
    if (core.cycle() != m_impl->shown) {
        // The edges up to now are past; the thread shows their outputs a delta later.
        m_impl->passed = core.out();
        m_impl->shown = core.cycle();
        wake = true;
    }
    std::uint32_t data = a.write ? detail::lanes_from_payload(tx, a) : 0;
    // A read of anything but DR (which pops the RX FIFO) can be promised to hold until the next edge
    // at which a register may change.
    read_promise* promise = nullptr;
    if (!a.write && a.word != 0) tx.get_extension(promise);
    std::uint64_t stable_until = 0;
    const detail::bus_result r = core.access(at, a.write, static_cast<std::uint16_t>(a.word), a.strb, data,
                                             promise ? &stable_until : nullptr);
    if (r != detail::bus_result::ok) {
        tx.set_response_status(r == detail::bus_result::address_error ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                      : tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (a.write) m_impl->promise_broken.notify();
    if (!a.write) detail::lanes_to_payload(tx, a, data);
    if (promise) {
        promise->valid = true;
        promise->until = stable_until == std::numeric_limits<std::uint64_t>::max()
                             ? sc_max_time()
                             : m_clock.time_of(stable_until);
        promise->broken = &m_impl->promise_broken;
        // A read completes at the first UARTCLK edge after its issue: at most one period (plus the
        // rounding of edge times) later.
        promise->latency = sc_time::from_value(m_clock.time_of(1).value() + 1);
    }
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
    // The access completes at its edge; its effects on the outputs appear then.
    delay = m_clock.time_of(at) - now;
    // A read without side effects changes no output: the thread's next wake-up stands.
    if (wake) m_wake.notify(SC_ZERO_TIME);
}

unsigned pl011::transport_dbg(tlm::tlm_generic_payload& tx) {
    // Reads only, and without side effects: no access edge is taken, so reading DR does not pop the FIFO.
    detail::word_access a;
    if (!tx.is_read() || detail::decode_word_access(tx, map_size, a) != tlm::TLM_OK_RESPONSE) return 0;
    // The model may lag behind the present where no output changed (a masked RT interrupt, say): bring
    // it up to now first, which is what it would be anyway, and let the thread show any edge passed.
    detail::pl011_core& core = m_impl->core;
    core.catch_up(m_clock.edge_at_or_before(sc_time_stamp()));
    if (core.cycle() != m_impl->shown) {
        m_impl->passed = core.out();
        m_impl->shown = core.cycle();
        m_wake.notify(SC_ZERO_TIME);
    }
    std::uint32_t data = 0;
    if (core.peek(static_cast<std::uint16_t>(a.word), data) != detail::bus_result::ok) return 0;
    detail::lanes_to_payload(tx, a, data);
    return a.length;
}

void pl011::trace(sc_trace_file* tf) const {
    const std::string p = std::string(name()) + ".";
    sc_trace(tf, txd, p + "txd");
    sc_trace(tf, rxd, p + "rxd");
    sc_trace(tf, irq, p + "irq");
    sc_trace(tf, tx_fifo_level, p + "tx_fifo_level");
    sc_trace(tf, rx_fifo_level, p + "rx_fifo_level");
    sc_trace(tf, busy, p + "busy");
    sc_trace(tf, txff, p + "txff");
    sc_trace(tf, txfe, p + "txfe");
    sc_trace(tf, rxff, p + "rxff");
    sc_trace(tf, rxfe, p + "rxfe");
}

} // namespace uartvp
