// SPDX-License-Identifier: Apache-2.0
#include <uartvp/serial_terminal.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace uartvp {

namespace {
// Input is read only while fewer characters than this wait to go out on RXD: a paste is held back by
// the host's buffers (the writer blocks), as a real line would hold it back.
constexpr std::uint64_t max_backlog = 256;
constexpr std::size_t max_pending_output = 64 * 1024;
// Behind wall-clock time by more than this, the pacing restarts from where it is.
constexpr std::chrono::milliseconds max_behind(100);

std::string errno_text(int e) {
    return std::strerror(e);
}

void set_flags(int fd, int add) {
    const int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | add) < 0)
        throw std::runtime_error("serial_terminal: fcntl: " + errno_text(errno));
}

// write() on a pipe or socket whose reader has gone raises SIGPIPE, which would end the process: block
// it around the call, take the EPIPE, and consume the signal this write raised.
ssize_t write_no_sigpipe(int fd, const char* p, std::size_t n) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    const ssize_t r = ::write(fd, p, n);
    const int e = errno;
    if (r < 0 && e == EPIPE) {
        const timespec zero{0, 0};
        sigtimedwait(&pipe_set, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = e;
    return r;
}

bool would_block(int e) {
    return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}
} // namespace

serial_terminal::spec serial_terminal::spec::parse(std::string_view text) {
    spec s;
    if (text == "stdio") return s;
    if (text == "pty") {
        s.kind = backend::pty;
        return s;
    }
    const std::string shown(text);
    if (text.substr(0, 4) == "tcp:") {
        const std::string_view digits = text.substr(4);
        bool ok = !digits.empty() && digits.size() <= 5;
        unsigned long v = 0;
        for (char c : digits) {
            ok = ok && c >= '0' && c <= '9';
            v = v * 10 + static_cast<unsigned>(c - '0');
        }
        if (!ok || v > 65535)
            throw std::invalid_argument("serial_terminal: '" + shown +
                                        "': the port must be a number from 0 to 65535");
        s.kind = backend::tcp;
        s.port = static_cast<unsigned>(v);
        return s;
    }
    throw std::invalid_argument("serial_terminal: unknown terminal '" + shown + "' (stdio, pty or tcp:PORT)");
}

const char* serial_terminal::reason_name(end_reason r) {
    switch (r) {
    case end_reason::end_of_input:
        return "end of input";
    case end_reason::hang_up:
        return "hang-up";
    case end_reason::duration:
        return "duration";
    default:
        return "running";
    }
}

serial_terminal::serial_terminal(sc_core::sc_module_name name, std::string_view spec_text, double baud,
                                 serial_format fmt)
    : serial_terminal(name, spec_text, baud, fmt, options()) {}

serial_terminal::serial_terminal(sc_core::sc_module_name name, std::string_view spec_text, double baud,
                                 serial_format fmt, const options& opt)
    : sc_core::sc_module(name)
    , txd("txd")
    , rxd("rxd")
    , m_spec(spec::parse(spec_text))
    , m_opt(checked(opt))
    , m_host(m_spec, m_opt)
    , m_monitor("monitor", baud, fmt)
    , m_injector("injector", baud, fmt) {
    m_monitor.line(txd);
    m_injector.line(rxd);
    m_monitor.on_char([this](const decoded_char& c) { show(c); });
    SC_HAS_PROCESS(serial_terminal);
    SC_THREAD(run);
    SC_METHOD(on_duration);
    sensitive << m_duration_ev;
    dont_initialize();
}

serial_terminal::~serial_terminal() {
    // Whatever was decoded last gets a short chance to reach the host before the descriptors close.
    drain(std::chrono::seconds(1));
    m_host.close();
}

void serial_terminal::drain(std::chrono::milliseconds timeout) {
    // The simulation is over: a hang-up found now is not notified.
    m_closing = true;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!m_hung_up && m_host.out_fd >= 0 && m_out_pos < m_out.size() &&
           std::chrono::steady_clock::now() < deadline) {
        pollfd p{m_host.out_fd, POLLOUT, 0};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) break;
        if (p.revents & (POLLERR | POLLNVAL)) break;
        flush_output();
    }
}

