// SPDX-License-Identifier: Apache-2.0
#pragma once
// Plugins for the uartvp program: driver routines of your own, built against the installed package
// (uartvp_add_plugin() in CMake) and loaded with `uartvp run SCENARIO --plugin ./libmine.so`. A plugin
// registers variants of scenarios; each variant is a hook of the kind its scenario takes (below).
//
//     #include <uartvp/plugin.h>
//     using namespace uartvp::kapi;
//     using namespace uartvp::sw;
//     static void my_putc(uart_port& port, unsigned char c) {
//         while (readl(port.membase + UART01x_FR) & UART01x_FR_TXFF)
//             cpu_relax();
//         writeb(c, port.membase + UART01x_DR);
//     }
//     static void my_write(uart_port& port, std::string_view s) { uart_console_write(port, s, my_putc); }
//     UARTVP_PLUGIN(registry) {
//         registry.add("my-putc", "my pl011_putc patch", uartvp::plugin::earlycon_pl011_hook{my_write});
//     }
//
// The routines run on the program's simulated cores: they reach the hardware only through the
// kernel-like API (<uartvp/cpu/kernel.h>), whose functions the program itself provides.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <uartvp/cpu/kernel.h>
#include <uartvp/sw/pl011.h>
#include <uartvp/sw/serial8250.h>

namespace uartvp::plugin {

// Raised whenever the hooks, the registry or the structures they hand over change shape.
inline constexpr unsigned abi_version = 1;

// What a plugin was built against; the program refuses one whose figures differ from its own.
struct abi_info {
    unsigned version;
    std::size_t uart_port_size, uart_8250_port_size, registry_size;
};

// ---- Hook kinds. Each names the scenario it belongs to and a `kind` string the scenario asks for; a
// new scenario declares its own struct the same way, and the registry needs no change.

// earlycon-pl011: the console write, one call per printk record (the text without the '\r's: the
// routine adds them, as uart_console_write does). The port is set up as firmware leaves it (divisor,
// frame, FIFO on, UART and TX enabled), at port.membase; setup, if given, runs once before the first
// write, on the same core.
struct earlycon_pl011_hook {
    static constexpr const char* scenario = "earlycon-pl011";
    static constexpr const char* kind = "earlycon-pl011/console-write";
    std::function<void(sw::uart_port&, std::string_view)> write;
    std::function<void(sw::uart_port&)> setup = nullptr;
};

// console-8250: the same for the 8250 console on a 16550A: the port as serial8250_startup() leaves it
// (FIFO enabled, initialised; its iotype, base and regshift from the profile), setup optional.
struct console_8250_hook {
    static constexpr const char* scenario = "console-8250";
    static constexpr const char* kind = "console-8250/console-write";
    std::function<void(sw::uart_8250_port&, std::string_view)> write;
    std::function<void(sw::uart_8250_port&)> setup = nullptr;
};

// boot-console: the real console's write as a legacy console (mainline printk: console_unlock writes
// each record with IRQs off; the rest of the boot as variant `legacy`), one routine per profile's UART:
// `pl011_write` on grace (the SBSA PL011 as firmware leaves it, at port.membase), `serial8250_write`
// on rpi3b (the mini UART's 8250 port: MMIO32, reg-shift 2, UART_CAP_MINI). A profile whose routine is
// not given refuses the variant (run: exit 2; compare and sweep leave it out, saying why).
struct boot_console_hook {
    static constexpr const char* scenario = "boot-console";
    static constexpr const char* kind = "boot-console/console-write";
    std::function<void(sw::uart_port&, std::string_view)> pl011_write = nullptr;
    std::function<void(sw::uart_8250_port&, std::string_view)> serial8250_write = nullptr;
};

// Where a plugin puts its variants. `add` refuses (throws std::invalid_argument, and the program
// exits 2) a name that is empty, holds a character other than letters, digits, '-', '_' and '.',
// is taken already (by a built-in variant or another plugin's), or a hook whose scenario does not exist
// or does not take that kind.
class registry {
public:
    template <class hook_t> void add(const std::string& name, const std::string& description, hook_t hook) {
        add_hook(hook_t::scenario, hook_t::kind, name, description,
                 std::make_shared<const hook_t>(std::move(hook)));
    }

protected:
    registry() = default;
    registry(const registry&) = delete;
    registry& operator=(const registry&) = delete;
    ~registry() = default;
    virtual void add_hook(const char* scenario, const char* kind, const std::string& name,
                          const std::string& description, std::shared_ptr<const void> hook) = 0;
};

} // namespace uartvp::plugin

// The plugin's entry points: its ABI figures and its registration function. Write
//     UARTVP_PLUGIN(r) { r.add(...); }
// once in one source file of the plugin.
#define UARTVP_PLUGIN(registry_name)                                                                         \
    extern "C" __attribute__((visibility("default"))) uartvp::plugin::abi_info uartvp_plugin_abi() {         \
        return {uartvp::plugin::abi_version, sizeof(uartvp::sw::uart_port),                                  \
                sizeof(uartvp::sw::uart_8250_port), sizeof(uartvp::plugin::registry)};                       \
    }                                                                                                        \
    extern "C" __attribute__((visibility("default"))) void uartvp_plugin_register(                           \
        uartvp::plugin::registry& registry_name)
