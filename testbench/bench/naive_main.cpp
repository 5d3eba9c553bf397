// SPDX-License-Identifier: Apache-2.0
// The naive baseline of the benchmark, built for it alone: the same PL011 RTL verilated with --sc and
// clocked by an sc_clock, every register access driven on its pins edge by edge, every poll a
// transaction. It runs earlycon-pl011 (hw profile) on a generated boot log and prints JSON.
//   uartvp-naive VARIANT BYTES
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Vpl011_sc.h"

#include <nlohmann/json.hpp>
#include <tlm_utils/simple_target_socket.h>
#include <uartvp/cpu/core.h>
#include <uartvp/line_monitor.h>
#include <uartvp/scoreboard.h>

#include "workloads/bootlog.h"
#include <uartvp/sw/pl011.h>

using namespace sc_core;

// The verilated --sc PL011 behind a TLM target that drives its register port on the clock.
struct naive_pl011 : sc_module {
    tlm_utils::simple_target_socket<naive_pl011, 32> bus{"bus"};
    // 25 MHz: a period (40 ns) that sc_clock represents exactly. With 24 MHz its rounded 41.667 ns drift
    // against the exact edge times of uartvp::pl011 moves the free-running baud generator's phase.
    sc_clock clk{"clk", sc_time(40, SC_NS)};
    // The register port is driven from b_transport, by whichever task thread of the core calls it.
    using bus_bool = sc_signal<bool, SC_UNCHECKED_WRITERS>;
    using bus_word = sc_signal<std::uint32_t, SC_UNCHECKED_WRITERS>;
    bus_bool sel{"sel"}, write{"write"};
    bus_word addr{"addr"}, strb{"strb"}, wdata{"wdata"};
    sc_signal<bool> rst_n{"rst_n", false}, txd{"txd"}, rxd{"rxd", true};
    sc_signal<bool> ncts{"ncts", true}, ndsr{"ndsr", true}, ndcd{"ndcd", true}, nri{"nri", true};
    sc_signal<bool> nrts{"nrts"}, ndtr{"ndtr"}, nout1{"nout1"}, nout2{"nout2"}, intr{"intr"};
    sc_signal<bool> rd_err{"rd_err"}, wr_err{"wr_err"}, synced{"synced"}, quiet{"quiet"},
        div_load{"div_load", false}, rxd_load{"rxd_load", false}, rx_busy{"rx_busy"};
    sc_signal<std::uint32_t> rx_frame_ticks{"rx_frame_ticks"};
    sc_signal<bool> txdmasreq{"txdmasreq"}, txdmabreq{"txdmabreq"}, rxdmasreq{"rxdmasreq"},
        rxdmabreq{"rxdmabreq"}, txdmaclr{"txdmaclr", false}, rxdmaclr{"rxdmaclr", false};
    sc_signal<std::uint32_t> rdata{"rdata"}, tx_level{"tx_level"}, rx_level{"rx_level"}, flags{"flags"},
        fast_fwd{"fast_fwd", 0}, skip_ticks{"skip_ticks", 0}, b16_wait{"b16_wait"}, b16_acc{"b16_acc"},
        baud_div{"baud_div"}, ev_ticks{"ev_ticks"}, out_ticks{"out_ticks"}, reg_ticks{"reg_ticks"},
        busy_ticks{"busy_ticks"}, div_cnt{"div_cnt", 0}, div_acc{"div_acc", 0};
    // The line as characters: unused here (TXD pin by pin).
    sc_signal<bool> txd_unseen{"txd_unseen", false}, tx_started{"tx_started"}, tx_in_char{"tx_in_char"};
    sc_signal<std::uint32_t> tx_line_bits{"tx_line_bits"}, tx_bits_left{"tx_bits_left"},
        tx_format{"tx_format"};
    Vpl011_sc rtl{"rtl"};

