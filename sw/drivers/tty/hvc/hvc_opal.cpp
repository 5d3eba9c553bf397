// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/hvc/hvc_opal.h"

#include <uartvp/cpu/core.h>

namespace uartvp::sw {

using namespace kapi;

opal_platform& opal() {
    static opal_platform p;
    return p;
}

namespace {
void firmware_call() {
    ++opal().firmware_calls;
    ndelay(opal().call_ns);
}
bool opal_have_pending_events() {
    return (opal().last_outstanding_events & OPAL_EVENT_CONSOLE_INPUT) != 0;
}
void opal_wake_poller() {
    if (opal().kopald_tsk) wake_up_process(opal().kopald_tsk);
}
sc_core::sc_time now() {
    cpu::core::current().sync();
    return cpu::core::current().local_time();
}
} // namespace

std::int64_t opal_poll_events(std::uint64_t* events) {
    firmware_call();
    *events = readl(opal().base + opal_reg::POLL_EVENTS);
    return OPAL_SUCCESS;
}

std::int64_t opal_console_read(std::uint32_t, std::int64_t* length, char* buffer) {
    firmware_call();
    const iomem b = opal().base;
    writel(static_cast<std::uint32_t>(*length), b + opal_reg::READ_LEN);
    const std::uint32_t n = readl(b + opal_reg::READ_LEN);
    for (std::uint32_t i = 0; i < n; ++i)
        buffer[i] = static_cast<char>(readl(b + opal_reg::READ_DATA));
    *length = n;
    return OPAL_SUCCESS;
}

std::int64_t opal_console_write_buffer_space(std::uint32_t, std::int64_t* length) {
    firmware_call();
    *length = readl(opal().base + opal_reg::WRITE_SPACE);
    return OPAL_SUCCESS;
}

std::int64_t opal_console_write(std::uint32_t, std::int64_t* length, const char* buffer) {
    firmware_call();
    for (std::int64_t i = 0; i < *length; ++i)
        writel(static_cast<unsigned char>(buffer[i]), opal().base + opal_reg::WRITE_DATA);
    return OPAL_SUCCESS;
}

// The real OPAL interrupt: the firmware says which events are pending; kopald handles them.
irqreturn_t opal_interrupt(int, void*) {
    ++opal().opal_interrupts;
    firmware_call(); // opal_handle_interrupt
    opal().last_outstanding_events = readl(opal().base + opal_reg::HANDLE_INTERRUPT);
    if (opal_have_pending_events()) opal_wake_poller();
    return IRQ_HANDLED;
}

// Each pending event's handler with IRQs off, as in hard-IRQ context (irq_enter/irq_exit, not costed),
// then a fresh opal_poll_events: again while events remain.
void opal_handle_events() {
    opal_platform& o = opal();
    std::uint64_t e = o.last_outstanding_events & OPAL_EVENT_CONSOLE_INPUT;
    for (;;) {
        while (e) {
            e = 0; // one event is requested: the console's input
            irqflags flags;
            local_irq_save(flags); // local_irq_disable
            opal_event_record rec;
            rec.start = now();
            if (o.on_kopald_handler) o.on_kopald_handler(true);
            if (o.console_handler) o.console_handler(0, o.console_dev); // generic_handle_irq
            rec.end = now();
            if (o.on_kopald_handler) o.on_kopald_handler(false);
            local_irq_restore(flags); // local_irq_enable
            if (o.on_event_handled) o.on_event_handled(rec);
            cond_resched();
        }
        o.last_outstanding_events = 0;
        std::uint64_t events = 0;
        if (opal_poll_events(&events) != OPAL_SUCCESS) return;
        e = events & OPAL_EVENT_CONSOLE_INPUT;
        if (!e) return;
    }
}

int kopald(void*) {
    const long timeout = static_cast<long>(msecs_to_jiffies(static_cast<unsigned>(opal().heartbeat_ms))) + 1;
    do {
        opal_handle_events();
        if (task_struct* t = current_task()) t->woken = false; // set_current_state(TASK_INTERRUPTIBLE)
        if (!opal_have_pending_events()) {
            schedule_timeout(timeout);
            ++opal().kopald_wakeups;
        }
    } while (!kthread_should_stop());
    return 0;
}

int opal_event_init(unsigned cpu) {
    const int rc = request_irq(opal().irq, opal_interrupt, 0, "opal", nullptr);
    if (rc) return rc;
    opal().kopald_tsk = kthread_run_on_cpu(kopald, nullptr, cpu, "kopald");
    return 0;
}

// Input: poll the events first; no console input, nothing to read; else one console read.
int opal_get_chars(std::uint32_t vtermno, char* buf, int count) {
    std::uint64_t evt = 0;
    opal_poll_events(&evt);
    if ((evt & OPAL_EVENT_CONSOLE_INPUT) == 0) return 0;
    std::int64_t len = count;
    if (opal_console_read(vtermno, &len, buf) != OPAL_SUCCESS) return 0;
    return static_cast<int>(len);
}

// Output (__opal_put_chars, not atomic): all of it if the firmware's buffer has room, else -EAGAIN.
int opal_put_chars(std::uint32_t vtermno, const char* buf, int total_len) {
    static spinlock opal_write_lock;
    irqflags flags;
    spin_lock_irqsave(opal_write_lock, flags);
    std::int64_t olen = 0;
    int written;
    if (opal_console_write_buffer_space(vtermno, &olen) != OPAL_SUCCESS || olen < total_len) {
        written = -EAGAIN;
    } else {
        olen = total_len;
        opal_console_write(vtermno, &olen, buf);
        written = static_cast<int>(olen);
    }
    spin_unlock_irqrestore(opal_write_lock, flags);
    return written;
}

const hv_ops& hvc_opal_raw_ops() {
    static const hv_ops ops{opal_get_chars, opal_put_chars, [](hvc_struct& hp, int) {
                                // notifier_add_irq: request_irq on the console-input event's interrupt
                                opal().console_handler = hvc_handle_interrupt;
                                opal().console_dev = &hp;
                                return 0;
                            }};
    return ops;
}

} // namespace uartvp::sw
