// SPDX-License-Identifier: Apache-2.0
#pragma once
// The hvc (hypervisor console) layer, as sw-tasks (drivers/tty/hvc/hvc_console.c, hvc_irq.c): a tty
// over a backend's get_chars/put_chars, fed only by __hvc_poll, which runs from the backend's interrupt
// (hvc_handle_interrupt -> hvc_poll) and from the khvcd kthread (may sleep), with khvcd's global timeout
// and backoff, hvc_kick, the output path (hvc_write, hvc_push with -EAGAIN) and throttling.
//
// __hvc_poll's read loop in three versions (hvc_read_loop):
// - loop (up to v4.16): read N_INBUF chunks until get_chars returns nothing or the flip buffer is full,
//   the lock held with IRQs off throughout, from the interrupt and from khvcd alike;
// - latency_break (ec97eaad1383 "hvc_poll() break hv read loop"): one get_chars per call, then ask for
//   another poll (HVC_POLL_READ);
// - batching (seed 004, "hvc_poll() fix read loop batching"): from the interrupt until at least
//   HVC_ATOMIC_READ_MAX bytes were read, then the latency break; from khvcd until empty or the flip
//   buffer is full, dropping the lock and calling cond_resched() between reads.
// The layer's own code costs no simulated time: only the backend's calls, the lock and the scheduler do.
#include <array>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <vector>

#include <uartvp/cpu/kernel.h>

#include <uartvp/sw/tty/tty.h>

namespace uartvp::sw {

constexpr int N_OUTBUF = 16;
constexpr int N_INBUF = 16;
constexpr std::uint32_t MIN_TIMEOUT = 10;   // ms
constexpr std::uint32_t MAX_TIMEOUT = 2000; // ms
constexpr int HVC_ATOMIC_READ_MAX = 128;
constexpr int HVC_POLL_READ = 0x1;
constexpr int HVC_POLL_WRITE = 0x2;

enum class hvc_read_loop { loop, latency_break, batching };

struct hvc_struct;

// struct hv_ops: the backend.
struct hv_ops {
    std::function<int(std::uint32_t vtermno, char* buf, int count)> get_chars;
    std::function<int(std::uint32_t vtermno, const char* buf, int count)> put_chars;
    // Attaches hvc_handle_interrupt to the backend's interrupt (notifier_add_irq); 0 or an error.
    std::function<int(hvc_struct& hp, int irq)> notifier_add;
};

// What one __hvc_poll did, for the probes (the scenario's figures and waves).
struct hvc_poll_record {
    bool may_sleep = false;
    unsigned reads = 0; // get_chars calls that returned data
    unsigned bytes = 0;
    int mask = 0;
};

struct hvc_struct {
    kapi::spinlock lock;
    tty_port port;
    tty_struct* tty = nullptr;
    std::uint32_t vtermno = 0;
    const hv_ops* ops = nullptr;
    int data = 0; // the interrupt
    std::array<char, N_OUTBUF> outbuf{};
    int n_outbuf = 0;
    int outbuf_size = N_OUTBUF;
    bool do_wakeup = false;
    bool irq_requested = false;
};

// The layer's globals (hvc_console.c's statics): the read loop's version, khvcd, hvc_kicked, the
// shared backoff `timeout`, the devices; and the probes.
struct hvc_globals {
    hvc_read_loop version = hvc_read_loop::batching;
    kapi::task_struct* hvc_task = nullptr;
    bool hvc_kicked = false;
    std::uint32_t timeout = MIN_TIMEOUT;
    std::vector<hvc_struct*> hvc_structs;
    // probes
    std::function<void(const hvc_poll_record&)> on_poll;
    std::function<void(bool running)> on_khvcd; // khvcd starts running (true) or goes to sleep
    std::uint64_t khvcd_wakeups = 0, khvcd_timed_sleeps = 0, khvcd_passes = 0;
    sc_core::sc_time khvcd_irq_off_max; // khvcd's hp->lock holds, IRQs off
    std::uint64_t throttled_polls = 0;
    std::uint64_t push_eagain = 0; // hvc_push calls the backend refused (0 or -EAGAIN: kept for later)
};
hvc_globals& hvc_state();

// hvc_init: starts khvcd on `cpu` with this read loop (one hvc layer per simulation).
void hvc_init(hvc_read_loop version, unsigned cpu);
// hvc_alloc: adds the device (its port's flip buffer limit as the version's kernel had it).
void hvc_alloc(hvc_struct& hp, std::uint32_t vtermno, const hv_ops& ops, int irq);
// hvc_open from the tty's open: links the tty, attaches the interrupt, kicks khvcd.
int hvc_open(hvc_struct& hp, tty_struct& tty);

kapi::irqreturn_t hvc_handle_interrupt(int irq, void* dev_id);
void hvc_kick();
int hvc_poll(hvc_struct& hp);
int __hvc_poll(hvc_struct& hp, bool may_sleep);
int hvc_push(hvc_struct& hp);
std::size_t hvc_write(tty_struct& tty, const unsigned char* buf, std::size_t count);
void hvc_unthrottle(tty_struct& tty);
int khvcd(void* unused);

extern const tty_operations hvc_ops;

} // namespace uartvp::sw
