// SPDX-License-Identifier: Apache-2.0
#pragma once
// Loading plugins (--plugin FILE): shared objects built against <uartvp/plugin.h> that add variants to
// the scenarios, and the guard that turns a plugin routine's misbehaviour into an internal error.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include <uartvp/plugin.h>

namespace uartvp::program {

// A variant a plugin added.
struct plugin_variant {
    std::string scenario, kind, name, description, file;
    std::shared_ptr<const void> hook;
};

// Loads each plugin and adds its variants to their scenarios (after the built-in ones, in order).
// Throws usage_error (exit 2) for a plugin that cannot be loaded: missing, not a shared object, no
// entry point, another ABI, given twice, a variant name taken or invalid, a scenario unknown or a hook
// kind it does not take.
void load_plugins(const std::vector<std::string>& files);

// The plugin variant of that scenario and name, or null (a built-in variant).
const plugin_variant* find_plugin_variant(const std::string& scenario, const std::string& name);

// The hook of a plugin variant as the scenario's own kind, or null when the variant is not a plugin's.
template <class hook_t> const hook_t* plugin_hook(const std::string& name) {
    const plugin_variant* v = find_plugin_variant(hook_t::scenario, name);
    if (!v || v->kind != hook_t::kind) return nullptr;
    return static_cast<const hook_t*>(v->hook.get());
}

// Runs a plugin's routines and watches them: an exception out of a routine (a bus error included)
// and a routine that has not returned within its bound of simulated time end the run with an
// internal error naming the variant (exit 3). The bound: `limit` from the call, checked by a process
// of the guard's own, which calls sc_stop() when it passes.
class plugin_guard {
public:
    explicit plugin_guard(const plugin_variant& v);
    // Runs fn as one call of the variant's `what` (setup, write), bounded by `limit`. False if it
    // failed (the task should return at once: nothing more is run). A template, not std::function: a
    // routine that never returns leaves this frame on a task's stack for good, so it holds nothing
    // allocated.
    template <class fn_t> bool call(const char* what, const sc_core::sc_time& limit, fn_t&& fn) {
        if (!begin(what, limit)) return false;
        try {
            fn();
        } catch (const sc_core::sc_unwind_exception&) {
            throw; // SystemC's own: a process being killed or reset
        } catch (const std::exception& e) {
            fail(e.what());
        } catch (...) {
            fail(nullptr);
        }
        end();
        return !failed();
    }
    bool failed() const { return m_error.has_value(); }
    // Throws the failure as a std::runtime_error naming the variant, if there was one, or if the task
    // running the routines did not return (the simulation ran out of events with it still waiting).
    void check(bool task_returned) const;

private:
    bool begin(const char* what, const sc_core::sc_time& limit);
    void fail(const char* why);
    void end();
    void watch();
    std::string m_label;
    std::optional<std::string> m_error;
    const char* m_what = nullptr;
    sc_core::sc_time m_limit, m_deadline;
    bool m_active = false;
    std::uint64_t m_generation = 0;
    sc_core::sc_event m_begin, m_end;
};

// The simulated time a console write of `bytes` bytes may take: 100 ms and 100 character times per
// byte (frame_bits per character at baud).
sc_core::sc_time console_write_limit(std::size_t bytes, unsigned frame_bits, double baud);
// A setup routine: 1 s.
sc_core::sc_time setup_limit();

} // namespace uartvp::program
