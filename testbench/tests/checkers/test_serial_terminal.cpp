// SPDX-License-Identifier: Apache-2.0
// Serial terminal: the pty, TCP and stdio backends driven from a host thread of this test, both ways,
// with the line timing on the simulated side and the pacing against wall-clock time.
#include "sim_main.h"
#include <uartvp/line_monitor.h>
#include <uartvp/rx_injector.h>
#include <uartvp/serial_terminal.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using sc_core::SC_MS;
using sc_core::SC_PS;
using sc_core::sc_time;
using uartvp::decoded_char;
using uartvp::serial_format;
using uartvp::serial_terminal;
using clock_type = std::chrono::steady_clock;

namespace {

const serial_format f8n1 = *serial_format::parse("8N1");

// The terminal between two stand-ins for a UART: an injector playing its transmitter on TXD and a monitor
// playing its receiver on RXD. The simulation stops when the terminal ends.
struct bench : sc_core::sc_module {
    sc_core::sc_signal<bool> txd, rxd;
    uartvp::rx_injector uart_tx;
    uartvp::line_monitor uart_rx;
    serial_terminal term;
    std::vector<decoded_char> received; // what the terminal typed, as the UART would receive it
    std::vector<clock_type::time_point> received_wall; // when each was decoded, in wall-clock time
    std::atomic<unsigned> received_count{0};

    bench(sc_core::sc_module_name n, const std::string& spec, double baud = 115200, serial_format fmt = f8n1,
          const serial_terminal::options& opt = serial_terminal::options())
        : sc_module(n)
        , txd("txd", true)
        , rxd("rxd", true)
        , uart_tx("uart_tx", baud, fmt)
        , uart_rx("uart_rx", baud, fmt)
        , term("term", spec, baud, fmt, opt) {
        uart_tx.line(txd);
        term.txd(txd);
        term.rxd(rxd);
        uart_rx.line(rxd);
        uart_rx.keep_text(true);
        uart_rx.on_char([this](const decoded_char& c) {
            received.push_back(c);
            received_wall.push_back(clock_type::now());
            ++received_count;
        });
        SC_HAS_PROCESS(bench);
        SC_METHOD(stop);
        sensitive << term.ended_event();
        dont_initialize();
    }
    void stop() { sc_core::sc_stop(); }
};

// Reads from fd until `want` bytes have come or `timeout` has passed.
std::string read_bytes(int fd, std::size_t want,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::string got;
    const auto deadline = clock_type::now() + timeout;
    while (got.size() < want && clock_type::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 20) <= 0) continue;
        char buf[4096];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
}

void write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ASSERT_GT(n, 0) << std::strerror(errno);
        done += static_cast<std::size_t>(n);
    }
}

// Waits (wall-clock) until the simulated receiver has decoded `n` characters.
void wait_received(const bench& b, unsigned n, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = clock_type::now() + timeout;
    while (b.received_count.load() < n && clock_type::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

int connect_local(unsigned port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        const int e = errno;
        ::close(s);
        errno = e;
        return -1;
    }
    return s;
}

sc_time frame_time(double baud, const serial_format& f) {
    return sc_time(static_cast<double>(uartvp::bit_offset_ps(baud, 2ull * f.bits_per_frame())), SC_PS);
}

// Consecutive characters start one frame apart, to the picosecond's rounding: typed back to back at the
// line rate.
void expect_back_to_back(const std::vector<decoded_char>& cs, double baud, const serial_format& f) {
    const sc_time frame = frame_time(baud, f), one_ps(1, SC_PS);
    for (std::size_t i = 1; i < cs.size(); ++i) {
        const sc_time d = cs[i].start - cs[i - 1].start;
        ASSERT_TRUE(d + one_ps >= frame && d <= frame + one_ps) << "character " << i << ": " << d;
    }
}

} // namespace

