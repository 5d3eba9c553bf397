// SPDX-License-Identifier: Apache-2.0
// The early console of drivers/tty/serial/8250/8250_early.c: its putc (write THR, spin until THRE and
// TEMT) and its port setup (8N1, no interrupts, no FIFO).
#include <uartvp/sw/serial8250.h>

#include "drivers/tty/serial/8250/8250_port.h"

namespace uartvp::sw {

void serial_putc(uart_8250_port& up, unsigned char c) {
    serial_out(up, UART_TX, c);
    auto tx_busy = [](std::uint32_t lsr) { return (lsr & UART_LSR_BOTH_EMPTY) != UART_LSR_BOTH_EMPTY; };
    // for (;;) { if (!tx_busy(serial_in(up, UART_LSR))) break; cpu_relax(); }
    serial_in_poll(up, UART_LSR, tx_busy, 0, 0, UART_LSR_BOTH_EMPTY);
}

void early_serial8250_write(uart_8250_port& up, std::string_view s) {
    uart_console_write(up, s, serial_putc);
}

void early_serial8250_init_port(uart_8250_port& up, std::uint16_t divisor) {
    serial_out(up, UART_LCR, UART_LCR_WLEN8); // 8N1
    const std::uint8_t ier = serial_in(up, UART_IER);
    serial_out(up, UART_IER, ier & UART_IER_UUE); // no interrupts
    serial_out(up, UART_FCR, 0);                  // no FIFO
    serial_out(up, UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
    const std::uint8_t c = serial_in(up, UART_LCR);
    serial_out(up, UART_LCR, c | UART_LCR_DLAB);
    serial_out(up, UART_DLL, divisor & 0xFF);
    serial_out(up, UART_DLM, divisor >> 8);
    serial_out(up, UART_LCR, c & ~UART_LCR_DLAB);
}

} // namespace uartvp::sw
