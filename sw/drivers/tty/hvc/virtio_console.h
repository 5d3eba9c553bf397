// SPDX-License-Identifier: Apache-2.0
#pragma once
// The virtio console's input side as sw-tasks (drivers/char/virtio_console.c, a console port): the
// input virtqueue's interrupt (vp_interrupt -> in_intr: take the filled buffer, then hvc_poll and
// hvc_kick), get_chars (a copy out of the buffer taken, which goes back to the host once empty) and
// put_chars, over uartvp::virtio_console_rx's registers.
#include <cstdint>
#include <functional>

#include <uartvp/cpu/kernel.h>

#include "drivers/tty/hvc/hvc_console.h"

namespace uartvp::sw {

namespace virtio_reg {
constexpr std::uint64_t ISR = 0x00, USED = 0x04, GET_BUF = 0x08, DATA = 0x0C, ADD_BUF = 0x10, OUT_DATA = 0x1C;
}

struct virtio_port {
    kapi::iomem base = 0;
    int irq = -1;
    kapi::spinlock inbuf_lock;
    bool inbuf = false; // a used buffer is in the guest's hands
    std::uint32_t len = 0, offset = 0;
    hvc_struct* hvc = nullptr;
    // probes: the interrupt's handler span (entry and exit costs not included)
    std::function<void(const sc_core::sc_time& start, const sc_core::sc_time& end)> on_interrupt;
    std::uint64_t interrupts = 0;
};
virtio_port& virtio_console();

kapi::irqreturn_t vp_interrupt(int irq, void* opaque);
void in_intr(virtio_port& port);
int get_chars(std::uint32_t vtermno, char* buf, int count);
int put_chars(std::uint32_t vtermno, const char* buf, int count);
const hv_ops& hv_ops_virtio();
// The virtio device's probe: the virtqueue's interrupt requested.
int virtio_console_probe();

} // namespace uartvp::sw
