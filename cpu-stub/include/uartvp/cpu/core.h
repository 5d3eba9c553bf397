#pragma once
// The instruction-stub CPU: a core runs software tasks (C++ functions written against the kernel-like
// API of <uartvp/cpu/kernel.h>); every register access is a TLM-2.0 transaction at the core's own
// time, and everything else the software does costs time from the timing profile.
//
// Time: the core runs ahead of SystemC time by a local offset (temporal decoupling) and hands that
// offset to the target with each access, which synchronises; an access reaches the device at the time
// it is issued and the core continues after the region's access cost.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cpu/timing.h>

namespace uartvp::cpu {

// What a task did, for results and for tests.
struct task_stats {
    std::string name;
    std::uint64_t mmio_reads = 0, mmio_writes = 0;
    std::uint64_t relax = 0; // cpu_relax() calls: iterations of polling loops that had to wait
    sc_core::sc_time start, end;
};

struct core_stats {
    sc_core::sc_time irq_off_total, irq_off_max;
    std::uint64_t irq_off_windows = 0;
};

class core : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<core, 32> bus;
    // Observation for waves: the task running (index into tasks(), -1 idle), IRQs off.
    sc_core::sc_signal<int> running_task;
    sc_core::sc_signal<bool> irqs_off;

    core(const sc_core::sc_module_name& name, unsigned id, const timing_profile& timing);
    const char* kind() const override { return "uartvp::cpu::core"; }

    // Queue a task; tasks run to completion in the order added (a boot task, then what follows it).
    void add_task(std::string name, std::function<void()> body);
    const std::vector<task_stats>& tasks() const { return m_stats; }
    const core_stats& stats() const { return m_core_stats; }
    unsigned id() const { return m_id; }
    const timing_profile& timing() const { return m_timing; }
    // Fires when the last queued task has finished.
    const sc_core::sc_event& idle_event() const { return m_idle; }
    bool idle() const { return m_done; }

    // The core whose task is executing (the kernel API acts on it).
    static core& current();

    // ---- used by the kernel API
    std::uint32_t read(std::uint64_t addr, unsigned size);
    void write(std::uint64_t addr, std::uint32_t value, unsigned size);
    void spend(const sc_core::sc_time& t) { m_local += t; }
    void spend_cycles(std::uint64_t n) { m_local += m_timing.cycles(n); }
    void count_relax() { ++m_task->relax; }
    // IRQ mask: returns the previous state (true = IRQs were enabled).
    bool irq_disable();
    void irq_restore(bool enabled);
    bool irqs_enabled() const { return m_irq_enabled; }
    // Local time: SystemC time plus what this core has run ahead.
    sc_core::sc_time local_time() const { return sc_core::sc_time_stamp() + m_local; }
    void sync();

private:
    void run();
    void transport(tlm::tlm_generic_payload& tx);

    unsigned m_id;
    timing_profile m_timing;
    sc_core::sc_time m_local;
    std::vector<std::function<void()>> m_bodies;
    std::vector<task_stats> m_stats;
    task_stats* m_task = nullptr;
    core_stats m_core_stats;
    bool m_irq_enabled = true;
    sc_core::sc_time m_irq_off_since;
    sc_core::sc_event m_idle;
    bool m_done = false;
};

// A bus error on a driver's access is a bug in the platform or the driver: it stops the run.
struct bus_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace uartvp::cpu
