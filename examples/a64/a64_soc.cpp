// SPDX-License-Identifier: Apache-2.0
// An SoC with uartvp's aarch64 core: the core, a GICv2 and a PL011 on QEMU virt's map (RAM at
// 0x40000000, the GIC at 0x08000000 and 0x08010000, the PL011 at 0x09000000 on INTID 33), a line monitor
// on TXD. It runs an aarch64 ELF until the image powers off (PSCI SYSTEM_OFF) and the line is idle, and
// prints what the PL011 sent.
//
//   a64_soc IMAGE.elf   exit 0 when the image powered off having sent something, 1 otherwise, 2 for a bad
//                       image, 77 when the core's add-on (libuartvp-a64.so, GPL-2.0) is not installed.
#include <cstdio>
#include <memory>
#include <string>

#include <uartvp/cpu/a64.h>
#include <uartvp/cpu/elf.h>
#include <uartvp/gic.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>

using namespace sc_core;

int sc_main(int argc, char* argv[]) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: a64_soc IMAGE.elf\n");
        return 2;
    }
    std::string why;
    if (!uartvp::cpu::a64_available(&why)) {
        std::fprintf(stderr, "a64_soc: %s\n", why.c_str());
        return 77;
    }
    constexpr std::uint64_t ram = 0x40000000, ram_size = 128u << 20;
    uartvp::cpu::elf_image image;
    try {
        image = uartvp::cpu::read_elf(argv[1], ram, ram_size);
    } catch (const uartvp::cpu::elf_error& e) {
        std::fprintf(stderr, "a64_soc: %s\n", e.what());
        return 2;
    }

    sc_signal<bool> txd{"txd", true}, rxd{"rxd", true}, uart_irq{"uart_irq", false};
    sc_signal<bool> cpu_irq{"cpu_irq", false}, vtimer{"vtimer", false};
    uartvp::router bus("bus");
    uartvp::gicv2 gic("gic");
    uartvp::pl011 uart("uart0"); // 24 MHz UARTCLK: the images program 115200 baud from it
    uartvp::line_monitor monitor("monitor", 115200, uartvp::serial_format{});
    uartvp::cpu::a64_config config; // a 1 GHz core, one cycle per instruction; RAM as above
    config.ram_base = ram;
    config.ram_size = ram_size;
    const std::unique_ptr<uartvp::cpu::a64_core> cpu = uartvp::cpu::make_a64_core("cpu0", config);

    cpu->bus.bind(bus.target);
    cpu->irq(cpu_irq);
    cpu->vtimer_irq(vtimer);
    bus.map(gic.distributor, 0x08000000, uartvp::gicv2::distributor_size, "gicd");
    bus.map(gic.cpu_interface, 0x08010000, uartvp::gicv2::cpu_interface_size, "gicc");
    bus.map(uart.bus, 0x09000000, uartvp::pl011::map_size(), "uart0");
    gic.irq(cpu_irq);
    gic.spi[1](uart_irq);
    gic.ppi[11](vtimer);
    uart.txd(txd);
    uart.rxd(rxd);
    uart.irq(uart_irq);
    monitor.line(txd);
    monitor.keep_text(true);
    cpu->load(image);

    // Until the image stops (or 10 s of simulated time), then until the PL011 has sent everything.
    sc_start(sc_time(10, SC_SEC), SC_EXIT_ON_STARVATION);
    sc_start(sc_time(5, SC_MS), SC_EXIT_ON_STARVATION);
    cpu->finish();
    std::printf("%s", monitor.text().c_str());
    std::fprintf(stderr, "a64_soc: %s after %.3f ms, %llu instructions, %llu characters\n",
                 uartvp::cpu::to_string(cpu->stop_reason()), cpu->local_time().to_seconds() * 1e3,
                 static_cast<unsigned long long>(cpu->stats().instructions),
                 static_cast<unsigned long long>(monitor.chars()));
    return cpu->stop_reason() == uartvp::cpu::a64_stop::system_off && monitor.chars() > 0 ? 0 : 1;
}
