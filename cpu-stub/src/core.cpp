#include <uartvp/cpu/core.h>

#include <sstream>

#include <uartvp/initiator_id.h>

namespace uartvp::cpu {

using namespace sc_core;

namespace {
core* g_current = nullptr;
}

core& core::current() {
    if (!g_current) throw std::logic_error("kernel API called outside a task");
    return *g_current;
}

core::core(const sc_module_name& name, unsigned id, const timing_profile& timing)
    : sc_module(name)
    , bus("bus")
    , running_task("running_task", -1)
    , irqs_off("irqs_off", false)
    , mmio_addr("mmio_addr", 0)
    , mmio_read("mmio_read", false)
    , mmio_write("mmio_write", false)
    , polling("polling", false)
    , poll_reads("poll_reads", 0)
    , m_id(id)
    , m_timing(timing) {
    SC_HAS_PROCESS(core);
    SC_THREAD(run);
    SC_METHOD(strobe);
    sensitive << m_strobe;
    dont_initialize();
    SC_METHOD(poll_span);
    sensitive << m_poll_ev;
    dont_initialize();
}

void core::trace(sc_trace_file* tf, const std::string& prefix) {
    observe_bus();
    sc_core::sc_trace(tf, running_task, prefix + "task");
    sc_core::sc_trace(tf, irqs_off, prefix + "irqs_off");
    sc_core::sc_trace(tf, mmio_addr, prefix + "mmio_addr");
    sc_core::sc_trace(tf, mmio_read, prefix + "mmio_read");
    sc_core::sc_trace(tf, mmio_write, prefix + "mmio_write");
    sc_core::sc_trace(tf, polling, prefix + "polling");
    sc_core::sc_trace(tf, poll_reads, prefix + "poll_reads");
}

// The waves' polling span: rises at the first read a collapsed loop counted, falls with the count.
void core::poll_span() {
    if (m_poll_rise) {
        polling.write(true);
    } else {
        poll_reads.write(m_poll_count);
        polling.write(false);
    }
}

// Shows a pending access (address, strobe until its end) or, at that end, drops the strobe.
void core::strobe() {
    if (m_pending.valid) {
        m_pending.valid = false;
        mmio_addr.write(m_pending.addr);
        mmio_write.write(m_pending.write);
        mmio_read.write(!m_pending.write);
        if (m_pending.end > sc_time_stamp()) m_strobe.notify(m_pending.end - sc_time_stamp());
    } else {
        mmio_read.write(false);
        mmio_write.write(false);
    }
}

// Called at the access's own time (the target synchronised to it).
void core::show_access(std::uint64_t addr, bool write, const sc_time& cost) {
    m_pending.valid = true;
    m_pending.write = write;
    m_pending.addr = addr;
    m_pending.end = sc_time_stamp() + cost;
    m_strobe.cancel();
    m_strobe.notify(SC_ZERO_TIME);
}

void core::add_task(std::string name, std::function<void()> body) {
    m_bodies.push_back(std::move(body));
    task_stats s;
    s.name = std::move(name);
    m_stats.push_back(s);
}

void core::sync() {
    if (m_time > sc_time_stamp()) wait(m_time - sc_time_stamp());
    g_current = this;
}

void core::relax() {
    ++m_task->relax;
    m_time += m_timing.cycles(m_timing.cpu_relax_cycles);
}

void core::run() {
    for (std::size_t i = 0; i < m_bodies.size(); ++i) {
        sync();
        m_task = &m_stats[i];
        m_task->start = sc_time_stamp();
        running_task.write(static_cast<int>(i));
        g_current = this;
        m_bodies[i]();
        sync();
        m_task->end = sc_time_stamp();
        running_task.write(-1);
        m_task = nullptr;
    }
    m_done = true;
    m_idle.notify(SC_ZERO_TIME);
}

bool core::transport(tlm::tlm_generic_payload& tx) {
    const std::uint64_t addr = tx.get_address();
    const region_cost& cost = m_timing.cost_for(addr);
    const sc_time issued = m_time;
    const sc_time done_by_cost =
        issued + m_timing.cycles(m_timing.call_cycles) + (tx.is_read() ? cost.read : cost.write);
    sc_time delay = issued - sc_time_stamp();
    ++m_transactions;
    initiator_id who(m_id); // targets order accesses issued at the same time by it
    tx.set_extension(&who);
    try {
        bus->b_transport(tx, delay);
    } catch (...) {
        tx.clear_extension(&who);
        throw;
    }
    tx.clear_extension(&who); // it lives on our stack, not the payload's
    g_current = this; // the target may have waited
    if (!tx.is_response_ok()) {
        std::ostringstream msg;
        msg << name() << ": " << (tx.is_read() ? "read" : "write") << " of " << tx.get_data_length()
            << " bytes at 0x" << std::hex << addr << ": " << tx.get_response_string();
        throw bus_error(msg.str());
    }
    if (m_traced && sc_time_stamp() == issued) show_access(addr, tx.is_write(), done_by_cost - issued);
    const sc_time by_target = sc_time_stamp() + delay;
    m_time = std::max(done_by_cost, by_target);
    return by_target > done_by_cost;
}

std::uint32_t core::read(std::uint64_t addr, unsigned size) {
    return read(addr, size, nullptr, nullptr);
}

std::uint32_t core::read(std::uint64_t addr, unsigned size, read_promise* promise, bool* target_bound) {
    std::uint32_t v = 0;
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (promise) tx.set_extension(promise);
    try {
        const bool bound = transport(tx);
        if (target_bound) *target_bound = bound;
    } catch (...) {
        if (promise) tx.clear_extension(promise);
        throw;
    }
    if (promise) tx.clear_extension(promise); // it lives on our stack, not the payload's
    if (m_task) ++m_task->mmio_reads;
    return v;
}

std::uint32_t core::spin_read_while(std::uint64_t addr, unsigned size,
                                    const std::function<bool(std::uint32_t)>& keep) {
    return poll(addr, size, keep, 0, SC_ZERO_TIME).value;
}

core::poll_result core::poll(std::uint64_t addr, unsigned size,
                             const std::function<bool(std::uint32_t)>& keep, std::uint64_t max_reads,
                             const sc_time& delay) {
    const bool relaxing = delay == SC_ZERO_TIME; // cpu_relax() between reads, else udelay
    const sc_time read_part = m_timing.cycles(m_timing.call_cycles) + m_timing.cost_for(addr).read;
    const sc_time per = read_part + (relaxing ? m_timing.cycles(m_timing.cpu_relax_cycles) : delay);
    std::uint64_t reads = 0;
    for (;;) {
        read_promise promise;
        bool target_bound = false;
        const std::uint32_t v = read(addr, size, m_collapse ? &promise : nullptr, &target_bound);
        ++reads;
        if (!keep(v)) return {v, reads, false};
        if (max_reads && reads == max_reads) return {v, reads, true};
        if (relaxing)
            relax();
        else
            m_time += delay;
        // The literal loop reads again at m_time, m_time + per, ...; every read issued before
        // `until` returns v, so keeps it looping. Count them without transactions, waiting in
        // SystemC time for the promise to break, but the last: it is issued for real at its time, so
        // that it takes its place among other initiators' accesses of that time. Only when every
        // such read ends by its own cost, not later by the target's latency.
        if (!promise.valid || target_bound || m_time >= promise.until || per == SC_ZERO_TIME ||
            read_part < promise.latency)
            continue;
        const std::uint64_t p = per.value(), start = m_time.value();
        const std::uint64_t left = max_reads ? max_reads - reads : ~std::uint64_t(0);
        std::uint64_t n = promise.until == sc_max_time() ? left : (promise.until.value() - start + p - 1) / p;
        n = std::min(n, left);
        if (n != ~std::uint64_t(0)) --n; // the last read before `until` (or the limit) is real
        if (n == 0) continue;
        if (promise.broken_already()) continue; // another initiator's access right after this read
        // In the waves, the span rises at the first counted read (a method writes it: no sync here,
        // which could miss the promise breaking before the core's time).
        if (m_traced) {
            m_poll_rise = true;
            m_poll_ev.notify(m_time - sc_time_stamp());
        }
        // The reads before the promise broke returned v; one issued at that very time did if it came
        // first: an input change comes before every access of its time, accesses go by initiator id.
        auto counted_until_now = [&]() -> std::uint64_t {
            const std::uint64_t t = sc_time_stamp().value();
            if (t < start) return 0;
            std::uint64_t c = (t - start + p - 1) / p; // issued strictly before t
            const read_promise::break_cause* why = promise.cause;
            const bool mine_first = why && why->when == sc_time_stamp() && why->by_access && m_id < why->initiator;
            if ((t - start) % p == 0 && mine_first) ++c;
            return c;
        };
        if (n == ~std::uint64_t(0)) {
            wait(*promise.broken); // no limit and no change by itself: only an access or input ends it
            n = counted_until_now();
        } else {
            // Wait until the real read's time (the one after the last counted), or the break.
            const sc_time real = sc_time::from_value(start + n * p);
            if (real > sc_time_stamp()) wait(real - sc_time_stamp(), *promise.broken);
            if (promise.broken_already()) n = std::min(n, counted_until_now());
        }
        g_current = this;
        m_task->mmio_reads += n;
        reads += n;
        m_time = sc_time::from_value(start + n * p); // each counted read was followed by the wait
        if (relaxing) m_task->relax += n;
        if (m_traced) {
            if (n == 0) {
                m_poll_ev.cancel(); // broken before the first counted read: no span
                m_poll_rise = false;
            } else {
                m_poll_rise = false;
                m_poll_count = n;
                m_poll_ev.notify(SC_ZERO_TIME);
            }
        }
    }
}

void core::write(std::uint64_t addr, std::uint32_t value, unsigned size) {
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_WRITE_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    (void)transport(tx);
    if (m_task) ++m_task->mmio_writes;
}

bool core::irq_disable() {
    const bool was = m_irq_enabled;
    if (was) {
        sync(); // the IRQs-off window starts now, in SystemC time (and in the waves)
        m_irq_enabled = false;
        m_irq_off_since = sc_time_stamp();
        irqs_off.write(true);
    }
    return was;
}

void core::irq_restore(bool enabled) {
    if (enabled && !m_irq_enabled) {
        sync();
        const sc_time len = sc_time_stamp() - m_irq_off_since;
        m_core_stats.irq_off_total += len;
        if (len > m_core_stats.irq_off_max) m_core_stats.irq_off_max = len;
        ++m_core_stats.irq_off_windows;
        m_irq_enabled = true;
        irqs_off.write(false);
    }
}

} // namespace uartvp::cpu
