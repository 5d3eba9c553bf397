// SPDX-License-Identifier: Apache-2.0
#pragma once
// The 8250 console for printk (<printk/printk.h>), on the port routines of <serial8250.h>: the legacy
// console of mainline (serial8250_console_write, IRQs off through the port lock for each record), and
// the nbcon console of the 8250 nbcon patches that mainline reverted (write_atomic, write_thread and the
// device lock). Both save IER and clear it for the record, wait for THRE before each character on a
// UART_CAP_MINI port (its THRE means "the FIFO can take a byte": no FIFO path), wait for THRE|TEMT
// and restore IER; MSR deltas the CTS waits saw go to serial8250_modem_status(), which write_atomic
// defers to an irq_work (its context may not wake tasks).
#include <cstdint>

#include <uartvp/cpu/kernel.h>

#include "kernel/printk/printk.h"
#include <uartvp/sw/serial8250.h>

namespace uartvp::sw {

// What the console's data points at: the port and the nbcon patches' modem-status irq_work (kept
// outside uart_8250_port, which the interrupt path reaches through container_of).
struct serial8250_console_port {
    uart_8250_port* up = nullptr;
    kapi::irq_work modem_status_work;
    // The model's counters: modem-status calls deferred to the irq_work, and run from it.
    std::uint64_t modem_status_deferred = 0, modem_status_from_irq_work = 0;
};

// nbcon, atomic (the replay at registration, panic, emergencies): the record in one unsafe section
// but for a friendly takeover point between characters; the modem status deferred to the irq_work.
void serial8250_console_write_atomic(console& co, nbcon_write_context& wctxt);
// nbcon from the printer kthread (device lock held): the same, the modem status read directly.
void serial8250_console_write_thread(console& co, nbcon_write_context& wctxt);
void serial8250_console_device_lock(console& co, kapi::irqflags& flags);
void serial8250_console_device_unlock(console& co, kapi::irqflags flags);

// The 8250 console ("ttyS", CON_PRINTBUFFER) on `cp.up`: nbcon (the reverted patches) or legacy
// (mainline since v6.14: serial8250_console_write_v6_14).
void serial8250_console_init(console& co, serial8250_console_port& cp, int index, bool nbcon);

} // namespace uartvp::sw