TEST(SerialTerminal, SpecsAreParsedAndBadOnesRefusedWithOneLine) {
    EXPECT_EQ(serial_terminal::spec::parse("stdio").kind, serial_terminal::backend::stdio);
    EXPECT_EQ(serial_terminal::spec::parse("pty").kind, serial_terminal::backend::pty);
    const auto t = serial_terminal::spec::parse("tcp:5555");
    EXPECT_EQ(t.kind, serial_terminal::backend::tcp);
    EXPECT_EQ(t.port, 5555u);
    EXPECT_EQ(serial_terminal::spec::parse("tcp:65535").port, 65535u);
    EXPECT_EQ(serial_terminal::spec::parse("tcp:0").port, 0u);
    for (const char* bad : {"tcp:65536", "tcp:99999", "tcp:", "tcp:-1", "tcp:12x", "tcp:123456", "tcp: 80"}) {
        try {
            serial_terminal::spec::parse(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const std::invalid_argument& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(bad), std::string::npos) << m;
            EXPECT_NE(m.find("0 to 65535"), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        }
    }
    for (const char* bad : {"", "serial", "PTY", "udp:5555", "stdio:"}) {
        try {
            serial_terminal::spec::parse(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const std::invalid_argument& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("'" + std::string(bad) + "'"), std::string::npos) << m;
            EXPECT_NE(m.find("stdio, pty or tcp:PORT"), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        }
    }
}

// A port another socket listens on is refused at construction, and the failed module leaves SystemC
// able to build and run another terminal.
TEST(SerialTerminal, PortInUseIsRefusedAtConstruction) {
    UARTVP_SIM_TEST();
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(listen(s, 1), 0);
    socklen_t len = sizeof a;
    getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    const unsigned port = ntohs(a.sin_port);
    try {
        serial_terminal t("busy", "tcp:" + std::to_string(port), 115200, f8n1);
        ADD_FAILURE() << "a port in use was accepted";
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("port " + std::to_string(port) + " on 127.0.0.1 is in use"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    ::close(s);
    for (auto period : {sc_time(0, SC_MS), sc_time(11, SC_MS)}) {
        serial_terminal::options opt;
        opt.poll_period = period;
        EXPECT_THROW(serial_terminal("slow", "stdio", 115200, f8n1, opt), std::invalid_argument);
    }

    serial_terminal::options opt;
    opt.duration = sc_time(5, SC_MS);
    bench b("b", "tcp:0", 115200, f8n1, opt);
    EXPECT_NE(b.term.port(), 0u);
    EXPECT_EQ(b.term.device(), "127.0.0.1:" + std::to_string(b.term.port()));
    sc_core::sc_start();
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::duration);
    EXPECT_EQ(b.term.end_time(), sc_time(5, SC_MS));
}

// Raw: what the UART prints reaches the client byte for byte (no CR/LF mapping) and is not echoed back
// into its RXD; what the client types reaches RXD byte for byte, back to back; the client closing the
// device is a hang-up.
TEST(SerialTerminal, PtyCarriesBothWaysRawAndReportsTheHangUp) {
    UARTVP_SIM_TEST();
    bench b("b", "pty");
    const std::string device = b.term.device();
    ASSERT_EQ(device.rfind("/dev/pts/", 0), 0u) << device;
    const std::string printed = "login:\r\nA\nB\r", typed = "root\rx\ny";
    b.uart_tx.send(printed, sc_time(2, SC_MS));
    std::string got;
    std::thread client([&] {
        const int fd = ::open(device.c_str(), O_RDWR | O_NOCTTY);
        if (fd < 0) return;
        got = read_bytes(fd, printed.size());
        write_all(fd, typed);
        wait_received(b, static_cast<unsigned>(typed.size()));
        // Anything echoed back by the pseudo-terminal would come in here: give it the time to.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ::close(fd);
    });
    sc_core::sc_start();
    client.join();
    EXPECT_EQ(got, printed);
    EXPECT_EQ(b.uart_rx.text(), typed);
    expect_back_to_back(b.received, 115200, f8n1);
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::hang_up);
    EXPECT_EQ(b.term.bytes_typed(), typed.size());
    EXPECT_EQ(b.term.bytes_shown(), printed.size());
    EXPECT_EQ(b.uart_rx.framing_errors(), 0u);
}

// What the UART prints before the client connects waits for it; the terminal takes one client only.
TEST(SerialTerminal, TcpCarriesBothWaysToOneClientAndReportsTheHangUp) {
    UARTVP_SIM_TEST();
    bench b("b", "tcp:0");
    const unsigned port = b.term.port();
    const std::string printed = "uart says hello\r\n", typed = "host says hi\r";
    b.uart_tx.send(printed); // at time 0, before anyone has connected
    std::string got;
    int second_errno = 0;
    std::thread client([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        const int fd = connect_local(port);
        if (fd < 0) return;
        got = read_bytes(fd, printed.size());
        const int other = connect_local(port);
        second_errno = other < 0 ? errno : 0;
        if (other >= 0) ::close(other);
        write_all(fd, typed);
        wait_received(b, static_cast<unsigned>(typed.size()));
        ::close(fd);
    });
    sc_core::sc_start();
    client.join();
    EXPECT_EQ(got, printed);
    EXPECT_EQ(second_errno, ECONNREFUSED) << "a second client must be refused";
    EXPECT_EQ(b.uart_rx.text(), typed);
    expect_back_to_back(b.received, 115200, f8n1);
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::hang_up);
    EXPECT_EQ(b.term.bytes_shown(), printed.size());
}

// Standard I/O on two pipes, at the UART's rate and format (9600 7E1): the end of input is reported
// once the last character typed has left the line.
TEST(SerialTerminal, StdioPipesCarryBothWaysAtTheUartsFormatAndReportTheEndOfInput) {
    UARTVP_SIM_TEST();
    int in[2], out[2];
    ASSERT_EQ(pipe(in), 0);
    ASSERT_EQ(pipe(out), 0);
    serial_terminal::options opt;
    opt.in_fd = in[0];
    opt.out_fd = out[1];
    const serial_format f7e1 = *serial_format::parse("7E1");
    bench b("b", "stdio", 9600, f7e1, opt);
    EXPECT_EQ(b.term.device(), "stdio");
    const std::string printed = "Prompt> ", typed = "ls -l\n";
    b.uart_tx.send(printed);
    std::string got;
    std::thread client([&] {
        got = read_bytes(out[0], printed.size());
        write_all(in[1], typed);
        ::close(in[1]);
    });
    sc_core::sc_start();
    client.join();
    EXPECT_EQ(got, printed);
    EXPECT_EQ(b.uart_rx.text(), typed);
    EXPECT_EQ(b.uart_rx.parity_errors(), 0u);
    EXPECT_EQ(b.uart_rx.framing_errors(), 0u);
    expect_back_to_back(b.received, 9600, f7e1);
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::end_of_input);
    ASSERT_EQ(b.received.size(), typed.size());
    EXPECT_GE(b.term.end_time(), b.received.back().end);
    EXPECT_TRUE(b.term.injector().idle());
    ::close(in[0]);
    ::close(out[0]);
    ::close(out[1]);
}

