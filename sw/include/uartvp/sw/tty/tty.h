// SPDX-License-Identifier: Apache-2.0
#pragma once
// A minimal tty layer in raw mode, as sw-tasks (drivers/tty/tty_buffer.c, n_tty.c, tty_io.c): the
// flip buffer a UART driver fills from its interrupt handler, tty_flip_buffer_push queuing the line
// discipline's work (flush_to_ldisc) on a kworker, the line discipline's read buffer, a reader taking
// the bytes in order, and the port's transmit buffer (xmit_fifo) a writer fills through the driver.
//
// Raw mode (cfmakeraw): no echo processing, no '\n' translation, no signals, VMIN 1 and VTIME 0; bytes
// pass as they are. A TTY_OVERRUN flag character tells the line discipline that input was lost: it
// counts it and puts nothing in the read buffer; a break reads as '\0'; a character with a parity or
// framing error is read as it came (INPCK off). The layer's own code costs no simulated time: only
// register accesses, delays and the scheduler do.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include <uartvp/cpu/kernel.h>

namespace uartvp::sw {

// Flag characters of the flip buffer (include/linux/tty_flags.h).
enum tty_flag : std::uint8_t {
    TTY_NORMAL = 0,
    TTY_BREAK = 1,
    TTY_FRAME = 2,
    TTY_PARITY = 3,
    TTY_OVERRUN = 4
};

constexpr std::size_t UART_XMIT_SIZE = 4096;               // PAGE_SIZE: the port's transmit buffer
constexpr std::size_t WAKEUP_CHARS = 256;                  // writers are woken when fewer are pending
constexpr std::size_t N_TTY_BUF_SIZE = 4096;               // the line discipline's read buffer
constexpr std::size_t TTYB_DEFAULT_MEM_LIMIT = 640 * 1024; // characters the flip buffer may hold
// n_tty throttles the driver when fewer than this many bytes of its read buffer are free, and
// unthrottles once a read leaves at least as many free again (TTY_THRESHOLD_THROTTLE/UNTHROTTLE).
constexpr std::size_t TTY_THRESHOLD_THROTTLE = 128;
constexpr std::size_t TTY_THRESHOLD_UNTHROTTLE = 128;

// The transmit buffer: a kfifo of one page.
class xmit_kfifo {
public:
    std::size_t len() const { return m_in - m_out; }
    std::size_t avail() const { return UART_XMIT_SIZE - len(); }
    bool is_empty() const { return m_in == m_out; }
    // kfifo_in: copies what fits, returns how many.
    std::size_t in(const unsigned char* buf, std::size_t n);
    bool peek(unsigned char& c) const;
    void skip() { ++m_out; }
    bool get(unsigned char& c);

private:
    std::array<unsigned char, UART_XMIT_SIZE> m_buf{};
    std::uint64_t m_in = 0, m_out = 0;
};

struct tty_struct;

// The tty driver's operations the tty layer calls (struct tty_operations).
struct tty_operations {
    std::size_t (*write)(tty_struct& tty, const unsigned char* buf, std::size_t count);
    void (*unthrottle)(tty_struct& tty) = nullptr; // the line discipline has room again (optional)
};

struct flip_char {
    unsigned char ch;
    tty_flag flag;
};

// struct tty_port: the flip buffer (its characters committed by tty_flip_buffer_push, and those not
// yet), the work that hands them to the line discipline, and the transmit buffer.
struct tty_port {
    std::deque<flip_char> buf_pending;   // inserted since the last push
    std::deque<flip_char> buf_committed; // pushed, not yet taken by the line discipline
    kapi::work_struct work;              // flush_to_ldisc
    xmit_kfifo xmit_fifo;
    tty_struct* itty = nullptr;
    std::uint64_t buf_dropped = 0; // characters the full flip buffer refused
    // The flip buffer's limit: TTYB_DEFAULT_MEM_LIMIT (640 KiB since v4.x; 64 KiB before).
    std::size_t mem_limit = TTYB_DEFAULT_MEM_LIMIT;
    // The kworker flush_to_ldisc runs on: -1, the pushing CPU's (the tty's unbound workqueue picks the
    // local one); else that CPU's (the model has no migration: an unbound work item placed on a core).
    int flush_cpu = -1;
    tty_port();
    tty_port(const tty_port&) = delete; // its work refers to it
    tty_port& operator=(const tty_port&) = delete;
};

// struct tty_struct with the n_tty line discipline's data (raw mode).
struct tty_struct {
    tty_port* port = nullptr;
    const tty_operations* ops = nullptr;
    void* driver_data = nullptr; // the serial core's uart_state
    std::deque<unsigned char> read_buf;
    kapi::wait_queue_head read_wait, write_wait;
    std::uint64_t overruns_reported = 0; // TTY_OVERRUN flags the line discipline saw ("input overrun(s)")
    std::uint64_t received = 0;          // characters put into the read buffer
    bool throttled = false;              // TTY_THROTTLED: the read buffer is nearly full
    std::uint64_t throttles = 0;         // times it was throttled
};

// Links a port and its tty (tty_port_install / tty_port_open).
void tty_port_link(tty_port& port, tty_struct& tty);

// Driver side, from the interrupt handler: one character with its flag; false (and dropped) if the
// flip buffer is full.
bool tty_insert_flip_char(tty_port& port, unsigned char ch, tty_flag flag);
// Room for up to `size` more characters in the flip buffer: how many fit (0 when it is full).
std::size_t tty_buffer_request_room(tty_port& port, std::size_t size);
bool tty_throttled(const tty_struct& tty);
// Commits what was inserted and queues the line discipline's work on this CPU's kworker (the tty's
// unbound workqueue picks the local one).
void tty_flip_buffer_push(tty_port& port);
// The port's work: hands committed characters to the line discipline as it has room, wakes readers.
void flush_to_ldisc(tty_port& port);

// Task side, blocking: n_tty_read returns 1 to nr bytes once at least one is there (VMIN 1, VTIME 0);
// tty_write hands all of buf to the driver, sleeping on write_wait while its buffer is full.
std::size_t n_tty_read(tty_struct& tty, unsigned char* buf, std::size_t nr);
std::size_t tty_write(tty_struct& tty, const unsigned char* buf, std::size_t nr);
// The driver has room again (uart_write_wakeup): wakes writers.
void tty_wakeup(tty_struct& tty);

} // namespace uartvp::sw
