// SPDX-License-Identifier: Apache-2.0
#pragma once
// The console of drivers/tty/serial/amba-pl011.c for printk (<printk/printk.h>): the nbcon console of
// v6.15 and later (pl011_console_write_atomic, pl011_console_write_thread, the device lock) and the
// legacy console before it (pl011_console_write of <pl011.h>). Each honours the vendor's
// always_enabled (the SBSA generic UART: CR is neither saved nor touched, so a CTSEN left on by
// firmware stays on).
#include <uartvp/sw/pl011.h>
#include "kernel/printk/printk.h"
#include <uartvp/sw/serial/serial_core.h>

namespace uartvp::sw {

// nbcon: the whole record in one unsafe section: CR saved and forced (UARTEN | TXE, CTSEN off) unless
// always enabled, the characters, one wait for the vendor's "not busy", CR restored.
void pl011_console_write_atomic(console& co, nbcon_write_context& wctxt);
// nbcon from the printer kthread (device lock held, IRQs off): each character in an unsafe section of
// its own, so a higher priority context can take over between characters; after a takeover it waits
// to own the console again (nbcon_reacquire_nobuf) to restore CR.
void pl011_console_write_thread(console& co, nbcon_write_context& wctxt);
// The device lock (uart_port_lock_irqsave) the kthread holds around each record.
void pl011_console_device_lock(console& co, kapi::irqflags& flags);
void pl011_console_device_unlock(console& co, kapi::irqflags flags);

// The amba-pl011 console ("ttyAMA", CON_PRINTBUFFER) on `port`: the nbcon one (v6.15 and later) or
// the legacy one (before 2eb2608618ce).
void pl011_console_init(console& co, uart_port& port, int index, bool nbcon);

} // namespace uartvp::sw
