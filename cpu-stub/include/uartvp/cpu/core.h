#pragma once
// The instruction-stub CPU: a core runs software tasks (C++ functions written against the kernel-like
// API of <uartvp/cpu/kernel.h>); every register access is a TLM-2.0 transaction at the core's own
// time, and everything else the software does costs time from the timing profile.
//
// Time: the core keeps its own time, ahead of SystemC time (temporal decoupling), and hands the
// difference to the target with each access, which synchronises; an access reaches the device at the
// time it is issued and the core continues after the region's access cost.
//
// Polling loops (`while (readl(FR) & BUSY) cpu_relax();`, written with kapi::spin_while) run as one
// operation in fast mode: a target that promises how long the value read will hold
// (uartvp::read_promise) lets the core count the reads that fall before then without transactions,
// waiting once in SystemC time for the promise to hold or break. Reads, values and end time are those
// of the literal loop, which reference mode executes read by read.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cpu/timing.h>
#include <uartvp/read_promise.h>

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
    // Bus activity, driven only once trace() was called: the address of each access with a read or
    // write strobe held for the access's cost, and the spans in which a polling loop ran as one
    // operation, with the number of reads it stood for.
    sc_core::sc_signal<std::uint64_t> mmio_addr;
    sc_core::sc_signal<bool> mmio_read, mmio_write;
    sc_core::sc_signal<bool> polling;
    sc_core::sc_signal<std::uint64_t> poll_reads;

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
    // Adds the task, IRQs-off and bus signals to a trace file and starts driving the bus signals.
    void trace(sc_core::sc_trace_file* tf, const std::string& prefix);
    // Starts driving the bus signals (otherwise they cost nothing).
    void observe_bus() { m_traced = true; }

    // The core whose task is executing (the kernel API acts on it).
    static core& current();

    // Fast mode (the default): polling loops with promised values run as one operation.
    void set_collapse_polls(bool on) { m_collapse = on; }
    bool collapse_polls() const { return m_collapse; }
    // Register reads that were transactions, and those a promise answered.
    std::uint64_t transactions() const { return m_transactions; }

    // ---- used by the kernel API
    std::uint32_t read(std::uint64_t addr, unsigned size);
    // while (keep(read(addr)) cpu_relax(); returns the last value read.
    std::uint32_t spin_read_while(std::uint64_t addr, unsigned size,
                                  const std::function<bool(std::uint32_t)>& keep);
    // Reads until !keep(value) or max_reads reads (0: no limit), waiting `delay` between reads (zero:
    // cpu_relax()), as one operation in fast mode.
    struct poll_result {
        std::uint32_t value;
        std::uint64_t reads;
        bool timed_out;
    };
    poll_result poll(std::uint64_t addr, unsigned size, const std::function<bool(std::uint32_t)>& keep,
                     std::uint64_t max_reads, const sc_core::sc_time& delay);
    void write(std::uint64_t addr, std::uint32_t value, unsigned size);
    void spend(const sc_core::sc_time& t) { m_time += t; }
    void spend_cycles(std::uint64_t n) { m_time += m_timing.cycles(n); }
    void relax();
    // IRQ mask: returns the previous state (true = IRQs were enabled).
    bool irq_disable();
    void irq_restore(bool enabled);
    bool irqs_enabled() const { return m_irq_enabled; }
    // The core's own time (never behind SystemC time).
    sc_core::sc_time local_time() const { return m_time; }
    void sync();

private:
    void run();
    void strobe();
    void poll_span();
    void show_access(std::uint64_t addr, bool write, const sc_core::sc_time& cost);
    // Returns true if the target's own delay, not the profile's cost, decided when the access ended.
    bool transport(tlm::tlm_generic_payload& tx);
    std::uint32_t read(std::uint64_t addr, unsigned size, read_promise* promise, bool* target_bound);

    unsigned m_id;
    timing_profile m_timing;
    sc_core::sc_time m_time;
    bool m_collapse = true;
    std::uint64_t m_transactions = 0;
    std::vector<std::function<void()>> m_bodies;
    std::vector<task_stats> m_stats;
    task_stats* m_task = nullptr;
    core_stats m_core_stats;
    bool m_irq_enabled = true;
    sc_core::sc_time m_irq_off_since;
    sc_core::sc_event m_idle;
    bool m_traced = false;
    // The access the strobe method shows next (it alone writes the bus signals).
    struct {
        bool valid = false, write = false;
        std::uint64_t addr = 0;
        sc_core::sc_time end;
    } m_pending;
    sc_core::sc_event m_strobe;
    bool m_poll_rise = false;
    std::uint64_t m_poll_count = 0;
    sc_core::sc_event m_poll_ev;
    bool m_done = false;
};

// A bus error on a driver's access is a bug in the platform or the driver: it stops the run.
struct bus_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace uartvp::cpu
