// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn: the guard's watch
#include "plugins/plugins.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <stdexcept>

#include "cli/params.h"
#include "scenarios/scenario.h"

namespace uartvp::program {

using namespace sc_core;

namespace {

std::deque<plugin_variant>& loaded() {
    static std::deque<plugin_variant> all;
    return all;
}

bool valid_name(const std::string& n) {
    if (n.empty() || n.size() > 64) return false;
    return std::all_of(n.begin(), n.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_' || c == '.';
    });
}

class registry_impl final : public plugin::registry {
public:
    explicit registry_impl(std::string file)
        : m_file(std::move(file)) {}
    unsigned added = 0;

protected:
    void add_hook(const char* scenario, const char* kind, const std::string& name,
                  const std::string& description, std::shared_ptr<const void> hook) override {
        scenario_def* s = find_scenario_for_plugins(scenario ? scenario : "");
        if (!s) throw std::invalid_argument("variant '" + shown(name) + "': no scenario " + shown(scenario));
        if (std::find(s->plugin_kinds.begin(), s->plugin_kinds.end(), kind) == s->plugin_kinds.end())
            throw std::invalid_argument("variant '" + shown(name) + "': " + s->name +
                                        " takes no hook of kind " + shown(kind));
        if (!valid_name(name))
            throw std::invalid_argument("variant name '" + shown(name) + "'" +
                                        ": expected 1 to 64 letters, digits, '-', '_' or '.'");
        for (const named& v : s->variants)
            if (v.name == name) {
                const plugin_variant* other = find_plugin_variant(s->name, name);
                throw std::invalid_argument("variant " + name + " of " + s->name + " is taken already" +
                                            (other ? " (by " + shown(other->file) + ")" : " (built in)"));
            }
        if (!hook) throw std::invalid_argument("variant " + name + ": no hook");
        loaded().push_back({s->name, kind, name, description, m_file, std::move(hook)});
        s->variants.push_back({name, description + " [plugin " + m_file + "]"});
        ++added;
    }

private:
    std::string m_file;
};

// dlerror()'s message without the file name it starts with (the error names the file itself).
std::string dl_reason(const std::string& path) {
    const char* e = dlerror();
    std::string why = e ? e : "unknown reason";
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    return why;
}

void load_one(const std::string& file, std::vector<std::string>& seen) {
    const std::string what = "--plugin " + shown(file);
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) throw usage_error(what + ": no such file");
    if (!S_ISREG(st.st_mode)) throw usage_error(what + ": not a regular file");
    char* real = realpath(file.c_str(), nullptr);
    if (!real) throw usage_error(what + ": cannot resolve its path");
    const std::string path = real;
    std::free(real);
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) throw usage_error(what + " given twice");
    seen.push_back(path);
    // RTLD_NOW: a routine calling a function this program does not provide fails here, not mid-run.
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw usage_error(what + ": cannot be loaded: " + shown(dl_reason(path)));
    dlerror();
    using abi_fn = plugin::abi_info (*)();
    using register_fn = void (*)(plugin::registry&);
    auto abi = reinterpret_cast<abi_fn>(dlsym(h, "uartvp_plugin_abi"));
    auto reg = reinterpret_cast<register_fn>(dlsym(h, "uartvp_plugin_register"));
    if (!abi || !reg)
        throw usage_error(what + ": no entry point (uartvp_plugin_abi and uartvp_plugin_register: "
                                 "write UARTVP_PLUGIN(registry) { ... } in one of its sources)");
    const plugin::abi_info a = abi();
    const plugin::abi_info mine{plugin::abi_version, sizeof(sw::uart_port), sizeof(sw::uart_8250_port),
                                sizeof(plugin::registry)};
    if (a.version != mine.version)
        throw usage_error(what + ": built for plugin ABI " + std::to_string(a.version) +
                          ", this uartvp has " + std::to_string(mine.version) +
                          " (rebuild it against this package)");
    if (a.uart_port_size != mine.uart_port_size || a.uart_8250_port_size != mine.uart_8250_port_size ||
        a.registry_size != mine.registry_size)
        throw usage_error(what + ": built against other headers of plugin ABI " + std::to_string(a.version) +
                          " (structure sizes differ: rebuild it against this package)");
    registry_impl r(file);
    try {
        reg(r);
    } catch (const std::exception& e) {
        throw usage_error(what + ": " + e.what());
    } catch (...) {
        throw usage_error(what + ": its registration threw");
    }
    if (r.added == 0) throw usage_error(what + ": adds no variant");
    // The handle stays open: its routines run until the process ends.
}

} // namespace

void load_plugins(const std::vector<std::string>& files) {
    std::vector<std::string> seen;
    for (const std::string& f : files)
        load_one(f, seen);
}

const plugin_variant* find_plugin_variant(const std::string& scenario, const std::string& name) {
    for (const plugin_variant& v : loaded())
        if (v.scenario == scenario && v.name == name) return &v;
    return nullptr;
}

// ---- plugin_guard

plugin_guard::plugin_guard(const plugin_variant& v)
    : m_label("variant " + v.name + " (plugin " + v.file + ")") {
    sc_spawn([this] { watch(); }, "plugin_guard");
}

bool plugin_guard::begin(const char* what, const sc_time& limit) {
    if (m_error) return false;
    m_what = what;
    m_limit = limit;
    m_active = true;
    ++m_generation;
    m_begin.notify();
    return true;
}

void plugin_guard::fail(const char* why) {
    m_error =
        m_label + ": its " + m_what + " routine threw" + (why ? std::string(": ") + why : " an exception");
}

void plugin_guard::end() {
    m_active = false;
    m_end.notify();
}

void plugin_guard::watch() {
    for (;;) {
        if (!m_active) wait(m_begin);
        if (!m_active) continue;
        const std::uint64_t gen = m_generation;
        const sc_time deadline = sc_time_stamp() + m_limit;
        while (m_active && m_generation == gen && sc_time_stamp() < deadline)
            wait(deadline - sc_time_stamp(), m_end);
        if (m_active && m_generation == gen) {
            m_error = m_label + ": its " + m_what + " routine has not returned after " + m_limit.to_string() +
                      " of simulated time";
            sc_stop();
            return;
        }
    }
}

void plugin_guard::check(bool task_returned) const {
    if (m_error) throw std::runtime_error(*m_error);
    if (!task_returned)
        throw std::runtime_error(
            m_label + ": its " + (m_what ? m_what : "setup") +
            " routine never returned: a polling loop waits for a change that cannot come");
}

sc_time console_write_limit(std::size_t bytes, unsigned frame_bits, double baud) {
    return sc_time(100, SC_MS) + sc_time(100.0 * static_cast<double>(bytes) * frame_bits / baud, SC_SEC);
}

sc_time setup_limit() {
    return sc_time(1, SC_SEC);
}

} // namespace uartvp::program
