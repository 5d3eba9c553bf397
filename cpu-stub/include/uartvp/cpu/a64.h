// SPDX-License-Identifier: Apache-2.0
#pragma once
// The instruction-accurate aarch64 core: it runs compiled firmware (an ELF, <uartvp/cpu/elf.h>) on the
// same bus as the instruction-stub cores, every device access a TLM-2.0 transaction.
//
// The engine is Unicorn (QEMU's TCG as a library), which is GPL-2.0. The core therefore lives in an
// add-on, libuartvp-a64.so, built from cpu-stub/a64/ when Unicorn is installed and loaded at run time by
// make_a64_core(): neither libuartvp nor the program links GPL code. This header is the whole interface.
//
// Time: every instruction costs `cpi` cycles at `cpu_hz`, counted a translation block at a time, when
// the block starts (an access in a block comes after all of the block's instructions). The core runs
// ahead of SystemC time by at most `quantum_ns` (it synchronises at each grid point of the quantum) and
// synchronises before every device access: the access reaches the device at the core's time, and the
// core goes on after the profile's access cost (or when the device answers, if later).
//
// Interrupts: the core notices its IRQ line when it synchronises: the line's level just before that
// time (a change at the very instant counts from the next synchronisation). A noticed interrupt is taken
// at the next block boundary with PSTATE.I clear, as the architecture defines it: ELR_EL1, SPSR_EL1,
// PSTATE (EL1h, DAIF masked), PC = VBAR_EL1 + 0x280; `eret` returns. `wfi` idles the core until the line
// is high, whatever PSTATE.I says (as the architecture wakes it: firmware checks its work with IRQs
// masked, then waits). A core that waits for an interrupt nothing will raise has halted: the simulation
// runs out of events, and finish() says so.
// `hvc`/`smc` #0 are PSCI calls (PSCI_VERSION, SYSTEM_OFF, SYSTEM_RESET), as QEMU's `virt` answers them.
// The generic timer: CNTFRQ_EL0, CNTVCT_EL0 and CNTPCT_EL0 read simulated time; the virtual timer
// (CNTV_CTL_EL0, CNTV_CVAL_EL0, CNTV_TVAL_EL0) drives `vtimer_irq`.
//
// Poll loops (fast mode): a loop whose architectural state repeats exactly between two reads of one
// register from one block (registers equal, the same value read, no store and no other device access
// in between), on a target that promises the value (<uartvp/read_promise.h>), jumps to the end of the
// promise, or to a break or an interrupt line change, whichever comes first. The reads it stands for
// are counted, and it ends at the time executing every iteration ends at (reference mode).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/cpu/elf.h>
#include <uartvp/cpu/timing.h>

namespace uartvp::cpu {

struct a64_config {
    std::uint64_t ram_base = 0x4000'0000;
    std::uint64_t ram_size = 128ull << 20;
    timing_profile timing;                // cpu_hz and the access costs per address region
    unsigned cpi = 1;                     // cycles per instruction
    std::uint64_t quantum_ns = 1000;      // how far the core may run ahead of SystemC time
    std::uint64_t cntfrq_hz = 62'500'000; // the generic timer's frequency (QEMU's virt: 62.5 MHz)
    bool fast_forward = true;             // poll loops as one operation (false: reference mode)
    unsigned initiator_id = 0;            // the order of accesses at one time (<uartvp/initiator_id.h>)
};

struct a64_stats {
    std::uint64_t instructions = 0;
    std::uint64_t mmio_reads = 0, mmio_writes = 0; // as executed, the reads a fast-forward stood for included
    std::uint64_t transactions = 0;                // device accesses actually issued
    std::uint64_t fast_forwards = 0, skipped_reads = 0;
    std::uint64_t interrupts = 0;
    sc_core::sc_time busy;                       // not waiting in wfi
    sc_core::sc_time irq_off_total, irq_off_max; // PSTATE.I set outside interrupt handlers
    std::uint64_t irq_off_windows = 0;
    sc_core::sc_time hardirq; // from taking an interrupt to its eret
};

enum class a64_stop {
    running,
    system_off,   // PSCI SYSTEM_OFF
    system_reset, // PSCI SYSTEM_RESET (the run ends there: nothing restarts the core)
    halted,       // in wfi when the run ended (finish())
    fault,        // an exception the core does not model, or an access that failed: fault() says which
};

const char* to_string(a64_stop s);

class a64_core : public sc_core::sc_module {
public:
    // Bind one of the two to the bus (uartvp::router or uartvp::router64).
    tlm_utils::simple_initiator_socket_optional<a64_core, 32> bus;
    tlm_utils::simple_initiator_socket_optional<a64_core, 64> bus64;
    sc_core::sc_in<bool> irq;         // the interrupt controller's IRQ request, active high
    sc_core::sc_out<bool> vtimer_irq; // the virtual timer's output (PPI 27, INTID 27, on virt)
    // Observation for waves, driven once observe() was called (else they cost nothing), each change at
    // the core's time: IRQs off (PSTATE.I set outside handlers), in a handler (entry to eret), waiting in
    // wfi, a polling loop run as one operation (from its last real read until the core learnt where it
    // ends), the address of each device access with a read or write strobe held for its cost.
    sc_core::sc_signal<bool> irqs_off, in_hardirq, waiting, polling;
    sc_core::sc_signal<std::uint64_t> mmio_addr;
    sc_core::sc_signal<bool> mmio_read, mmio_write;

    const char* kind() const override { return "uartvp::cpu::a64_core"; }
    // Before the simulation: puts the image's segments into RAM (the rest of RAM is zero) and starts at
    // its entry.
    virtual void load(const elf_image& image) = 0;
    // RAM as the firmware sees it (a mailbox the host fills, results it reads back); throws
    // std::out_of_range outside RAM.
    virtual void write_memory(std::uint64_t addr, const void* data, std::size_t n) = 0;
    virtual void read_memory(std::uint64_t addr, void* data, std::size_t n) const = 0;
    virtual const a64_stats& stats() const = 0;
    virtual a64_stop stop_reason() const = 0;
    virtual std::string fault() const = 0;
    // Fires when the core stops (stop_reason() no longer running).
    virtual const sc_core::sc_event& stopped_event() const = 0;
    // The core's own time (ahead of SystemC time by at most the quantum).
    virtual sc_core::sc_time local_time() const = 0;
    // After the simulation: a core that has not stopped closes its figures (busy, IRQs off) at its own
    // time; one waiting in wfi counts as halted, one still running stays `running` (a time limit).
    virtual void finish() = 0;
    // Waiting in wfi now.
    virtual bool in_wfi() const = 0;
    // Starts driving the observation signals (before the simulation starts).
    virtual void observe() = 0;

protected:
    explicit a64_core(const sc_core::sc_module_name& name)
        : sc_core::sc_module(name)
        , bus("bus")
        , bus64("bus64")
        , irq("irq")
        , vtimer_irq("vtimer_irq") {}
};

// The add-on is not installed or cannot be loaded; what() says why.
struct a64_unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Loads the add-on (the environment's UARTVP_A64_LIBRARY, else where the build or the install put it,
// else the dynamic linker's search path) and builds a core, during elaboration. Throws a64_unavailable.
std::unique_ptr<a64_core> make_a64_core(const std::string& name, const a64_config& config);
// Whether the add-on can be loaded; if not and `why` is given, why not.
bool a64_available(std::string* why = nullptr);

} // namespace uartvp::cpu