// A reader that goes away is a hang-up, not a SIGPIPE that ends the process.
TEST(SerialTerminal, StdioOutputClosedIsAHangUp) {
    UARTVP_SIM_TEST();
    int in[2], out[2];
    ASSERT_EQ(pipe(in), 0);
    ASSERT_EQ(pipe(out), 0);
    ::close(out[0]);
    serial_terminal::options opt;
    opt.in_fd = in[0];
    opt.out_fd = out[1];
    bench b("b", "stdio", 115200, f8n1, opt);
    b.uart_tx.send("nobody reads this", sc_time(1, SC_MS));
    sc_core::sc_start();
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::hang_up);
    EXPECT_EQ(b.term.bytes_shown(), 0u);
    EXPECT_GT(b.term.bytes_dropped(), 0u);
    ::close(in[0]);
    ::close(in[1]);
    ::close(out[1]);
}

// Paced: sampled every 0.5 ms, simulated time is never ahead of the wall-clock time elapsed since the
// start by more than 10 ms (the terminal promises one poll period, 1 ms); so 300 ms of simulated time
// take at least 290 ms of wall-clock time. The run ends at the duration, to the picosecond.
TEST(SerialTerminal, SimulationIsNeverMoreThanTenMillisecondsAheadOfWallClock) {
    UARTVP_SIM_TEST();
    serial_terminal::options opt;
    opt.duration = sc_time(300, SC_MS);
    bench b("b", "pty", 115200, f8n1, opt);
    struct sampler : sc_core::sc_module {
        clock_type::time_point wall0;
        double max_lead_s = -1e9;
        unsigned samples = 0;
        explicit sampler(sc_core::sc_module_name n)
            : sc_module(n) {
            SC_HAS_PROCESS(sampler);
            SC_THREAD(run);
        }
        void run() {
            for (;;) {
                const double wall = std::chrono::duration<double>(clock_type::now() - wall0).count();
                const double lead = sc_core::sc_time_stamp().to_seconds() - wall;
                if (lead > max_lead_s) max_lead_s = lead;
                ++samples;
                wait(sc_time(500, sc_core::SC_US));
            }
        }
    } s("sampler");
    s.wall0 = clock_type::now();
    sc_core::sc_start();
    const double wall = std::chrono::duration<double>(clock_type::now() - s.wall0).count();
    EXPECT_EQ(b.term.reason(), serial_terminal::end_reason::duration);
    EXPECT_EQ(b.term.end_time(), sc_time(300, SC_MS));
    EXPECT_GE(s.samples, 600u);
    EXPECT_LE(s.max_lead_s, 0.010) << "simulated time ran ahead of wall-clock time";
    EXPECT_GE(wall, 0.300 - 0.010);
    std::printf("300 ms simulated in %.1f ms of wall-clock time; simulated time at most %.3f ms ahead\n",
                wall * 1e3, s.max_lead_s * 1e3);
}

// A paste of 1000 characters goes onto RXD back to back, so it cannot arrive in less than 1000 frames
// (86.8 us each at 115200 8N1) of wall-clock time, less the one poll period the simulation may be ahead.
TEST(SerialTerminal, PasteIsTypedAtTheLineRateInWallClockTime) {
    UARTVP_SIM_TEST();
    bench b("b", "pty");
    const std::string device = b.term.device();
    std::string paste;
    for (int i = 0; i < 1000; ++i)
        paste += static_cast<char>('!' + i % 90);
    std::thread client([&] {
        const int fd = ::open(device.c_str(), O_RDWR | O_NOCTTY);
        if (fd < 0) return;
        write_all(fd, paste);
        wait_received(b, static_cast<unsigned>(paste.size()));
        ::close(fd);
    });
    const auto wall0 = clock_type::now();
    sc_core::sc_start();
    client.join();
    ASSERT_EQ(b.uart_rx.text(), paste);
    expect_back_to_back(b.received, 115200, f8n1);
    const double took = std::chrono::duration<double>(b.received_wall.back() - wall0).count();
    const double line_time = 1000 * frame_time(115200, f8n1).to_seconds();
    EXPECT_GE(took, line_time - 0.001);
    std::printf("1000 characters at 115200 8N1: %.1f ms of line time, arrived after %.1f ms of wall-clock "
                "time\n",
                line_time * 1e3, took * 1e3);
}
