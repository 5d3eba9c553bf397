// SPDX-License-Identifier: Apache-2.0
// An outside program with a time resolution of its own: `time_resolution_check 1ns|1fs` sets it before
// building anything (which fails with E514 if the library has built an sc_time of its own before
// sc_main), then has a PL011 and a 16550 transmit a line each and decodes both lines. Also checks that
// a UARTCLK whose period is shorter than the resolution is refused with std::invalid_argument, and that
// the PL011's RTL trace has its TXD changes at the pin's times, exactly: in picoseconds at 1 ns, in
// femtoseconds (its own timescale) at 1 fs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/line_monitor.h>
#include <uartvp/pl011.h>
#include <uartvp/uart16550.h>

using namespace sc_core;

namespace {

const char* const text = "resolution";

struct cpu : sc_module {
    tlm_utils::simple_initiator_socket<cpu, 32> pl{"pl"}, com{"com"};
    SC_HAS_PROCESS(cpu);
    explicit cpu(const sc_module_name& n)
        : sc_module(n) {
        SC_THREAD(run);
    }
    void access(tlm_utils::simple_initiator_socket<cpu, 32>& s, std::uint64_t addr, std::uint32_t v,
                unsigned size) {
        tlm::tlm_generic_payload tx;
        tx.set_command(tlm::TLM_WRITE_COMMAND);
        tx.set_address(addr);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(size);
        tx.set_streaming_width(size);
        sc_time d = SC_ZERO_TIME;
        s->b_transport(tx, d);
        if (!tx.is_response_ok()) throw std::runtime_error("bus error");
        wait(d + sc_time(1, SC_US));
    }
    void run() {
        access(pl, 0x24, 13, 4); // IBRD/FBRD: 115200 at 24 MHz
        access(pl, 0x28, 1, 4);
        access(pl, 0x2C, 0x70, 4); // 8N1, FIFOs
        access(pl, 0x30, 0x301, 4);
        access(com, 3, 0x83, 1); // DLAB; divisor 1: 115200 at 1.8432 MHz
        access(com, 0, 1, 1);
        access(com, 1, 0, 1);
        access(com, 3, 0x03, 1);
        access(com, 2, 0x01, 1); // FIFOs on
        for (const char* c = text; *c; ++c) {
            access(pl, 0x00, static_cast<unsigned char>(*c), 1);
            access(com, 0, static_cast<unsigned char>(*c), 1);
        }
    }
};

// The times of a line's changes, in resolution units.
struct change_log : sc_module {
    const sc_signal<bool>& line;
    std::vector<std::pair<std::uint64_t, bool>> changes;
    SC_HAS_PROCESS(change_log);
    change_log(const sc_module_name& n, const sc_signal<bool>& l)
        : sc_module(n)
        , line(l) {
        SC_METHOD(log);
        sensitive << line;
        dont_initialize();
    }
    void log() { changes.emplace_back(sc_time_stamp().value(), line.read()); }
};

// The RTL trace's timescale and the changes of its first 1-bit `txd` after time 0.
std::pair<std::string, std::vector<std::pair<std::uint64_t, bool>>> rtl_txd(const std::string& path) {
    std::ifstream f(path);
    std::string line, id, timescale;
    std::vector<std::pair<std::uint64_t, bool>> changes;
    std::uint64_t now = 0;
    bool defs = true;
    while (std::getline(f, line)) {
        std::istringstream s(line);
        std::string tok, type, width, var, name;
        s >> tok;
        if (defs) {
            if (tok == "$timescale") s >> timescale;
            if (tok == "$var" && (s >> type >> width >> var >> name) && name == "txd" && width == "1" &&
                id.empty())
                id = var;
            if (tok == "$enddefinitions") defs = false;
        } else if (!line.empty() && line[0] == '#') {
            now = std::stoull(line.substr(1));
        } else if (!line.empty() && (line[0] == '0' || line[0] == '1') && line.substr(1) == id && now > 0) {
            changes.emplace_back(now, line[0] == '1');
        }
    }
    return {timescale, changes};
}

} // namespace

