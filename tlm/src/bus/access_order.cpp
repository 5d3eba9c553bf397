// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn

#include "bus/access_order.h"

#include <algorithm>

namespace uartvp::detail {

using namespace sc_core;

// One method for the whole simulation: at each delta it checks whether anything but itself is left to
// run at the present time; once nothing is, it serves the targets that wait. A method per target would
// see the others' notifications as pending work forever.
class quiet_point {
public:
    static quiet_point& get() {
        static quiet_point* p = new quiet_point; // never destroyed: SystemC's kernel outlives statics
        return *p;
    }
    void enlist(access_order* q) {
        if (std::find(m_waiting.begin(), m_waiting.end(), q) == m_waiting.end()) m_waiting.push_back(q);
        m_check.notify(SC_ZERO_TIME);
    }

private:
    quiet_point() {
        sc_spawn_options opts;
        opts.spawn_method();
        opts.dont_initialize();
        opts.set_sensitivity(&m_check);
        sc_spawn([this] { check(); }, sc_gen_unique_name("uartvp_access_order"), &opts);
    }
    void check() {
        if (sc_pending_activity_at_current_time()) {
            m_check.notify(SC_ZERO_TIME);
            return;
        }
        std::vector<access_order*> now;
        now.swap(m_waiting);
        for (access_order* q : now)
            q->serve();
    }
    sc_event m_check{"uartvp_access_order_check"};
    std::vector<access_order*> m_waiting;
};

access_order::access_order() {
    quiet_point::get(); // spawn the serving method during elaboration
}

void access_order::submit(unsigned initiator, void (*fn)(void*), void* ctx) {
    if (m_queue.empty() && !sc_pending_activity_at_current_time()) {
        fn(ctx); // nothing else can happen at this time before it
        return;
    }
    request r{initiator, m_seq++, fn, ctx, false};
    m_queue.push_back(&r);
    quiet_point::get().enlist(this);
    while (!r.done)
        wait(m_served);
}

void access_order::serve() {
    std::vector<request*> batch;
    batch.swap(m_queue);
    std::stable_sort(batch.begin(), batch.end(), [](const request* a, const request* b) {
        return a->initiator != b->initiator ? a->initiator < b->initiator : a->seq < b->seq;
    });
    for (request* r : batch) {
        r->fn(r->ctx);
        r->done = true;
    }
    m_served.notify();
}

} // namespace uartvp::detail
