// SPDX-License-Identifier: Apache-2.0
#include <uartvp/sw/tty/tty.h>

#include <algorithm>

namespace uartvp::sw {

using namespace kapi;

std::size_t xmit_kfifo::in(const unsigned char* buf, std::size_t n) {
    const std::size_t k = std::min(n, avail());
    for (std::size_t i = 0; i < k; ++i)
        m_buf[(m_in + i) % UART_XMIT_SIZE] = buf[i];
    m_in += k;
    return k;
}

bool xmit_kfifo::peek(unsigned char& c) const {
    if (is_empty()) return false;
    c = m_buf[m_out % UART_XMIT_SIZE];
    return true;
}

bool xmit_kfifo::get(unsigned char& c) {
    if (!peek(c)) return false;
    skip();
    return true;
}

tty_port::tty_port() {
    work.func = [this](work_struct*) { flush_to_ldisc(*this); };
}

void tty_port_link(tty_port& port, tty_struct& tty) {
    port.itty = &tty;
    tty.port = &port;
}

bool tty_insert_flip_char(tty_port& port, unsigned char ch, tty_flag flag) {
    if (port.buf_pending.size() + port.buf_committed.size() >= port.mem_limit) {
        ++port.buf_dropped;
        return false;
    }
    port.buf_pending.push_back({ch, flag});
    return true;
}

std::size_t tty_buffer_request_room(tty_port& port, std::size_t size) {
    const std::size_t used = port.buf_pending.size() + port.buf_committed.size();
    return used >= port.mem_limit ? 0 : std::min(size, port.mem_limit - used);
}

bool tty_throttled(const tty_struct& tty) {
    return tty.throttled;
}

void tty_flip_buffer_push(tty_port& port) {
    port.buf_committed.insert(port.buf_committed.end(), port.buf_pending.begin(), port.buf_pending.end());
    port.buf_pending.clear();
    queue_work_on(port.flush_cpu < 0 ? smp_processor_id() : static_cast<unsigned>(port.flush_cpu), port.work);
}

namespace {

// n_tty_receive_buf in raw mode: what one flag character means to the line discipline.
void n_tty_receive_char_flagged(tty_struct& tty, const flip_char& c) {
    switch (c.flag) {
    case TTY_NORMAL:
    case TTY_PARITY: // INPCK off: the character as it came
    case TTY_FRAME:
        tty.read_buf.push_back(c.ch);
        ++tty.received;
        break;
    case TTY_BREAK: // neither IGNBRK nor BRKINT: a '\0'
        tty.read_buf.push_back('\0');
        ++tty.received;
        break;
    case TTY_OVERRUN: // n_tty_receive_overrun: counted and reported, nothing read
        ++tty.overruns_reported;
        break;
    }
}
} // namespace

void flush_to_ldisc(tty_port& port) {
    tty_struct* tty = port.itty;
    if (!tty) return;
    bool got = false;
    while (!port.buf_committed.empty() && tty->read_buf.size() < N_TTY_BUF_SIZE) {
        n_tty_receive_char_flagged(*tty, port.buf_committed.front());
        port.buf_committed.pop_front();
        got = true;
    }
    // n_tty_check_throttle: the driver is asked to stop while the read buffer is nearly full.
    if (!tty->throttled && N_TTY_BUF_SIZE - tty->read_buf.size() < TTY_THRESHOLD_THROTTLE) {
        tty->throttled = true;
        ++tty->throttles;
    }
    if (got && !tty->read_buf.empty()) wake_up(tty->read_wait);
}

std::size_t n_tty_read(tty_struct& tty, unsigned char* buf, std::size_t nr) {
    if (nr == 0) return 0;
    wait_event(tty.read_wait, [&] { return !tty.read_buf.empty(); });
    const std::size_t n = std::min(nr, tty.read_buf.size());
    std::copy_n(tty.read_buf.begin(), n, buf);
    tty.read_buf.erase(tty.read_buf.begin(), tty.read_buf.begin() + static_cast<std::ptrdiff_t>(n));
    // n_tty_check_unthrottle: room again, the driver may go on (hvc_unthrottle kicks khvcd).
    if (tty.throttled && N_TTY_BUF_SIZE - tty.read_buf.size() >= TTY_THRESHOLD_UNTHROTTLE) {
        tty.throttled = false;
        if (tty.ops && tty.ops->unthrottle) tty.ops->unthrottle(tty);
    }
    // n_tty_kick_worker: the line discipline had no room for what is still committed.
    if (tty.port && !tty.port->buf_committed.empty()) queue_work(tty.port->work);
    return n;
}

// n_tty_write without OPOST: the driver takes what it has room for; the writer sleeps on write_wait
// until tty_wakeup, then goes on.
std::size_t tty_write(tty_struct& tty, const unsigned char* buf, std::size_t nr) {
    const std::size_t total = nr;
    for (;;) {
        prepare_to_wait(tty.write_wait);
        while (nr > 0) {
            const std::size_t c = tty.ops->write(tty, buf, nr);
            if (c == 0) break;
            buf += c;
            nr -= c;
        }
        if (nr == 0) break;
        schedule_timeout(-1); // wait_woken(): a wake-up since prepare_to_wait ends it at once
    }
    finish_wait(tty.write_wait);
    return total;
}

void tty_wakeup(tty_struct& tty) {
    wake_up(tty.write_wait);
}

} // namespace uartvp::sw