int sc_main(int argc, char** argv) {
    if (argc != 2 || (std::strcmp(argv[1], "1ns") && std::strcmp(argv[1], "1fs"))) {
        std::fprintf(stderr, "usage: time_resolution_check 1ns|1fs\n");
        return 2;
    }
    const bool ns = !std::strcmp(argv[1], "1ns");
    sc_set_time_resolution(1, ns ? SC_NS : SC_FS);
    // A clock faster than the resolution can express is refused.
    bool refused = false;
    try {
        uartvp::pl011_config fast;
        fast.clock_hz = ns ? 2'000'000'000 : 2'000'000'000'000'000;
        uartvp::pl011 too_fast("too_fast", fast);
    } catch (const std::invalid_argument& e) {
        refused = std::strstr(e.what(), "time resolution") != nullptr;
    }
    bool refused_16550 = false;
    try {
        uartvp::uart16550_config fast;
        fast.clock_hz = ns ? 2'000'000'000 : 2'000'000'000'000'000;
        uartvp::uart16550 too_fast("too_fast_16550", fast);
    } catch (const std::invalid_argument& e) {
        refused_16550 = std::strstr(e.what(), "time resolution") != nullptr;
    }
    sc_signal<bool> pl_txd{"pl_txd", true}, pl_irq{"pl_irq"}, pl_rxd{"pl_rxd", true};
    sc_signal<bool> com_txd{"com_txd", true}, com_irq{"com_irq"}, com_rxd{"com_rxd", true};
    char dir[] = "/tmp/uartvp-resolution-XXXXXX";
    if (!mkdtemp(dir)) return 3;
    uartvp::pl011_config traced;
    traced.rtl_vcd = std::string(dir) + "/pl.rtl.vcd";
    uartvp::pl011 pl("pl", traced);
    change_log pl_log("pl_log", pl_txd);
    uartvp::uart16550 com("com");
    uartvp::line_monitor pl_mon("pl_mon", 115200, uartvp::serial_format{}),
        com_mon("com_mon", 115200, uartvp::serial_format{});
    cpu c("cpu");
    c.pl.bind(pl.bus);
    c.com.bind(com.bus);
    pl.txd(pl_txd), pl.irq(pl_irq), pl.rxd(pl_rxd);
    com.txd(com_txd), com.irq(com_irq), com.rxd(com_rxd);
    pl_mon.line(pl_txd);
    com_mon.line(com_txd);
    pl_mon.keep_text(true);
    com_mon.keep_text(true);
    sc_start(sc_time(5, SC_MS));
    pl.close_rtl_trace();
    auto [timescale, trace_txd] = rtl_txd(traced.rtl_vcd);
    std::remove(traced.rtl_vcd.c_str());
    rmdir(dir);
    // The trace's unit: 1 ps where the resolution is coarser (times x 1000 at 1 ns), else the resolution.
    bool whole_units = true;
    for (auto& [t, v] : trace_txd) {
        if (ns && t % 1000) whole_units = false;
        t = ns ? t / 1000 : t;
    }
    const bool trace_ok = timescale == (ns ? "1ps" : "1fs") && whole_units && trace_txd == pl_log.changes &&
                          pl_log.changes.size() > 40;
    const bool ok = refused && refused_16550 && pl_mon.text() == text && com_mon.text() == text &&
                    pl_mon.framing_errors() == 0 && com_mon.framing_errors() == 0 && trace_ok;
    std::printf("resolution %s: PL011 \"%s\", 16550 \"%s\", too fast a clock refused: %s/%s, RTL trace "
                "(%s) TXD at the pin's %zu times: %s\n",
                sc_get_time_resolution().to_string().c_str(), pl_mon.text().c_str(), com_mon.text().c_str(),
                refused ? "yes" : "no", refused_16550 ? "yes" : "no", timescale.c_str(),
                pl_log.changes.size(), trace_ok ? "yes" : "no");
    return ok ? 0 : 1;
}
