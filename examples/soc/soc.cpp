// SPDX-License-Identifier: Apache-2.0
// A small SoC: a CPU-side initiator on uartvp's router, two PL011s and a 16550 behind it, an interrupt
// controller of its own collecting their interrupts, a line monitor on every TXD and waves of it all.
// The CPU prints a greeting on each console, then echoes what is typed into uart1 (by an RX injector)
// onto com1 in upper case, taking uart1's receive interrupt through the interrupt controller.
//
//   soc [WAVES.vcd]   (default: soc.vcd in the system's temporary directory); exits 0 when every
//                     console carried what it should, 1 otherwise.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/router.h>
#include <uartvp/rx_injector.h>
#include <uartvp/uart16550.h>
#include <uartvp/vcd_writer.h>

using namespace sc_core;

// The memory map.
constexpr std::uint64_t uart0_base = 0x09000000, uart1_base = 0x09010000, com1_base = 0x09020000,
                        intc_base = 0x08000000;
constexpr unsigned irq_uart0 = 0, irq_uart1 = 1, irq_com1 = 2;

// An interrupt controller: three level-sensitive inputs, one output to the CPU. Registers: STATUS
// (0x0, read only: the inputs that are high and enabled) and ENABLE (0x4).
class intc : public sc_module {
public:
    tlm_utils::simple_target_socket<intc> bus{"bus"};
    sc_in<bool> in[3];
    sc_out<bool> cpu_irq{"cpu_irq"};

    SC_HAS_PROCESS(intc);
    explicit intc(const sc_module_name& n)
        : sc_module(n) {
        bus.register_b_transport(this, &intc::b_transport);
        SC_METHOD(update);
        for (auto& i : in)
            sensitive << i;
        sensitive << m_enable_changed;
    }

private:
    std::uint32_t status() const {
        std::uint32_t s = 0;
        for (unsigned i = 0; i < 3; ++i)
            s |= static_cast<std::uint32_t>(in[i].read()) << i;
        return s & m_enable;
    }
    void update() { cpu_irq.write(status() != 0); }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
        delay += sc_time(10, SC_NS);
        if (tx.get_data_length() != 4 || (tx.get_address() != 0 && tx.get_address() != 4)) {
            tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        auto* data = reinterpret_cast<std::uint32_t*>(tx.get_data_ptr());
        if (tx.is_read()) {
            *data = tx.get_address() == 0 ? status() : m_enable;
        } else if (tx.get_address() == 4) {
            m_enable = *data & 7;
            m_enable_changed.notify(delay);
        }
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    std::uint32_t m_enable = 0;
    sc_event m_enable_changed;
};

// The CPU side: a thread issuing the driver's accesses, each waiting out its annotated delay.
class cpu : public sc_module {
public:
    tlm_utils::simple_initiator_socket<cpu> bus{"bus"};
    sc_in<bool> irq{"irq"};
    std::string typed; // what it read from uart1

    SC_HAS_PROCESS(cpu);
    explicit cpu(const sc_module_name& n)
        : sc_module(n) {
        SC_THREAD(run);
    }

private:
    std::uint32_t access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t v, unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time delay(100, SC_NS); // the CPU's own cost of an access
        tx.set_command(cmd);
        tx.set_address(addr);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        bus->b_transport(tx, delay);
        if (!tx.is_response_ok()) SC_REPORT_FATAL("cpu", ("bus error at " + std::to_string(addr)).c_str());
        wait(delay);
        return v;
    }
    std::uint32_t readl(std::uint64_t a) { return access(tlm::TLM_READ_COMMAND, a, 0, 4); }
    void writel(std::uint32_t v, std::uint64_t a) { access(tlm::TLM_WRITE_COMMAND, a, v, 4); }

    // PL011: 115200 8N1 from its 24 MHz UARTCLK (IBRD 13, FBRD 1), FIFOs on, UART, TX and RX enabled.
    void pl011_setup(std::uint64_t base) {
        writel(13, base + 0x24);
        writel(1, base + 0x28);
        writel(0x70, base + 0x2C);
        writel(0x301, base + 0x30);
    }
    void pl011_puts(std::uint64_t base, const std::string& s) {
        for (char c : s) {
            while (readl(base + 0x18) & (1u << 5)) // FR.TXFF
                wait(sc_time(1, SC_US));
            writel(static_cast<unsigned char>(c), base);
        }
    }
    // 16550 with registers at a 4-byte stride: 115200 8N1 from 1.8432 MHz (divisor 1), FIFO on.
    void com_setup() {
        writel(0x83, com1_base + (3 << 2)); // LCR: DLAB, 8N1
        writel(1, com1_base + (0 << 2));    // DLL
        writel(0, com1_base + (1 << 2));    // DLM
        writel(0x03, com1_base + (3 << 2)); // LCR: 8N1
        writel(0x07, com1_base + (2 << 2)); // FCR: FIFO on, both cleared
    }
    void com_puts(const std::string& s) {
        for (char c : s) {
            while (!(readl(com1_base + (5 << 2)) & 0x20)) // LSR.THRE
                wait(sc_time(1, SC_US));
            writel(static_cast<unsigned char>(c), com1_base);
        }
    }
    void run() {
        pl011_setup(uart0_base);
        pl011_setup(uart1_base);
        com_setup();
        pl011_puts(uart0_base, "uart0: hello\r\n");
        pl011_puts(uart1_base, "uart1: type something\r\n");
        com_puts("com1: echo of uart1\r\n");
        // uart1's receive and receive-timeout interrupts (IMSC.RXIM, RTIM), through the controller.
        writel((1u << 4) | (1u << 6), uart1_base + 0x38);
        writel(1u << irq_uart1, intc_base + 4);
        while (typed.empty() || typed.back() != '\r') {
            if (!irq.read()) wait(irq.posedge_event());
            if (readl(intc_base) & (1u << irq_uart1)) {
                while (!(readl(uart1_base + 0x18) & (1u << 4))) { // until FR.RXFE
                    const char c = static_cast<char>(readl(uart1_base) & 0xFF);
                    typed += c;
                    com_puts(std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(c)))));
                }
                writel((1u << 4) | (1u << 6), uart1_base + 0x44); // ICR: clear RXIC, RTIC
            }
        }
        com_puts("\n");
        // Let the last characters leave: the 16550's transmitter empty (LSR.TEMT), then one frame more.
        while (!(readl(com1_base + (5 << 2)) & 0x40))
            wait(sc_time(10, SC_US));
        wait(sc_time(100, SC_US));
        sc_stop();
    }
};

