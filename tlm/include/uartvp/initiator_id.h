// SPDX-License-Identifier: Apache-2.0
#pragma once
// A TLM-2.0 extension naming the initiator of a transaction. uartvp's targets apply accesses issued at
// the same simulated time in the order of these ids (lowest first), after everything else that happens
// at that time; accesses without the extension come after those with one, in the order they arrive.
// Give every initiator that shares a target its own id: the order is then the same in every run and
// in both modes of uartvp's CPU stub (which sets its core number).
#include <climits>
#include <tlm>

namespace uartvp {

struct initiator_id : tlm::tlm_extension<initiator_id> {
    unsigned id = 0;

    initiator_id() = default;
    explicit initiator_id(unsigned i)
        : id(i) {}
    tlm::tlm_extension_base* clone() const override { return new initiator_id(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        id = static_cast<const initiator_id&>(other).id;
    }
};

// The id a target orders by: the extension's, or UINT_MAX without one.
inline unsigned initiator_of(const tlm::tlm_generic_payload& tx) {
    const initiator_id* e = tx.get_extension<initiator_id>();
    return e ? e->id : UINT_MAX;
}

} // namespace uartvp
