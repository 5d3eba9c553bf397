// SPDX-License-Identifier: Apache-2.0
#pragma once
// powernv's OPAL console path as sw-tasks: the OPAL firmware calls the console needs
// (arch/powerpc/platforms/powernv/opal.c), the OPAL event interrupt and kopald
// (opal-irqchip.c: opal_interrupt, opal_handle_events), and the hvc backend (drivers/tty/hvc/hvc_opal.c:
// opal_get_chars, opal_put_chars, notifier_add_irq on the console-input event).
//
// A firmware call runs OPAL on the calling core: it costs `call_ns` of that core's time, then reads or
// writes the firmware's console state (uartvp::opal_console's registers, which cost nothing themselves).
// call_ns is 14.7 us: seed 004's trace shows 29.4 us per opal_get_chars of 16 bytes, two calls
// (calibrated, assuming both calls cost the same).
#include <cstdint>
#include <functional>

#include <uartvp/cpu/kernel.h>

#include "drivers/tty/hvc/hvc_console.h"

namespace uartvp::sw {

constexpr std::uint64_t OPAL_EVENT_CONSOLE_INPUT = 0x10;
constexpr std::int64_t OPAL_SUCCESS = 0;

// The firmware's console registers (uartvp::opal_console).
namespace opal_reg {
constexpr std::uint64_t POLL_EVENTS = 0x00, HANDLE_INTERRUPT = 0x04, READ_LEN = 0x08, READ_DATA = 0x0C,
                        WRITE_SPACE = 0x18, WRITE_DATA = 0x1C;
}

// What one run of the console-input handler from opal_handle_events cost: its IRQs-off span
// (local_irq_disable to local_irq_enable).
struct opal_event_record {
    sc_core::sc_time start, end;
};

struct opal_platform {
    kapi::iomem base = 0;
    unsigned long call_ns = 14700;
    unsigned long heartbeat_ms = 200; // ibm,heartbeat-ms (assumed): kopald's timed re-poll
    int irq = -1;                     // the OPAL interrupt line
    std::uint64_t last_outstanding_events = 0;
    kapi::task_struct* kopald_tsk = nullptr;
    // The console-input event's handler (opal_event_request + request_irq): hvc_handle_interrupt.
    std::function<kapi::irqreturn_t(int, void*)> console_handler;
    void* console_dev = nullptr;
    // probes
    std::function<void(const opal_event_record&)> on_event_handled;
    std::function<void(bool in_handler)> on_kopald_handler;
    std::uint64_t firmware_calls = 0, opal_interrupts = 0, kopald_wakeups = 0;
};
opal_platform& opal();

std::int64_t opal_poll_events(std::uint64_t* events);
std::int64_t opal_console_read(std::uint32_t vtermno, std::int64_t* length, char* buffer);
std::int64_t opal_console_write_buffer_space(std::uint32_t vtermno, std::int64_t* length);
std::int64_t opal_console_write(std::uint32_t vtermno, std::int64_t* length, const char* buffer);

// opal_event_init + kopald: the OPAL interrupt's handler requested, kopald started on `cpu`.
int opal_event_init(unsigned cpu);
kapi::irqreturn_t opal_interrupt(int irq, void* data);
void opal_handle_events();
int kopald(void* unused);

int opal_get_chars(std::uint32_t vtermno, char* buf, int count);
int opal_put_chars(std::uint32_t vtermno, const char* buf, int total_len);
// hvc_opal's hv_ops (get_chars, put_chars, notifier_add_irq on the console-input event).
const hv_ops& hvc_opal_raw_ops();

} // namespace uartvp::sw
