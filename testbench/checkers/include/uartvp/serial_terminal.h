// SPDX-License-Identifier: Apache-2.0
#pragma once
// Connects a UART's serial lines to a host terminal: standard I/O, a pseudo-terminal or a TCP port on
// 127.0.0.1 (one client), both ways, at the UART's baud rate and frame format.
//
// What the UART transmits (its TXD) is decoded by a uartvp::line_monitor and written to the host; what
// the host types is sent onto the UART's RXD by a uartvp::rx_injector, back to back at the line rate (a
// paste takes the time it would on a real line: input is read only while fewer than 256 characters wait,
// so the writer is held back by the OS buffers, not by memory here).
//
// While a terminal is attached, the simulation is paced to wall-clock time: a thread wakes every
// poll_period of simulated time, polls the host side without blocking (poll() with no timeout) and
// sleeps the host thread until wall-clock time has caught up, so simulated time is never more than one
// poll_period (at most 10 ms) ahead of the wall-clock time elapsed since the start. A simulation that
// falls more than 100 ms behind (a slow host, a debugger) carries on from where it is instead of racing
// to catch up. The terminal's thread keeps the simulation alive: the owner ends the run (sc_stop), for
// example when ended() says the input is over.
//
// Backends, by specification string:
//   "stdio"     standard input and output (or any two descriptors, options::in_fd and out_fd). The host's
//               terminal settings are left alone: a terminal on standard input stays line-buffered and
//               echoes locally; end of input (Ctrl-D, or the end of a pipe) ends the terminal.
//   "pty"       a new pseudo-terminal (posix_openpt, grantpt, unlockpt), set raw; device() names the side
//               a terminal program opens ("/dev/pts/N"). A client closing it is a hang-up.
//   "tcp:PORT"  listens on 127.0.0.1:PORT and accepts one client (then stops listening); PORT 0 picks a
//               free port (port() tells which). Bytes are passed as they are (no telnet protocol). The
//               client closing the connection is a hang-up.
// Output waits in a buffer (64 KiB; beyond it bytes are dropped and counted) while it cannot be written:
// before a TCP client connects, while a pseudo-terminal's buffer is full. After a hang-up it is dropped.
// Breaks are not passed to the host; characters with framing or parity errors are, as a terminal would.
//
// Errors: a malformed specification or a port out of range throws std::invalid_argument, a port in use,
// no pseudo-terminal available or another failure of the host throws std::runtime_error; each message is
// one line. Both are thrown by the constructor (before anything runs).
#include <uartvp/line_monitor.h>
#include <uartvp/rx_injector.h>
#include <uartvp/serial_format.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <systemc>

namespace uartvp {

class serial_terminal : public sc_core::sc_module {
public:
    // Named after the UART lines they connect to: bind txd to the UART's TXD signal, rxd to its RXD.
    sc_core::sc_in<bool> txd;  // the UART transmits, the terminal shows
    sc_core::sc_out<bool> rxd; // the terminal types, the UART receives (idle high)

    enum class backend { stdio, pty, tcp };
    enum class end_reason {
        none,         // still running
        end_of_input, // stdio: end of input, and everything read has gone out on RXD
        hang_up,      // the pty's client closed it, the TCP client disconnected, or the output was closed
        duration,     // options::duration of simulated time has passed
    };

    struct spec {
        backend kind = backend::stdio;
        unsigned port = 0; // tcp only; 0: any free port
        // "stdio", "pty", "tcp:PORT" (PORT 0..65535); anything else throws std::invalid_argument.
        static spec parse(std::string_view text);
    };

    struct options {
        // How often the host side is polled and the simulation paced, in simulated time: (0, 10 ms].
        sc_core::sc_time poll_period = sc_core::sc_time(1, sc_core::SC_MS);
        // End (end_reason::duration) after this much simulated time from the start; zero: never.
        sc_core::sc_time duration = sc_core::SC_ZERO_TIME;
        // Input is read from the host from this simulated time on (before it, what is typed waits in the
        // host's buffers): a UART its software has not enabled yet would lose it.
        sc_core::sc_time input_from = sc_core::SC_ZERO_TIME;
        // The stdio backend's descriptors (standard input and output unless told otherwise); the
        // terminal does not close them.
        int in_fd = 0;
        int out_fd = 1;
    };

