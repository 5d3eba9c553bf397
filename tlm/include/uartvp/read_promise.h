#pragma once
// A TLM-2.0 extension by which a target tells the initiator how long a register it just read will keep
// its value: "this value stays until `until` (exclusive), unless `broken` fires first". An initiator
// that polls the register (`while (readl(FR) & BUSY) cpu_relax();`) can then run the reads that fall
// before `until` without transactions, with the same count, values and end time as literal execution.
//
// The initiator attaches the extension to a read; a target that can promise sets `valid`. A target
// fires `broken` whenever something it did not foresee may change the value: a bus write by anyone,
// a change of an input line, a reset. A read with side effects (popping a FIFO) is never promised.
#include <systemc>
#include <tlm>

namespace uartvp {

struct read_promise : tlm::tlm_extension<read_promise> {
    bool valid = false;
    sc_core::sc_time until; // absolute simulation time
    const sc_core::sc_event* broken = nullptr;
    // The longest time the target itself may take to complete a read from its issue (for the PL011,
    // up to the next UARTCLK edge). An initiator whose reads cost less cannot count them in advance.
    sc_core::sc_time latency;

    tlm::tlm_extension_base* clone() const override { return new read_promise(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const read_promise&>(other);
    }
    void reset() {
        valid = false;
        until = sc_core::SC_ZERO_TIME;
        broken = nullptr;
        latency = sc_core::SC_ZERO_TIME;
    }
};

} // namespace uartvp
