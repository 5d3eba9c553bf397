// SPDX-License-Identifier: Apache-2.0
// Plugins the program must refuse (exit 2), one per BAD_PLUGIN value.
#include <uartvp/plugin.h>

using namespace uartvp::sw;

namespace {
void write(uart_port&, std::string_view) {}

// A hook kind of a scenario that does not exist, and one that tty-paste does not take.
struct other_scenario_hook {
    static constexpr const char* scenario = "no-such-scenario";
    static constexpr const char* kind = "no-such-scenario/write";
    void (*write)(uart_port&, std::string_view);
};
struct tty_paste_hook {
    static constexpr const char* scenario = "tty-paste";
    static constexpr const char* kind = "tty-paste/console-write";
    void (*write)(uart_port&, std::string_view);
};
} // namespace

#if BAD_PLUGIN == 1 // no entry point
extern "C" __attribute__((visibility("default"))) int uartvp_something_else() {
    return 0;
}
#elif BAD_PLUGIN == 2 // another ABI
extern "C" __attribute__((visibility("default"))) uartvp::plugin::abi_info uartvp_plugin_abi() {
    return {uartvp::plugin::abi_version + 1, sizeof(uart_port), sizeof(uart_8250_port),
            sizeof(uartvp::plugin::registry)};
}
extern "C" __attribute__((visibility("default"))) void uartvp_plugin_register(uartvp::plugin::registry&) {}
#else
UARTVP_PLUGIN(r) {
#if BAD_PLUGIN == 3 // a built-in variant's name
    r.add("v0", "taken", uartvp::plugin::earlycon_pl011_hook{write});
#elif BAD_PLUGIN == 4
    r.add("elsewhere", "no such scenario", other_scenario_hook{write});
#elif BAD_PLUGIN == 5
    r.add("tty-mine", "a kind tty-paste does not take", tty_paste_hook{write});
#elif BAD_PLUGIN == 6
    r.add("bad name", "a space in its name", uartvp::plugin::earlycon_pl011_hook{write});
#elif BAD_PLUGIN == 7
    (void)r; // registers nothing
#elif BAD_PLUGIN == 8 // another plugin's name (routines.cpp has literal-v0)
    r.add("literal-v0", "taken by the other plugin", uartvp::plugin::earlycon_pl011_hook{write});
#endif
}
#endif