    serial_terminal(sc_core::sc_module_name name, std::string_view spec_text, double baud, serial_format fmt);
    serial_terminal(sc_core::sc_module_name name, std::string_view spec_text, double baud, serial_format fmt,
                    const options& opt);
    ~serial_terminal() override;
    serial_terminal(const serial_terminal&) = delete;
    serial_terminal& operator=(const serial_terminal&) = delete;
    const char* kind() const override { return "uartvp::serial_terminal"; }

    // Follow the UART when its driver reprograms the baud rate or frame format.
    void set_format(double baud, serial_format fmt);

    backend which() const { return m_spec.kind; }
    // What a user connects to: "/dev/pts/N", "127.0.0.1:PORT", or "stdio".
    const std::string& device() const { return m_host.device; }
    unsigned port() const { return m_host.port; } // tcp: the port listened on

    bool ended() const { return m_reason != end_reason::none; }
    end_reason reason() const { return m_reason; }
    sc_core::sc_time end_time() const { return m_end_time; }
    // Notified (delta) when the terminal ends; check ended() first, it may already have fired.
    sc_core::sc_event& ended_event() { return m_ended; }

    std::uint64_t bytes_typed() const { return m_typed; }     // read from the host, queued onto RXD
    std::uint64_t bytes_shown() const { return m_shown; }     // decoded from TXD and written to the host
    std::uint64_t bytes_dropped() const { return m_dropped; } // decoded, never written (buffer full, hung up)

    // After the simulation: write what still waits for the host, for at most `timeout` (the destructor
    // does it too, for at most a second).
    void drain(std::chrono::milliseconds timeout);

    // The decoder on TXD (its counters: framing and parity errors, breaks) and the injector on RXD (its
    // options; queue nothing of your own on it: the input backlog is counted from its characters sent).
    line_monitor& monitor() { return m_monitor; }
    rx_injector& injector() { return m_injector; }

    static const char* reason_name(end_reason r);

private:
    // The host's side, opened before any child module or process exists: a constructor that throws
    // must not leave SystemC processes behind (they outlive their module).
    struct host_side {
        std::string device;
        unsigned port = 0;
        int listen_fd = -1; // tcp, until the client is accepted
        int in_fd = -1;     // where input is read
        int out_fd = -1;    // where output is written
        bool own = false;   // pty and tcp descriptors are ours to close; stdio's are not
        host_side(const spec& s, const options& opt);
        ~host_side() { close(); }
        host_side(const host_side&) = delete;
        host_side& operator=(const host_side&) = delete;
        void close();
    };
    static options checked(const options& opt);
    void run();
    void on_duration();
    void service();
    void read_input();
    void flush_output();
    void show(const decoded_char& c);
    void pace();
    void finish(end_reason r);

    spec m_spec;
    options m_opt;
    host_side m_host;
    line_monitor m_monitor;
    rx_injector m_injector;
    bool m_peer_seen = false; // pty: the device was seen without a hang-up pending
    bool m_hung_up = false;
    bool m_eof = false;
    std::string m_out;         // decoded, not yet written
    std::size_t m_out_pos = 0; // first byte of m_out not yet written
    std::uint64_t m_typed = 0, m_shown = 0, m_dropped = 0;
    end_reason m_reason = end_reason::none;
    sc_core::sc_time m_end_time;
    sc_core::sc_event m_ended, m_duration_ev;
    bool m_closing = false; // destructor: the simulation is over, nothing more is notified
    sc_core::sc_time m_sim0;
    std::chrono::steady_clock::time_point m_wall0;
};

} // namespace uartvp
