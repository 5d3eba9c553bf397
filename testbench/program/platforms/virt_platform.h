// SPDX-License-Identifier: Apache-2.0
#pragma once
// QEMU's `virt` machine as far as bare-metal UART firmware sees it (docs/firmware.md): the aarch64 core
// (the add-on, <uartvp/cpu/a64.h>) with 128 MiB of RAM at 0x40000000, a GICv2 at 0x08000000 (CPU
// interface 0x08010000), the PL011 RTL at 0x09000000 on SPI 1 (INTID 33), and a 16550 at 0x09100000
// (registers 4 bytes apart, SPI 10, INTID 42), which `virt` does not have. The virtual timer is PPI 27.
// A line monitor on each UART's TXD, an RX injector into the PL011's RXD.
#include <memory>
#include <string>

#include <uartvp/bus_monitor.h>
#include <uartvp/cpu/a64.h>
#include <uartvp/gic.h>
#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/rx_injector.h>
#include <uartvp/serial_terminal.h>
#include <uartvp/uart16550.h>

#include "cli/params.h"

namespace uartvp::program {

class virt_platform : public sc_core::sc_module {
public:
    static constexpr std::uint64_t gic_distributor_base = 0x0800'0000, gic_cpu_interface_base = 0x0801'0000;
    static constexpr std::uint64_t pl011_base = 0x0900'0000, uart16550_base = 0x0910'0000;
    static constexpr std::uint64_t ram_base = 0x4000'0000, ram_size = 128ull << 20;
    static constexpr std::uint64_t mailbox_base = 0x4200'0000, mailbox_max = 64ull << 20;
    static constexpr std::uint64_t config_base = 0x41ff'0000; // the earlycon images' line settings
    static constexpr unsigned pl011_spi = 1, uart16550_spi = 10, vtimer_ppi = 11; // INTIDs 33, 42, 27
    static constexpr std::uint64_t uart16550_clock_hz = 1'843'200;

    sc_core::sc_signal<bool> txd{"txd", true}, rxd{"rxd", true}, uart_irq{"uart_irq", false};
    sc_core::sc_signal<bool> com_txd{"com_txd", true}, com_rxd{"com_rxd", true}, com_irq{"com_irq", false};
    sc_core::sc_signal<bool> cpu_irq{"cpu_irq", false}, vtimer{"vtimer", false};
    sc_core::sc_signal<bool> rxd_unused{"rxd_unused", true}; // the injector's line while a terminal types
    router bus;
    gicv2 gic;
    pl011 uart;
    uart16550 com;
    std::unique_ptr<cpu::a64_core> cpu; // throws cpu::a64_unavailable without the add-on
    line_monitor monitor, com_monitor;
    rx_injector inj;

    // `tap`, if given, sits between the core and the bus (run --bus-log); `term`, if given, shows the
    // PL011's TXD and types into its RXD (run --terminal), and the run lasts as long as it does.
    virt_platform(const sc_core::sc_module_name& name, const params& p, bus_monitor* tap = nullptr,
                  serial_terminal* term = nullptr);

    // Puts an image into RAM; `mailbox` (if not empty) at the payload mailbox: its length, then it.
    void load(const cpu::elf_image& image, const std::string& mailbox = "");
    // Runs until the core has stopped and both lines are idle, the simulation has nothing left to do
    // (the core waits in wfi for nothing), or `limit` of simulated time (zero: none).
    void run(const sc_core::sc_time& limit);
    bool timed_out() const { return m_timed_out; }
    sc_core::sc_time line_idle_at() const { return m_line_idle; }
    unsigned tx_fifo_max() const { return m_tx_fifo_max; }

    static cpu::a64_config core_config(const params& p);
    // Puts the core, the bus, both UARTs and their lines into a run's waves (before the simulation).
    void add_waves(class waves& w);
    // Puts the core's IRQs-off windows, handlers, wfi and polling spans and the FIFO levels into a run's
    // timeline (before the simulation).
    void add_timeline(class timeline& t);
    // The project's firmware image `name` (sw/firmware: hello.elf, earlycon-v0.elf, ...): where the
    // environment's UARTVP_FIRMWARE_DIR, the build tree or the install has it; empty (and `why`) if none.
    static std::string firmware_image(const std::string& name, std::string* why = nullptr);

private:
    void track();
    void supervise();
    params m_p;
    serial_terminal* m_term = nullptr;
    bool m_timed_out = false;
    sc_core::sc_time m_line_idle;
    unsigned m_tx_fifo_max = 0;
};

} // namespace uartvp::program
