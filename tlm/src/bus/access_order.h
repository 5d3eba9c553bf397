// SPDX-License-Identifier: Apache-2.0
#pragma once
// The order of accesses to one target from several initiators. An access issued at time t is applied
// at t, after everything else that happens at t (input changes, the target's own processes, signal
// updates), in the order of the initiators' ids (uartvp::initiator_id), ties in arrival order. An
// initiator that collapses a polling loop can then tell, from the id of the access that broke its read
// promise, whether its own read at that same time came before it or after it.
//
// The common case, one access with nothing else pending at its time, is applied at once; otherwise the
// access waits for the point at which nothing else is left to run at t (one process serves every
// target there, so that targets waiting for that point do not keep each other from reaching it).
#include <climits>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <systemc>
#include <tlm>

#include <uartvp/initiator_id.h>

namespace uartvp::detail {

class access_order {
public:
    access_order();
    access_order(const access_order&) = delete;
    access_order& operator=(const access_order&) = delete;

    // Runs apply() in order with the other accesses issued now, then returns. Call from a thread at
    // the access's own time; apply() must not wait (it may run in another process).
    template <class F> void submit(unsigned initiator, F& apply) {
        submit(
            initiator, [](void* f) { (*static_cast<F*>(f))(); }, &apply);
    }

private:
    friend class quiet_point;
    struct request {
        unsigned initiator;
        std::uint64_t seq;
        void (*fn)(void*);
        void* ctx;
        bool done;
    };
    void submit(unsigned initiator, void (*fn)(void*), void* ctx);
    void serve(); // from the quiet point: every queued request, in order

    std::vector<request*> m_queue;
    std::uint64_t m_seq = 0;
    sc_core::sc_event m_served;
};

// A blocking transport as both UARTs take it: TLM_IGNORE_COMMAND is answered OK; decode() checks the
// access (a response status: anything but OK is the answer); serve(initiator, local) then applies it at
// the initiator's local time: at once, in arrival order, when loosely timed; else after waiting out the
// annotated delay, in its place among the accesses issued at that time (access_order above). A target
// that passes ahead(local) takes unsynchronised accesses (<uartvp/initiator_id.h>): one issued into a
// quiet future is served at once, at its time, where ahead(local) agrees, else after the wait.
struct no_ahead {};
template <class decode_fn, class serve_fn, class ahead_fn = no_ahead>
void transport_in_order(access_order& order, bool loosely_timed, tlm::tlm_generic_payload& tx,
                        sc_core::sc_time& delay, decode_fn decode, serve_fn serve, ahead_fn ahead = {}) {
    if (tx.is_read() == tx.is_write()) { // TLM_IGNORE_COMMAND
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (const tlm::tlm_response_status st = decode(); st != tlm::TLM_OK_RESPONSE) {
        tx.set_response_status(st);
        return;
    }
    initiator_id* const e = tx.get_extension<initiator_id>();
    const unsigned who = e ? e->id : UINT_MAX;
    if (loosely_timed) {
        serve(who, sc_core::sc_time_stamp() + delay);
        return;
    }
    if constexpr (!std::is_same_v<ahead_fn, no_ahead>) {
        if (e) {
            e->delay_exact = true;
            // Nothing comes before its time: serving it now is serving it then, first at that time.
            if (e->unsynchronised && delay != sc_core::SC_ZERO_TIME) {
                const sc_core::sc_time local = sc_core::sc_time_stamp() + delay;
                if (ahead(local)) {
                    serve(who, local);
                    return;
                }
            }
        }
    }
    if (delay != sc_core::SC_ZERO_TIME) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
    auto apply = [&] { serve(who, sc_core::sc_time_stamp()); };
    order.submit(who, apply);
}

} // namespace uartvp::detail