serial_terminal::options serial_terminal::checked(const options& opt) {
    if (!(opt.poll_period > sc_core::SC_ZERO_TIME) || opt.poll_period > sc_core::sc_time(10, sc_core::SC_MS))
        throw std::invalid_argument("serial_terminal: the poll period must be more than 0 and at most 10 ms");
    return opt;
}

void serial_terminal::host_side::close() {
    if (listen_fd >= 0) ::close(listen_fd);
    listen_fd = -1;
    if (own && in_fd >= 0) ::close(in_fd);
    if (own && out_fd >= 0 && out_fd != in_fd) ::close(out_fd);
    in_fd = out_fd = -1;
}

serial_terminal::host_side::host_side(const spec& s, const options& opt) {
    switch (s.kind) {
    case backend::stdio: {
        for (int fd : {opt.in_fd, opt.out_fd})
            if (fcntl(fd, F_GETFL) < 0)
                throw std::runtime_error("serial_terminal: stdio: descriptor " + std::to_string(fd) +
                                         " is not open");
        in_fd = opt.in_fd;
        out_fd = opt.out_fd;
        own = false;
        device = "stdio";
        break;
    }
    case backend::pty: {
        const int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m < 0)
            throw std::runtime_error("serial_terminal: no pseudo-terminal available: " + errno_text(errno));
        char name[128];
        termios t{};
        if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, sizeof name) != 0 ||
            tcgetattr(m, &t) != 0) {
            const int e = errno;
            ::close(m);
            throw std::runtime_error("serial_terminal: cannot set up a pseudo-terminal: " + errno_text(e));
        }
        // Raw: no echo of what the UART prints back into its own input, no line editing, no CR/LF mapping.
        cfmakeraw(&t);
        if (tcsetattr(m, TCSANOW, &t) != 0) {
            const int e = errno;
            ::close(m);
            throw std::runtime_error("serial_terminal: cannot set the pseudo-terminal raw: " + errno_text(e));
        }
        try {
            set_flags(m, O_NONBLOCK);
        } catch (...) {
            ::close(m);
            throw;
        }
        in_fd = out_fd = m;
        own = true;
        device = name;
        break;
    }
    case backend::tcp: {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) throw std::runtime_error("serial_terminal: socket: " + errno_text(errno));
        const int one = 1;
        // A port whose last connection is in TIME_WAIT can be listened on again at once.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(s.port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 1) != 0) {
            const int e = errno;
            ::close(fd);
            const std::string number = std::to_string(s.port);
            if (e == EADDRINUSE)
                throw std::runtime_error("serial_terminal: port " + number + " on 127.0.0.1 is in use");
            throw std::runtime_error("serial_terminal: cannot listen on 127.0.0.1:" + number + ": " +
                                     errno_text(e));
        }
        socklen_t len = sizeof a;
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        listen_fd = fd;
        own = true;
        port = ntohs(a.sin_port);
        device = "127.0.0.1:" + std::to_string(port);
        break;
    }
    }
}

void serial_terminal::set_format(double baud, serial_format fmt) {
    m_monitor.set_format(baud, fmt);
    m_injector.set_format(baud, fmt);
}

void serial_terminal::run() {
    m_sim0 = sc_core::sc_time_stamp();
    m_wall0 = std::chrono::steady_clock::now();
    if (m_opt.duration > sc_core::SC_ZERO_TIME) m_duration_ev.notify(m_opt.duration);
    for (;;) {
        service();
        sc_core::wait(m_opt.poll_period);
        pace();
    }
}

void serial_terminal::on_duration() {
    finish(end_reason::duration);
}

void serial_terminal::pace() {
    using namespace std::chrono;
    const auto sim = duration<double>((sc_core::sc_time_stamp() - m_sim0).to_seconds());
    const auto target = m_wall0 + duration_cast<steady_clock::duration>(sim);
    const auto now = steady_clock::now();
    if (target > now)
        std::this_thread::sleep_until(target);
    else if (now - target > max_behind)
        m_wall0 += now - target; // held up (slow host, debugger): resume at real time, do not race ahead
}

