// SPDX-License-Identifier: Apache-2.0
#pragma once
// An sc_signal that also calls its observers at each change of its value, in the update phase of the
// delta cycle that changes it (sc_time_stamp() is the change's time), with no event and no process
// per observer. The UARTs' observation signals (FIFO levels, flags) are these: a waves writer
// (uartvp::vcd_writer) takes their changes that way, for a fraction of a method's activation per
// change. For everything else it is the sc_signal it derives from.
#include <functional>
#include <utility>
#include <vector>

#include <systemc>

namespace uartvp {

// What a writer looks for behind a signal's interface (dynamic_cast), whatever the value type.
class signal_observers {
public:
    // `f` is called after each change of the value. Add before the simulation starts.
    void on_change(std::function<void()> f) const { m_observers.push_back(std::move(f)); }

protected:
    ~signal_observers() = default;
    void changed() const {
        for (const auto& f : m_observers)
            f();
    }

private:
    mutable std::vector<std::function<void()>> m_observers; // observing does not change the signal
};

template <class T, sc_core::sc_writer_policy POL = sc_core::SC_ONE_WRITER>
class observed_signal : public sc_core::sc_signal<T, POL>, public signal_observers {
public:
    using sc_core::sc_signal<T, POL>::sc_signal;
    using sc_core::sc_signal<T, POL>::operator=;

protected:
    void update() override {
        const T before = this->m_cur_val;
        sc_core::sc_signal<T, POL>::update();
        if (!(this->m_cur_val == before)) changed();
    }
};

// Keeps in `highest` the highest value `s` takes from its next change on (a FIFO's peak level, say),
// with an observer rather than a process. Both must outlive the simulation.
template <class T, sc_core::sc_writer_policy POL>
void keep_highest(const observed_signal<T, POL>& s, T& highest) {
    s.on_change([&s, &highest] {
        if (highest < s.read()) highest = s.read();
    });
}

} // namespace uartvp