    SC_HAS_PROCESS(naive_pl011);
    explicit naive_pl011(sc_module_name n)
        : sc_module(n) {
        bus.register_b_transport(this, &naive_pl011::b_transport);
        rtl.clk(clk), rtl.rst_n(rst_n), rtl.sel(sel), rtl.write(write), rtl.addr(addr), rtl.strb(strb);
        rtl.wdata(wdata), rtl.rdata(rdata), rtl.rd_err(rd_err), rtl.wr_err(wr_err), rtl.txd(txd),
            rtl.rxd(rxd);
        rtl.ncts(ncts), rtl.ndsr(ndsr), rtl.ndcd(ndcd), rtl.nri(nri), rtl.nrts(nrts), rtl.ndtr(ndtr);
        rtl.nout1(nout1), rtl.nout2(nout2), rtl.intr(intr), rtl.tx_level(tx_level), rtl.rx_level(rx_level);
        rtl.flags(flags), rtl.fast_fwd(fast_fwd), rtl.skip_ticks(skip_ticks), rtl.b16_wait(b16_wait);
        rtl.b16_acc(b16_acc), rtl.baud_div(baud_div), rtl.ev_ticks(ev_ticks), rtl.reg_ticks(reg_ticks);
        rtl.busy_ticks(busy_ticks);
        rtl.synced(synced), rtl.quiet(quiet), rtl.div_load(div_load), rtl.div_cnt(div_cnt),
            rtl.div_acc(div_acc), rtl.rxd_load(rxd_load), rtl.out_ticks(out_ticks), rtl.rx_busy(rx_busy),
            rtl.rx_frame_ticks(rx_frame_ticks);
        rtl.txdmasreq(txdmasreq), rtl.txdmabreq(txdmabreq), rtl.rxdmasreq(rxdmasreq),
            rtl.rxdmabreq(rxdmabreq);
        rtl.txdmaclr(txdmaclr), rtl.rxdmaclr(rxdmaclr);
        rtl.txd_unseen(txd_unseen), rtl.tx_started(tx_started), rtl.tx_line_bits(tx_line_bits),
            rtl.tx_bits_left(tx_bits_left), rtl.tx_in_char(tx_in_char), rtl.tx_format(tx_format);
        SC_THREAD(release_reset);
    }
    void release_reset() {
        wait(clk.posedge_event());
        wait(clk.negedge_event());
        rst_n.write(true);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
        wait(delay);
        delay = SC_ZERO_TIME;
        const unsigned lane = tx.get_address() & 3, len = tx.get_data_length();
        std::uint32_t v = 0;
        for (unsigned i = 0; i < len; ++i)
            v |= std::uint32_t(tx.get_data_ptr()[i]) << (8 * (lane + i));
        wait(clk.negedge_event()); // present the access between edges
        sel.write(true);
        write.write(tx.is_write());
        addr.write(static_cast<std::uint32_t>(tx.get_address() >> 2));
        strb.write(tx.is_write() ? ((1u << len) - 1) << lane : 0);
        wdata.write(v);
        wait(clk.posedge_event());
        const std::uint32_t r = rdata.read(); // as it was before this edge
        if (tx.is_read())
            for (unsigned i = 0; i < len; ++i)
                tx.get_data_ptr()[i] = static_cast<unsigned char>(r >> (8 * (lane + i)));
        wait(SC_ZERO_TIME);
        sel.write(false);
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    if (argc != 3) {
        std::fprintf(stderr, "usage: uartvp-naive v0|v1|v2 BYTES\n");
        return 2;
    }
    const std::string variant = argv[1];
    const auto write = variant == "v0"   ? uartvp::sw::pl011_early_write_v0
                       : variant == "v1" ? uartvp::sw::pl011_early_write_v1
                                         : uartvp::sw::pl011_early_write_v2;
    const auto payload = uartvp::sw::generate_boot_log(std::stoul(argv[2]));
    const auto wall0 = std::chrono::steady_clock::now();

    uartvp::cpu::timing_profile timing; // the hw profile: 1 GHz, reads 120 ns, writes 60 ns
    timing.regions.push_back({"uart", 0, 0x1000, sc_time(120, SC_NS), sc_time(60, SC_NS)});
    uartvp::cpu::core cpu("cpu0", 0, timing);
    cpu.set_collapse_polls(false);
    naive_pl011 uart("uart0");
    uartvp::line_monitor mon("console", 115200, *uartvp::serial_format::parse("8N1"));
    uartvp::scoreboard sb;
    cpu.bus.bind(uart.bus);
    mon.line(uart.txd);
    mon.on_char([&](const uartvp::decoded_char& c) { sb.observe(c.data, c.start); });

    uartvp::sw::uart_port port;
    std::uint64_t bytes = 0;
    // 115200 at 25 MHz: 25e6 / (16 x 115200) = 13.5634, IBRD 13, FBRD round(0.5634 x 64) = 36.
    cpu.add_task("firmware", [&] { uartvp::sw::pl011_firmware_setup(port, 13, 36, 0x60); });
    cpu.add_task("boot", [&] {
        for (const std::string& line : payload) {
            std::string out;
            for (char c : line)
                out += c == '\n' ? std::string("\r\n") : std::string(1, c);
            sb.expect(out);
            bytes += out.size();
            write(port, line);
        }
    });
    // Run until the boot task is done and the line has drained (the clock never lets time stop).
    while (!cpu.idle())
        sc_start(sc_time(1, SC_MS));
    sc_start(sc_time(4, SC_MS));
    sb.finish();
    const auto& boot = cpu.tasks().at(1);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    nlohmann::json j{{"scenario", "earlycon-pl011"},
                     {"variant", variant},
                     {"profile", "hw"},
                     {"mode", "naive"},
                     {"sim_time_ns", (boot.end - boot.start).to_seconds() * 1e9},
                     {"sim_end_ns", sc_time_stamp().to_seconds() * 1e9},
                     {"bytes_written", bytes},
                     {"bytes_on_line", sb.observed_count()},
                     {"lost_bytes", sb.lost()},
                     {"mmio_reads", boot.mmio_reads},
                     {"mmio_writes", boot.mmio_writes},
                     {"transactions", cpu.transactions()},
                     {"rtl_cycles", static_cast<std::uint64_t>(sc_time_stamp().to_seconds() * 25e6)},
                     {"wall_s", wall}};
    std::printf("%s\n", j.dump(2).c_str());
    return sb.clean() ? 0 : 1;
}

extern "C" int sc_main(int, char**) {
    return 3;
}
