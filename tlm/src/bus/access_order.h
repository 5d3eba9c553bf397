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
#include <cstdint>
#include <vector>

#include <systemc>

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

} // namespace uartvp::detail