// A console: a line monitor on a TXD, keeping what it decoded.
struct console {
    uartvp::line_monitor monitor;
    std::string text;
    console(const char* name, double baud, sc_signal<bool>& txd)
        : monitor(name, baud, uartvp::serial_format{}) {
        monitor.line(txd);
        monitor.on_char([this](const uartvp::decoded_char& c) { text += static_cast<char>(c.data); });
    }
};

class soc : public sc_module {
public:
    cpu cpu0{"cpu0"};
    uartvp::router bus{"bus"};
    uartvp::pl011 uart0{"uart0"}, uart1{"uart1"};
    uartvp::uart16550 com1{"com1", com1_config()};
    intc irqc{"intc"};
    // Serial lines idle high: an rxd signal left at sc_signal's default (false) is a break on the line
    // from time 0, and the UART's receiver reports it.
    sc_signal<bool> txd0{"txd0", true}, rxd0{"rxd0", true}, txd1{"txd1", true}, rxd1{"rxd1", true},
        txd2{"txd2", true}, rxd2{"rxd2", true};
    sc_signal<bool> irq0{"irq0", false}, irq1{"irq1", false}, irq2{"irq2", false}, cpu_irq{"cpu_irq", false};
    uartvp::rx_injector keyboard{"keyboard", pl011_baud(), uartvp::serial_format{}};
    console con0{"con0", pl011_baud(), txd0}, con1{"con1", pl011_baud(), txd1}, con2{"con2", 115200.0, txd2};

    static uartvp::uart16550_config com1_config() {
        uartvp::uart16550_config c;
        c.reg_shift = 2;    // registers 4 bytes apart, as SoCs place them
        c.reg_io_width = 4; // and read with 32-bit loads
        return c;
    }
    // The PL011's rate from IBRD 13, FBRD 1: 24 MHz / (16 x (13 + 1/64)).
    static double pl011_baud() { return 24e6 / (16 * (13 + 1.0 / 64)); }

    explicit soc(const sc_module_name& n)
        : sc_module(n) {
        cpu0.bus.bind(bus.target);
        bus.map(uart0.bus, uart0_base, uart0.map_size(), "uart0");
        bus.map(uart1.bus, uart1_base, uart1.map_size(), "uart1");
        bus.map(com1.bus, com1_base, com1.map_size(), "com1");
        bus.map(irqc.bus, intc_base, 8, "intc");
        // Only these four must be bound on each UART; nreset, the modem and the DMA ports stay unbound
        // and read inactive. (Bound, nreset must start high: a signal that starts low holds the UART in
        // reset until it rises.)
        uart0.txd(txd0);
        uart0.rxd(rxd0);
        uart0.irq(irq0);
        uart1.txd(txd1);
        uart1.rxd(rxd1);
        uart1.irq(irq1);
        com1.txd(txd2);
        com1.rxd(rxd2);
        com1.irq(irq2);
        irqc.in[irq_uart0](irq0);
        irqc.in[irq_uart1](irq1);
        irqc.in[irq_com1](irq2);
        irqc.cpu_irq(cpu_irq);
        cpu0.irq(cpu_irq);
        keyboard.line(rxd1);
        keyboard.send("hello, soc\r", sc_time(3, SC_MS)); // after the greetings have gone out
    }
};

int sc_main(int argc, char** argv) {
    // sc_stop() reports "Simulation stopped by user." as information: not for this program's output.
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    const std::string waves =
        argc > 1 ? argv[1] : (std::filesystem::temp_directory_path() / "soc.vcd").string();
    soc top("soc");
    uartvp::vcd_writer w("waves", waves);
    top.uart0.trace(w);
    top.uart1.trace(w);
    top.com1.trace(w);
    w.add(top.cpu_irq, "soc.intc.cpu_irq");
    sc_start(sc_time(1, SC_SEC)); // sc_stop() by the CPU long before
    if (!w.close()) {
        std::fprintf(stderr, "soc: cannot write %s\n", waves.c_str());
        return 1;
    }
    const bool ok = top.con0.text == "uart0: hello\r\n" && top.con1.text == "uart1: type something\r\n" &&
                    top.con2.text == "com1: echo of uart1\r\nHELLO, SOC\r\n" &&
                    top.cpu0.typed == "hello, soc\r";
    std::printf("uart0 carried: %s", top.con0.text.c_str());
    std::printf("uart1 carried: %s", top.con1.text.c_str());
    std::printf("com1 carried:  %s", top.con2.text.c_str());
    std::printf("simulated %.3f ms; waves: %s\n%s\n", sc_time_stamp().to_seconds() * 1e3, waves.c_str(),
                ok ? "ok" : "FAILED: a console did not carry what it should");
    return ok ? 0 : 1;
}

// Our own main, for one thing: SystemC prints its copyright banner when it starts unless this is set
// before (sc_main is too late). sc_elab_and_sim() is what SystemC's own main calls.
int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_elab_and_sim(argc, argv);
}
