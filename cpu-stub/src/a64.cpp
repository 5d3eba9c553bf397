// SPDX-License-Identifier: Apache-2.0
// Finding and loading the aarch64 core's add-on (<uartvp/cpu/a64.h>): the program links no GPL code,
// it opens libuartvp-a64.so when asked for the core.
#include <uartvp/cpu/a64.h>

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

namespace uartvp::cpu {

const char* to_string(a64_stop s) {
    switch (s) {
    case a64_stop::running:
        return "running";
    case a64_stop::system_off:
        return "system_off";
    case a64_stop::system_reset:
        return "system_reset";
    case a64_stop::halted:
        return "halted";
    case a64_stop::fault:
        return "fault";
    }
    return "?";
}

namespace {

using create_fn = a64_core* (*)(const char* name, const a64_config* config);
constexpr const char* library_name = "libuartvp-a64.so";
constexpr const char* create_symbol = "uartvp_a64_create";

struct loaded {
    create_fn create = nullptr;
    std::string why; // empty when loaded
};

// Where to look, in order: the environment's choice, beside this library (an install: lib/uartvp/), the
// build tree, the configured install, the search path.
std::vector<std::string> candidates() {
    std::vector<std::string> c;
    if (const char* env = std::getenv("UARTVP_A64_LIBRARY"); env && *env) return {env};
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&a64_available), &self) && self.dli_fname) {
        const std::string lib = self.dli_fname;
        const auto slash = lib.rfind('/');
        if (slash != std::string::npos) c.push_back(lib.substr(0, slash) + "/uartvp/" + library_name);
    }
#ifdef UARTVP_A64_DIRS
    std::istringstream dirs(UARTVP_A64_DIRS);
    for (std::string d; std::getline(dirs, d, ':');)
        if (!d.empty()) c.push_back(d + "/" + library_name);
#endif
    c.push_back(library_name);
    return c;
}

const loaded& library() {
    static loaded l;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string errors;
        for (const std::string& path : candidates()) {
            void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                errors += errors.empty() ? "" : "; ";
                errors += dlerror();
                continue;
            }
            if (auto f = reinterpret_cast<create_fn>(dlsym(h, create_symbol))) {
                l.create = f;
                return;
            }
            errors += errors.empty() ? "" : "; ";
            errors += path + " has no " + create_symbol;
            dlclose(h);
        }
        l.why = "the aarch64 core's add-on (" + std::string(library_name) +
                ", built when libunicorn-dev is installed) cannot be loaded: " + errors;
    });
    return l;
}

} // namespace

bool a64_available(std::string* why) {
    const loaded& l = library();
    if (!l.create && why) *why = l.why;
    return l.create != nullptr;
}

std::unique_ptr<a64_core> make_a64_core(const std::string& name, const a64_config& config) {
    const loaded& l = library();
    if (!l.create) throw a64_unavailable(l.why);
    return std::unique_ptr<a64_core>(l.create(name.c_str(), &config));
}

} // namespace uartvp::cpu
