// SPDX-License-Identifier: Apache-2.0
// A simulated console to type into: a PL011 (115200 8N1 from a 24 MHz UARTCLK) whose lines go to a
// uartvp::serial_terminal, and a thread that polls the UART's registers over TLM and echoes every
// character it receives in upper case (a carriage return as CR LF, as a console's tty would).
//
//   uartvp-terminal-demo stdio|pty|tcp:PORT [--duration S]
//
// It prints "terminal: DEVICE" on stderr before it starts (the pseudo-terminal's name, or 127.0.0.1:PORT
// for TCP, tcp:0 picking a free port), and runs until the end of input (stdio; everything echoed first),
// a hang-up, or S seconds of simulated time. Exit codes: 0 ran, 2 bad arguments, 3 internal error.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/pl011.h>
#include <uartvp/serial_terminal.h>

using namespace sc_core;

namespace {

constexpr const char* prog = "uartvp-terminal-demo";
constexpr const char* usage = "usage: uartvp-terminal-demo stdio|pty|tcp:PORT [--duration S]";

// PL011 registers and FR bits (TRM DDI0183).
constexpr std::uint64_t DR = 0x000, FR = 0x018, IBRD = 0x024, FBRD = 0x028, LCR_H = 0x02C, CR = 0x030;
constexpr std::uint32_t FR_BUSY = 1u << 3, FR_RXFE = 1u << 4, FR_TXFF = 1u << 5;

// The software side: programs the UART, then polls FR and echoes what arrives.
struct echo_console : sc_module {
    tlm_utils::simple_initiator_socket<echo_console, 32> socket{"socket"};
    uartvp::serial_terminal& term;
    std::uint64_t echoed = 0;
    const sc_time poll = sc_time(20, SC_US); // a quarter of a character time at 115200

    echo_console(sc_module_name n, uartvp::serial_terminal& t)
        : sc_module(n)
        , term(t) {
        SC_HAS_PROCESS(echo_console);
        SC_THREAD(run);
    }

    std::uint32_t access(bool write, std::uint64_t offset, std::uint32_t value) {
        tlm::tlm_generic_payload tx;
        tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        tx.set_address(offset);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        tx.set_data_length(4);
        tx.set_streaming_width(4);
        sc_time delay = SC_ZERO_TIME;
        socket->b_transport(tx, delay);
        if (!tx.is_response_ok())
            throw std::runtime_error("PL011 access at offset " + std::to_string(offset) + " failed");
        wait(delay);
        return value;
    }
    std::uint32_t read(std::uint64_t offset) { return access(false, offset, 0); }
    void write(std::uint64_t offset, std::uint32_t v) { access(true, offset, v); }

    void put(std::uint8_t c) {
        while (read(FR) & FR_TXFF)
            wait(poll);
        write(DR, c);
        ++echoed;
    }

    void run() {
        write(IBRD, 13); // 24 MHz / (16 * 115200) = 13 + 1/64
        write(FBRD, 1);
        write(LCR_H, 0x70); // 8N1, FIFOs on
        write(CR, 0x301);   // UARTEN, TXE, RXE
        for (;;) {
            const std::uint32_t fr = read(FR);
            if (!(fr & FR_RXFE)) {
                const auto c = static_cast<std::uint8_t>(read(DR) & 0xff);
                if (c == '\r') {
                    put('\r');
                    put('\n');
                } else {
                    put(static_cast<std::uint8_t>(std::toupper(c)));
                }
                continue;
            }
            // At the end of input everything typed has been received: stop once the echo has left the
            // line. A hang-up or the duration stops at once.
            if (term.ended() &&
                (term.reason() != uartvp::serial_terminal::end_reason::end_of_input || !(fr & FR_BUSY))) {
                sc_stop();
                return;
            }
            wait(poll);
        }
    }
};

[[noreturn]] void bad_usage(const std::string& why) {
    std::fprintf(stderr, "%s: %s (%s)\n", prog, why.c_str(), usage);
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    std::string spec;
    double duration_s = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::printf("%s\n", usage);
            return 0;
        }
        if (a == "--duration") {
            if (i + 1 >= argc) bad_usage("--duration needs a number of seconds");
            const std::string v = argv[++i];
            char* end = nullptr;
            errno = 0;
            duration_s = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || errno != 0 || !std::isfinite(duration_s) || duration_s <= 0)
                bad_usage("--duration '" + v + "': not a positive number of seconds");
        } else if (!a.empty() && a[0] == '-') {
            bad_usage("unknown option '" + a + "'");
        } else if (!spec.empty()) {
            bad_usage("one terminal only, got '" + spec + "' and '" + a + "'");
        } else {
            spec = a;
        }
    }
    if (spec.empty()) bad_usage("which terminal?");

    try {
        const auto fmt = *uartvp::serial_format::parse("8N1");
        uartvp::serial_terminal::options opt;
        if (duration_s > 0) opt.duration = sc_time(duration_s, SC_SEC);
        std::unique_ptr<uartvp::serial_terminal> term;
        try {
            term = std::make_unique<uartvp::serial_terminal>("terminal", spec, 115200, fmt, opt);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", prog, e.what());
            return 2;
        }
        uartvp::pl011 uart("uart0"); // 24 MHz UARTCLK, 32-entry FIFOs
        echo_console console("console", *term);
        sc_signal<bool> txd("txd", true), rxd("rxd", true), irq("irq");
        console.socket.bind(uart.bus);
        uart.txd(txd);
        uart.rxd(rxd);
        uart.irq(irq);
        term->txd(txd);
        term->rxd(rxd);

        std::fprintf(stderr, "terminal: %s\n", term->device().c_str());
        std::fflush(stderr);
        sc_start();
        term->drain(std::chrono::seconds(1));
        std::fprintf(stderr, "%s: %s at %.6f s simulated; %llu characters typed, %llu shown\n", prog,
                     uartvp::serial_terminal::reason_name(term->reason()), term->end_time().to_seconds(),
                     static_cast<unsigned long long>(term->bytes_typed()),
                     static_cast<unsigned long long>(term->bytes_shown()));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: internal error: %s\n", prog, e.what());
        return 3;
    }
}

// libsystemc's main() refers to sc_main; this program has its own main, so this is never called.
extern "C" int sc_main(int, char**) {
    return 3;
}
