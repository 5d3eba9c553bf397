// SPDX-License-Identifier: Apache-2.0
#pragma once
// A TLM-2.0 extension by which a target tells the initiator how long a register it just read will keep
// its value: "this value stays until `until` (exclusive), unless `broken` fires first". An initiator
// that polls the register (`while (readl(FR) & BUSY) cpu_relax();`) can then run the reads that fall
// before `until` without transactions, with the same count, values and end time as literal execution.
//
// The initiator attaches the extension to a read; a target that can promise sets `valid`.
//
// Named bits: a loop that tests only some bits of the value (`while (readl(FR) & BUSY)`) may name them
// in `mask` before the read. A target may then promise only those bits, for longer (BUSY set until the
// character in the shifter ends, say), and says so in `held`: the promise covers (value & held) only.
// `held` 0 (what a target that knows nothing of masks leaves) is the whole value, as is `mask` 0. A target
// fires `broken` at the time of anything it did not foresee that may change the value: an access with
// a side effect by any initiator (a write, a read that pops a FIFO or clears a flag), a change of an
// input line, a reset. A read that itself has a side effect is never promised.
//
// Several initiators: uartvp's targets apply accesses issued at the same time after the input changes
// of that time, in the order of their initiator ids (<uartvp/initiator_id.h>). `cause` tells an
// initiator woken by `broken` what broke the promise at the present time, so that it can tell whether
// its own read issued at that very time came before (it returned the promised value) or after.
#include <climits>
#include <cstdint>
#include <systemc>
#include <tlm>

namespace uartvp {

struct read_promise : tlm::tlm_extension<read_promise> {
    // The first break at `when`: an input change or reset (by_access false: before every access issued
    // at that time), or the access of `initiator` (an initiator_id; UINT_MAX for none).
    struct break_cause {
        sc_core::sc_time when;
        bool by_access = false;
        unsigned initiator = UINT_MAX;
    };

    bool valid = false;
    std::uint32_t mask = 0; // set by the initiator: the bits its loop tests (0: all)
    std::uint32_t held = 0; // set by the target: the bits the promise covers (0: all)
    sc_core::sc_time until; // absolute simulation time
    const sc_core::sc_event* broken = nullptr;
    // The longest time the target itself may take to complete a read from its issue (for the PL011,
    // up to the next UARTCLK edge). An initiator whose reads cost less cannot count them in advance.
    sc_core::sc_time latency;
    // Kept by the target, valid from the moment `broken` fires (null: the target does not say).
    const break_cause* cause = nullptr;
    // The target's count of breaks, and its value when the promise was made: a break that fired
    // before the initiator began to wait for `broken` (another initiator's access served right after
    // this read, at the same time) is seen here.
    const std::uint64_t* breaks = nullptr;
    std::uint64_t breaks_at_promise = 0;
    bool broken_already() const { return breaks && *breaks != breaks_at_promise; }

    tlm::tlm_extension_base* clone() const override { return new read_promise(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const read_promise&>(other);
    }
    void reset() {
        valid = false;
        mask = 0;
        held = 0;
        until = sc_core::SC_ZERO_TIME;
        broken = nullptr;
        latency = sc_core::SC_ZERO_TIME;
        cause = nullptr;
        breaks = nullptr;
        breaks_at_promise = 0;
    }
};

namespace detail {
// A target's side of the promises: the event, the count of breaks and the first cause at each time.
struct promise_breaker {
    sc_core::sc_event event;
    read_promise::break_cause cause;
    std::uint64_t count = 0;
    void fire(bool by_access, unsigned initiator) {
        note_break(sc_core::sc_time_stamp(), by_access, initiator);
        event.notify();
    }
    // At `when`, at or after the present: an access served ahead of its time (nothing comes between).
    // Its event is notified then only if an initiator other than the one acting holds a promise made
    // since the last break (one may be waiting for it; the acting one is not): a timed notification
    // costs a time step even where no process waits. A holder that is not waiting sees `breaks`.
    void fire_at(const sc_core::sc_time& when, bool by_access, unsigned initiator) {
        const bool others = note_break(when, by_access, initiator);
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        if (when <= now)
            event.notify();
        else if (others)
            event.notify(when - now);
    }
    void promise(read_promise& p, unsigned initiator = UINT_MAX) { // UINT_MAX: not known
        p.valid = true;
        p.broken = &event;
        p.cause = &cause;
        p.breaks = &count;
        p.breaks_at_promise = count;
        if (!m_promised) {
            m_promised = true;
            m_promised_to = initiator;
        } else if (initiator != m_promised_to) {
            m_promised_mixed = true;
        }
    }

private:
    // Counts a break at `when` and keeps its cause (the first at that time). Returns whether an
    // initiator other than the acting one holds a promise made since the last break.
    bool note_break(const sc_core::sc_time& when, bool by_access, unsigned initiator) {
        if (count == 0 || cause.when != when) cause = {when, by_access, initiator};
        ++count;
        const bool others = m_promised && (m_promised_mixed || !by_access || m_promised_to != initiator);
        m_promised = m_promised_mixed = false;
        return others;
    }
    bool m_promised = false, m_promised_mixed = false;
    unsigned m_promised_to = 0;
};
} // namespace detail

} // namespace uartvp
