// SPDX-License-Identifier: Apache-2.0
#include <uartvp/sw/pl011.h>

namespace uartvp::sw {

using namespace kapi;

// Polling loops are written `spin_while(readl, addr, cond)`: the kernel's
// `while (cond(readl(addr))) cpu_relax();` as one operation of the CPU stub (see kapi::spin_while),
// naming the FR bits cond tests (the PL011 promises BUSY set until the character ends, not to the
// next register change);
// v0-literal keeps the kernel's loops as they are.

void uart_console_write(uart_port& port, std::string_view s, putchar_fn putchar) {
    for (char ch : s) {
        if (ch == '\n') putchar(port, '\r');
        putchar(port, static_cast<unsigned char>(ch));
    }
}

// The full driver's accessors: 16-bit unless the port is 32-bit only.
std::uint32_t pl011_read(const uart_port& port, std::uint32_t reg) {
    return port.iotype32 ? readl(port.membase + reg) : readw(port.membase + reg);
}
void pl011_write(std::uint32_t val, const uart_port& port, std::uint32_t reg) {
    if (port.iotype32)
        writel(val, port.membase + reg);
    else
        writew(static_cast<std::uint16_t>(val), port.membase + reg);
}

// while (keep(pl011_read(port, REG_FR))) cpu_relax();
// `bits`: the FR bits `keep` tests.
static void pl011_spin_while_fr(uart_port& port, const std::function<bool(std::uint32_t)>& keep,
                                std::uint32_t bits) {
    if (port.iotype32)
        spin_while(readl, port.membase + UART01x_FR, keep, bits);
    else
        spin_while(readw, port.membase + UART01x_FR, keep, bits);
}

// earlycon stores DR with an 8-bit write unless mmio32, and reads FR with 32-bit loads.
static void pl011_early_write_dr(uart_port& port, unsigned char c) {
    if (port.iotype32)
        writel(c, port.membase + UART01x_DR);
    else
        writeb(c, port.membase + UART01x_DR);
}

void pl011_putc_v0(uart_port& port, unsigned char c) {
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return fr & UART01x_FR_TXFF; },
        UART01x_FR_TXFF);
    pl011_early_write_dr(port, c);
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return fr & UART01x_FR_BUSY; },
        UART01x_FR_BUSY);
}

void pl011_putc_v0_literal(uart_port& port, unsigned char c) {
    while (readl(port.membase + UART01x_FR) & UART01x_FR_TXFF)
        cpu_relax();
    pl011_early_write_dr(port, c);
    while (readl(port.membase + UART01x_FR) & UART01x_FR_BUSY)
        cpu_relax();
}

void pl011_putc_v1(uart_port& port, unsigned char c) {
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return fr & UART01x_FR_TXFF; },
        UART01x_FR_TXFF);
    pl011_early_write_dr(port, c);
}

void qdf2400_e44_putc(uart_port& port, unsigned char c) {
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return fr & UART01x_FR_TXFF; },
        UART01x_FR_TXFF);
    writel(c, port.membase + UART01x_DR);
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return !(fr & UART011_FR_TXFE); },
        UART011_FR_TXFE);
}

void pl011_early_write_v0(uart_port& port, std::string_view s) {
    uart_console_write(port, s, pl011_putc_v0);
}
void pl011_early_write_v0_literal(uart_port& port, std::string_view s) {
    uart_console_write(port, s, pl011_putc_v0_literal);
}
void pl011_early_write_v1(uart_port& port, std::string_view s) {
    uart_console_write(port, s, pl011_putc_v1);
}

void pl011_early_write_v2(uart_port& port, std::string_view s) {
    uart_console_write(port, s, pl011_putc_v1);
    spin_while(
        readl, port.membase + UART01x_FR, [](std::uint32_t fr) { return fr & UART01x_FR_BUSY; },
        UART01x_FR_BUSY);
}

void qdf2400_e44_early_write(uart_port& port, std::string_view s) {
    uart_console_write(port, s, qdf2400_e44_putc);
}

void pl011_console_putchar(uart_port& port, unsigned char c) {
    pl011_spin_while_fr(
        port, [](std::uint32_t fr) { return fr & UART01x_FR_TXFF; }, UART01x_FR_TXFF);
    pl011_write(c, port, UART01x_DR);
}

void pl011_console_write(uart_port& port, std::string_view s) {
    const vendor_data& vendor = port.vendor ? *port.vendor : vendor_arm;
    irqflags flags;
    local_irq_save(flags);
    spin_lock(port.lock);
    // First save CR, then disable CTS flow control and make sure UART and transmitter are on (a vendor
    // whose UART is always enabled leaves CR alone).
    std::uint32_t old_cr = 0;
    if (!vendor.always_enabled) {
        old_cr = pl011_read(port, UART011_CR);
        std::uint32_t new_cr = old_cr & ~UART011_CR_CTSEN;
        new_cr |= UART01x_CR_UARTEN | UART011_CR_TXE;
        pl011_write(new_cr, port, UART011_CR);
    }

    uart_console_write(port, s, pl011_console_putchar);

    // Wait for the transmitter to become empty, FR bits inverted where an erratum needs it, then
    // restore CR.
    pl011_spin_while_fr(
        port, [&vendor](std::uint32_t fr) { return (fr ^ vendor.inv_fr) & vendor.fr_busy; }, vendor.fr_busy);
    if (!vendor.always_enabled) pl011_write(old_cr, port, UART011_CR);
    spin_unlock(port.lock);
    local_irq_restore(flags);
}

void pl011_firmware_setup(uart_port& port, std::uint32_t ibrd, std::uint32_t fbrd, std::uint32_t lcrh) {
    writel(0, port.membase + UART011_CR);
    writel(ibrd, port.membase + UART011_IBRD);
    writel(fbrd, port.membase + UART011_FBRD);
    writel(lcrh | UART01x_LCRH_FEN, port.membase + UART011_LCRH); // latches IBRD and FBRD
    writel(UART01x_CR_UARTEN | UART011_CR_TXE | UART011_CR_RXE, port.membase + UART011_CR);
}

} // namespace uartvp::sw
