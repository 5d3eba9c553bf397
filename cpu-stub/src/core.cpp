#include <uartvp/cpu/core.h>

#include <sstream>

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
    , m_id(id)
    , m_timing(timing) {
    SC_HAS_PROCESS(core);
    SC_THREAD(run);
}

void core::add_task(std::string name, std::function<void()> body) {
    m_bodies.push_back(std::move(body));
    task_stats s;
    s.name = std::move(name);
    m_stats.push_back(s);
}

void core::sync() {
    if (m_local != SC_ZERO_TIME) {
        const sc_time t = m_local;
        m_local = SC_ZERO_TIME;
        wait(t);
    }
    g_current = this;
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

void core::transport(tlm::tlm_generic_payload& tx) {
    const std::uint64_t addr = tx.get_address();
    const region_cost& cost = m_timing.cost_for(addr);
    const sc_time issued = local_time();
    const sc_time done_by_cost =
        issued + m_timing.cycles(m_timing.call_cycles) + (tx.is_read() ? cost.read : cost.write);
    sc_time delay = m_local;
    bus->b_transport(tx, delay);
    g_current = this; // the target may have waited
    if (!tx.is_response_ok()) {
        std::ostringstream msg;
        msg << name() << ": " << (tx.is_read() ? "read" : "write") << " of " << tx.get_data_length()
            << " bytes at 0x" << std::hex << addr << ": " << tx.get_response_string();
        throw bus_error(msg.str());
    }
    const sc_time done = std::max(done_by_cost, sc_time_stamp() + delay);
    m_local = done - sc_time_stamp();
}

std::uint32_t core::read(std::uint64_t addr, unsigned size) {
    std::uint32_t v = 0;
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    transport(tx);
    if (m_task) ++m_task->mmio_reads;
    return v;
}

void core::write(std::uint64_t addr, std::uint32_t value, unsigned size) {
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_WRITE_COMMAND);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    tx.set_data_length(size);
    tx.set_streaming_width(size);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    transport(tx);
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
