// SPDX-License-Identifier: Apache-2.0
#pragma once
// A TLM-2.0 extension naming the initiator of a transaction. uartvp's targets apply accesses issued at
// the same simulated time in the order of these ids (lowest first), after everything else that happens
// at that time; accesses without the extension come after those with one, in the order they arrive.
// Give every initiator that shares a target its own id: the order is then the same in every run and
// in both modes of uartvp's CPU stub (which sets its core number).
//
// Accesses ahead of SystemC time: an initiator whose local time is ahead of SystemC time may issue an
// access without waiting for its time first (`unsynchronised`), with the annotated delay up to its
// time, if SystemC has nothing to do until then, that time included (no process is runnable, no event
// is due; an initiator acts only at or after its local time, so nothing that it does later comes
// before it either). A target that applies every access at SystemC time plus the annotated delay
// (waiting for it, or applying it at once where nothing can come before it) says so in
// `delay_exact`; an initiator issues unsynchronised accesses only to targets that said so. Every other
// target sees a synchronised access, as before.
#include <climits>
#include <tlm>

namespace uartvp {

struct initiator_id : tlm::tlm_extension<initiator_id> {
    unsigned id = 0;
    bool unsynchronised = false; // set by the initiator: see above
    bool delay_exact = false;    // set by the target: it applies the access at now + delay

    initiator_id() = default;
    explicit initiator_id(unsigned i)
        : id(i) {}
    tlm::tlm_extension_base* clone() const override { return new initiator_id(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        const auto& o = static_cast<const initiator_id&>(other);
        id = o.id;
        unsynchronised = o.unsynchronised;
        delay_exact = o.delay_exact;
    }
};

// The id a target orders by: the extension's, or UINT_MAX without one.
inline unsigned initiator_of(const tlm::tlm_generic_payload& tx) {
    const initiator_id* e = tx.get_extension<initiator_id>();
    return e ? e->id : UINT_MAX;
}

} // namespace uartvp