void serial_terminal::service() {
    if (m_host.listen_fd >= 0) {
        const int c = accept4(m_host.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c >= 0) {
            // One client: stop listening, so a second one is refused rather than left waiting.
            ::close(m_host.listen_fd);
            m_host.listen_fd = -1;
            const int one = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            m_host.in_fd = m_host.out_fd = c;
        } else if (!would_block(errno) && errno != ECONNABORTED) {
            ::close(m_host.listen_fd);
            m_host.listen_fd = -1;
            m_hung_up = true;
            finish(end_reason::hang_up);
        }
    }
    read_input();
    flush_output();
    if (m_eof && m_injector.idle()) finish(end_reason::end_of_input);
}

void serial_terminal::read_input() {
    if (m_host.in_fd < 0 || m_eof || m_hung_up) return;
    if (sc_core::sc_time_stamp() < m_opt.input_from) return;
    const std::uint64_t backlog = m_typed - m_injector.chars_sent();
    if (backlog >= max_backlog) return;
    pollfd p{m_host.in_fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return;
    if (m_spec.kind == backend::pty) {
        // A pseudo-terminal nobody has opened yet may report a hang-up (kernels differ): only a hang-up
        // after the device was seen without one is a client leaving.
        if (!(p.revents & POLLHUP))
            m_peer_seen = true;
        else if (!m_peer_seen)
            return;
    }
    char buf[max_backlog];
    const ssize_t n = ::read(m_host.in_fd, buf, static_cast<std::size_t>(max_backlog - backlog));
    if (n > 0) {
        m_injector.send(std::string_view(buf, static_cast<std::size_t>(n)));
        m_typed += static_cast<std::uint64_t>(n);
    } else if (n == 0 && m_spec.kind == backend::stdio) {
        m_eof = true;
    } else if (n == 0 || !would_block(errno)) {
        // TCP: the client closed; pty: EIO once the client closed; stdio: a read error.
        m_hung_up = true;
        finish(end_reason::hang_up);
    }
}

void serial_terminal::flush_output() {
    if (m_hung_up) {
        m_dropped += m_out.size() - m_out_pos;
        m_out.clear();
        m_out_pos = 0;
        return;
    }
    if (m_host.out_fd < 0) return; // no TCP client yet: keep it for when one comes
    while (m_out_pos < m_out.size()) {
        const char* p = m_out.data() + m_out_pos;
        std::size_t n = m_out.size() - m_out_pos;
        ssize_t w;
        if (m_spec.kind == backend::tcp) {
            w = ::send(m_host.out_fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        } else if (m_spec.kind == backend::pty) {
            w = ::write(m_host.out_fd, p, n);
        } else {
            // Standard output is not ours to make non-blocking (the shell shares it): write only what
            // poll() says fits, at most PIPE_BUF bytes, which a pipe takes whole.
            pollfd q{m_host.out_fd, POLLOUT, 0};
            if (poll(&q, 1, 0) <= 0 || !(q.revents & (POLLOUT | POLLERR | POLLHUP))) break;
            if (n > PIPE_BUF) n = PIPE_BUF;
            w = write_no_sigpipe(m_host.out_fd, p, n);
        }
        if (w > 0) {
            m_out_pos += static_cast<std::size_t>(w);
            m_shown += static_cast<std::uint64_t>(w);
            continue;
        }
        if (w < 0 && would_block(errno)) break;
        // The reader is gone (EPIPE, a reset connection, EIO): a hang-up.
        m_hung_up = true;
        finish(end_reason::hang_up);
        flush_output();
        return;
    }
    if (m_out_pos == m_out.size()) {
        m_out.clear();
        m_out_pos = 0;
    } else if (m_out_pos >= max_pending_output / 2) {
        m_out.erase(0, m_out_pos);
        m_out_pos = 0;
    }
}

void serial_terminal::show(const decoded_char& c) {
    if (c.is_break) return;
    if (m_hung_up || m_out.size() - m_out_pos >= max_pending_output) {
        ++m_dropped;
        return;
    }
    m_out.push_back(static_cast<char>(c.data));
    flush_output();
}

void serial_terminal::finish(end_reason r) {
    if (m_reason != end_reason::none || m_closing) return;
    m_reason = r;
    m_end_time = sc_core::sc_time_stamp();
    m_ended.notify(sc_core::SC_ZERO_TIME);
}

} // namespace uartvp
