// SPDX-License-Identifier: Apache-2.0
#pragma once
// uartvp::gicv2: a subset of an ARM GICv2 interrupt controller (IHI 0048B) as a TLM-2.0 target, enough
// for bare-metal aarch64 firmware written for QEMU's `-M virt` on one core: a distributor and one CPU
// interface (CPU0), no security extensions (every interrupt in group 0), no virtualisation.
// - INTIDs: SGIs 0..15 as registers only (enable and priority bits; pending is write-ignored, as the
//   architecture has GICD_ISPENDR/ICPENDR do for SGIs, and GICD_SGIR is not modelled, so an SGI is
//   never pending), PPIs 16..31 on `ppi`, SPIs 32.. on `spi` (num_spis of them).
// - Priority: all 8 bits implemented (QEMU's GICv2 default, num-priority-bits 8). An interrupt is
//   signalled when its priority is numerically lower than GICC_PMR and than the running priority;
//   ties go to the lowest INTID. GICC_BPR is stored but does not group priorities: preemption takes
//   the full 8 bits. The running priority is the highest priority (lowest value) among the active
//   interrupts (0xFF when none is), so GICC_EOIR drops it to that of the next active one.
// - PPIs are level-sensitive; SPIs level (reset) or edge (GICD_ICFGR bit 2i+1): a rising edge
//   latches pending. A level interrupt is pending while its line is high or its GICD_ISPENDR latch
//   is set; acknowledging it with its line still high leaves it active and pending.
// - GICD_ITARGETSR: SGI/PPI fields read 0x01 (CPU0); SPI fields are writable and reset to 0x01, so
//   firmware that never writes them (QEMU has them RAZ/WI with one CPU) still gets its interrupts; an
//   SPI whose field has bit 0 clear goes nowhere.
// - Bus: word accesses everywhere, byte accesses to GICD_IPRIORITYR and GICD_ITARGETSR. Any other
//   size or alignment, and unmodelled registers, read as zero and ignore writes (TLM_OK_RESPONSE);
//   an access reaching past the region answers TLM_ADDRESS_ERROR_RESPONSE.
// - Timing: a functional model. b_transport waits out a non-zero annotated delay (call it from a
//   thread, or with a zero delay), applies the access at that time and adds no latency of its own.
//   irq follows one delta cycle after an input change or an access. transport_dbg reads without side
//   effects (a GICC_IAR debug read returns what a read would acknowledge, and acknowledges nothing).
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace uartvp {

class gicv2 : public sc_core::sc_module {
public:
    static constexpr unsigned max_spis = 988;                   // INTIDs 32..1019
    static constexpr std::uint64_t distributor_size = 0x1000;   // GICD_*, at 0x08000000 on QEMU's virt
    static constexpr std::uint64_t cpu_interface_size = 0x2000; // GICC_*, at 0x08010000 on QEMU's virt

    // Each region on a 32-bit bus (`distributor`, `cpu_interface`) or a 64-bit one (the `...64`
    // sockets): bind one of each pair, or both, as on the UARTs' `bus` and `bus64`.
    tlm_utils::simple_target_socket_optional<gicv2, 32> distributor;
    tlm_utils::simple_target_socket_optional<gicv2, 64> distributor64;
    tlm_utils::simple_target_socket_optional<gicv2, 32> cpu_interface;
    tlm_utils::simple_target_socket_optional<gicv2, 64> cpu_interface64;
    // Level inputs, active high: spi[i] is INTID 32 + i, ppi[i] INTID 16 + i. An SoC binds the lines
    // it uses; the others are tied low before the end of elaboration.
    sc_core::sc_vector<sc_core::sc_in<bool>> spi;
    sc_core::sc_vector<sc_core::sc_in<bool>> ppi;
    sc_core::sc_out<bool> irq; // the CPU's IRQ request, active high; low from the start

    explicit gicv2(const sc_core::sc_module_name& name, unsigned num_spis = 64);
    gicv2(const gicv2&) = delete;
    gicv2& operator=(const gicv2&) = delete;
    const char* kind() const override { return "uartvp::gicv2"; }

    unsigned num_spis() const { return m_num_spis; }
    unsigned num_intids() const { return 32 + m_num_spis; }
    // The state of an interrupt now (false for INTIDs that do not exist), for tests and waves.
    bool pending(unsigned intid) const;
    bool active(unsigned intid) const;

private:
    struct intid_state {
        bool enabled = false;
        bool latched = false; // pending by GICD_ISPENDR or an edge
        bool active = false;
        bool edge = false; // GICD_ICFGR: edge-triggered (SPIs only)
        bool seen = false; // the line's level when last sampled, for edges
        std::uint8_t priority = 0;
        std::uint8_t targets = 0;
    };
    struct state {
        std::vector<intid_state> irqs;
        bool dist_enabled = false; // GICD_CTLR bit 0
        bool cpu_enabled = false;  // GICC_CTLR bit 0
        std::uint8_t pmr = 0;
        std::uint8_t bpr = 0;
    };
    enum class region { distributor, cpu_interface };

    bool line(unsigned intid) const;
    bool pending_in(const state& s, unsigned intid) const;
    void sample(state& s) const;
    unsigned running_priority(const state& s) const;
    unsigned highest_pending(const state& s, bool masked) const;
    std::uint32_t dist_read(const state& s, std::uint32_t offset) const;
    void dist_write(std::uint32_t offset, std::uint32_t value, unsigned byte_mask);
    std::uint32_t cpu_read(state& s, std::uint32_t offset, bool acknowledge) const;
    void cpu_write(std::uint32_t offset, std::uint32_t value);
    unsigned serve(region r, tlm::tlm_generic_payload& tx, bool debug);

    template <region R> void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    template <region R> unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    void evaluate();
    void before_end_of_elaboration() override;
    void start_of_simulation() override;

    unsigned m_num_spis;
    state m_state;
    bool m_irq_level = false;
    sc_core::sc_signal<bool> m_tie_low;
    sc_core::sc_event m_changed; // a register write or an acknowledge
};

} // namespace uartvp
