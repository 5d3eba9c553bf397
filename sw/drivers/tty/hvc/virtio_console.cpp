// SPDX-License-Identifier: Apache-2.0
#include "drivers/tty/hvc/virtio_console.h"

#include <algorithm>

#include <uartvp/cpu/core.h>

namespace uartvp::sw {

using namespace kapi;

virtio_port& virtio_console() {
    static virtio_port p;
    return p;
}

namespace {
// get_inbuf: the buffer in hand, or the next one from the used ring.
bool get_inbuf(virtio_port& port) {
    if (port.inbuf) return true;
    const std::uint32_t len = readl(port.base + virtio_reg::GET_BUF); // virtqueue_get_buf
    if (!len) return false;
    port.inbuf = true;
    port.len = len;
    port.offset = 0;
    return true;
}

// fill_readbuf: copies out of the buffer; an emptied buffer goes back to the host (add_inbuf, kick).
int fill_readbuf(virtio_port& port, char* out, int count) {
    const std::uint32_t n =
        std::min<std::uint32_t>(static_cast<std::uint32_t>(count), port.len - port.offset);
    for (std::uint32_t i = 0; i < n; ++i)
        out[i] = static_cast<char>(readl(port.base + virtio_reg::DATA));
    port.offset += n;
    if (port.offset == port.len) {
        port.inbuf = false;
        writel(1, port.base + virtio_reg::ADD_BUF);
    }
    return static_cast<int>(n);
}

sc_core::sc_time now() {
    cpu::core::current().sync();
    return cpu::core::current().local_time();
}
} // namespace

void in_intr(virtio_port& port) {
    irqflags flags;
    spin_lock_irqsave(port.inbuf_lock, flags);
    get_inbuf(port);
    spin_unlock_irqrestore(port.inbuf_lock, flags);
    if (port.hvc && hvc_poll(*port.hvc)) hvc_kick(); // a console port
}

// vp_interrupt -> vring_interrupt: the ISR read acknowledges; a used buffer means in_intr.
irqreturn_t vp_interrupt(int, void*) {
    virtio_port& port = virtio_console();
    const sc_core::sc_time start = now();
    ++port.interrupts;
    const std::uint32_t isr = readl(port.base + virtio_reg::ISR);
    if (isr & 1) in_intr(port);
    if (port.on_interrupt) port.on_interrupt(start, now());
    return isr ? IRQ_HANDLED : IRQ_NONE;
}

int get_chars(std::uint32_t, char* buf, int count) {
    virtio_port& port = virtio_console();
    irqflags flags;
    spin_lock_irqsave(port.inbuf_lock, flags);
    int n = 0;
    if (get_inbuf(port)) n = fill_readbuf(port, buf, count); // port_has_data
    spin_unlock_irqrestore(port.inbuf_lock, flags);
    return n;
}

int put_chars(std::uint32_t, const char* buf, int count) {
    for (int i = 0; i < count; ++i)
        writel(static_cast<unsigned char>(buf[i]), virtio_console().base + virtio_reg::OUT_DATA);
    return count;
}

const hv_ops& hv_ops_virtio() {
    static const hv_ops ops{get_chars, put_chars, [](hvc_struct& hp, int) {
                                virtio_console().hvc = &hp; // notifier_add_vio: irq_requested only
                                return 0;
                            }};
    return ops;
}

int virtio_console_probe() {
    return request_irq(virtio_console().irq, vp_interrupt, 0, "virtio0-input", nullptr);
}

} // namespace uartvp::sw
