// SPDX-License-Identifier: Apache-2.0
// The hvc layer of sw/hvc/ and its backends in tlm/ on the kernel model, routine by routine: the
// backends' registers (directions, errors, debug reads without side effects, OPAL's overflow), the output
// path (hvc_write keeps what OPAL's full buffer refuses with -EAGAIN and khvcd pushes it later), and
// throttling (a reader that does not read stops the polls from reading; its read unthrottles, and
// hvc_unthrottle's kick brings the rest, in order).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <array>
#include <string>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <uartvp/cpu/core.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>
#include <uartvp/hvc_backends.h>
#include <uartvp/router.h>

#include "drivers/tty/hvc/hvc_console.h"
#include "drivers/tty/hvc/hvc_opal.h"
#include "drivers/tty/hvc/virtio_console.h"
#include "sim_main.h"

using namespace uartvp;
using namespace sc_core;

namespace {

constexpr std::uint64_t base = 0x20000000;

std::string paste_text(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
        s += static_cast<char>('!' + (i * 7 + i / 13) % 90);
    return s;
}

// Drives one target's socket from a thread of its own: accesses and their responses.
struct driver : sc_module {
    tlm_utils::simple_initiator_socket<driver, 32> out{"out"};
    std::function<void(driver&)> script;
    explicit driver(const sc_module_name& n)
        : sc_module(n) {
        SC_HAS_PROCESS(driver);
        SC_THREAD(run);
    }
    void run() {
        if (script) script(*this);
    }
    tlm::tlm_response_status access(std::uint64_t addr, bool write, std::uint32_t& v, unsigned len = 4,
                                    bool debug = false) {
        tlm::tlm_generic_payload tx;
        tx.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        tx.set_address(addr);
        tx.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        if (debug) {
            out->transport_dbg(tx);
        } else {
            sc_time d = SC_ZERO_TIME;
            out->b_transport(tx, d);
        }
        return tx.get_response_status();
    }
    std::uint32_t read(std::uint64_t addr, bool debug = false) {
        std::uint32_t v = 0;
        EXPECT_EQ(access(addr, false, v, 4, debug), tlm::TLM_OK_RESPONSE) << std::hex << addr;
        return v;
    }
    void write(std::uint64_t addr, std::uint32_t v) {
        EXPECT_EQ(access(addr, true, v), tlm::TLM_OK_RESPONSE) << std::hex << addr;
    }
};

// A machine of `cores` cores on a bus with one backend at `base`, its interrupt line to cpu0.
template <class dev_t> struct bench : sc_module {
    cpu::machine m;
    router bus{"bus"};
    dev_t dev;
    sc_signal<bool> irq{"irq", false};
    int line = -1;
    template <class... args_t>
    bench(unsigned cores, const sc_time& access_cost, args_t... args)
        : sc_module("bench")
        , m("machine", cores,
            [&] {
                cpu::timing_profile t;
                t.regions.push_back({"hvc", base, 0x1000, access_cost, access_cost});
                return t;
            }())
        , dev("dev", args...) {
        for (auto& c : m.cores)
            c->bus.bind(bus.target);
        bus.map(dev.bus, base, dev_t::map_size(), "hvc");
        dev.irq(irq);
        line = m.add_irq_line(irq, "hvc", 0);
    }
};

} // namespace

TEST(HvcBackends, OpalRegistersKeepTheirRulesDebugReadsChangeNothingAndAFullBufferLoses) {
    UARTVP_SIM_TEST();
    opal_console dev("opal", 4);
    driver d("d");
    sc_signal<bool> irq("irq", false);
    d.out.bind(dev.bus);
    dev.irq(irq);
    dev.paste({"abcdefghij", sc_time(10, SC_US), 1000, 10});
    bool done = false;
    d.script = [&](driver& t) {
        std::uint32_t v = 0;
        EXPECT_EQ(t.access(opal_console::WRITE_DATA, false, v), tlm::TLM_COMMAND_ERROR_RESPONSE)
            << "write only";
        EXPECT_EQ(t.access(opal_console::POLL_EVENTS, true, v), tlm::TLM_COMMAND_ERROR_RESPONSE)
            << "read only";
        EXPECT_EQ(t.access(opal_console::map_size(), false, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(t.access(2, false, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "misaligned";
        EXPECT_EQ(t.access(opal_console::POLL_EVENTS, false, v, 1), tlm::TLM_BURST_ERROR_RESPONSE);
        for (const hvc_reg& r : opal_console::registers())
            if (r.readable && r.offset != opal_console::HANDLE_INTERRUPT)
                EXPECT_EQ(t.read(r.offset), r.reset) << r.name;
        wait(sc_time(30, SC_US)); // the burst came at 20 us: 10 bytes at 1000 KB/s from 10 us
        EXPECT_TRUE(irq.read());
        EXPECT_EQ(t.read(opal_console::BUFFERED), 4u);
        EXPECT_EQ(t.read(opal_console::LOST), 6u) << "the buffer holds 4";
        EXPECT_EQ(t.read(opal_console::HANDLE_INTERRUPT, true), opal_console::OPAL_EVENT_CONSOLE_INPUT);
        wait(SC_ZERO_TIME);
        EXPECT_TRUE(irq.read()) << "a debug read acknowledges nothing";
        EXPECT_EQ(t.read(opal_console::HANDLE_INTERRUPT), opal_console::OPAL_EVENT_CONSOLE_INPUT);
        wait(SC_ZERO_TIME);
        EXPECT_FALSE(irq.read());
        t.write(opal_console::READ_LEN, 16);
        EXPECT_EQ(t.read(opal_console::READ_LEN), 4u) << "granted what is there";
        EXPECT_EQ(t.read(opal_console::READ_DATA, true), 'a');
        std::string got;
        for (int i = 0; i < 5; ++i)
            got += static_cast<char>(t.read(opal_console::READ_DATA));
        EXPECT_EQ(got, std::string("abcd") + '\0') << "the first four in order, then nothing";
        EXPECT_EQ(t.read(opal_console::POLL_EVENTS), 0u);
        done = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done);
}

TEST(HvcBackends, VirtioQueueHandsOutOneFilledBufferAtATimeAndTheHostWaitsForAFreeOne) {
    UARTVP_SIM_TEST();
    virtio_console_rx dev("virtio", 1, 4); // one buffer of 4 bytes
    driver d("d");
    sc_signal<bool> irq("irq", false);
    d.out.bind(dev.bus);
    dev.irq(irq);
    dev.paste({"abcdefgh", SC_ZERO_TIME, 1000, 4});
    bool done = false;
    d.script = [&](driver& t) {
        std::uint32_t v = 1;
        EXPECT_EQ(t.access(virtio_console_rx::ADD_BUF, true, v), tlm::TLM_COMMAND_ERROR_RESPONSE)
            << "no buffer in hand to give back";
        wait(sc_time(20, SC_US)); // both bursts are due; the queue has one buffer
        EXPECT_TRUE(irq.read());
        EXPECT_EQ(t.read(virtio_console_rx::ISR, true), 1u);
        EXPECT_EQ(t.read(virtio_console_rx::ISR), 1u);
        wait(SC_ZERO_TIME);
        EXPECT_FALSE(irq.read());
        EXPECT_EQ(t.read(virtio_console_rx::USED), 1u);
        EXPECT_EQ(t.read(virtio_console_rx::AVAIL), 0u);
        EXPECT_EQ(t.read(virtio_console_rx::GET_BUF), 4u);
        EXPECT_EQ(t.read(virtio_console_rx::GET_BUF), 0u) << "one buffer in the guest's hands";
        std::string got;
        for (int i = 0; i < 4; ++i)
            got += static_cast<char>(t.read(virtio_console_rx::DATA));
        EXPECT_EQ(got, "abcd");
        t.write(virtio_console_rx::ADD_BUF, 1);
        wait(sc_time(1, SC_US));
        EXPECT_TRUE(irq.read()) << "the waiting burst took the buffer given back";
        EXPECT_EQ(dev.host_waits(), 1u);
        EXPECT_EQ(t.read(virtio_console_rx::GET_BUF), 4u);
        got.clear();
        for (int i = 0; i < 4; ++i)
            got += static_cast<char>(t.read(virtio_console_rx::DATA));
        EXPECT_EQ(got, "efgh");
        done = true;
    };
    sc_start(sc_time(1, SC_MS));
    EXPECT_TRUE(done);
}

// 1000 bytes written into OPAL's 256-byte output buffer (drained at 100 KB/s, slower than 16 bytes per push
// of 29.4 us): hvc_push gets -EAGAIN whenever 16 bytes do not fit, hvc_write keeps them and kicks khvcd,
// which pushes them on its polls; the writer sleeps until the poll's tty_wakeup (do_wakeup, set by the
// refused push: the writer and khvcd take turns, as in the kernel). Everything comes out once, in order.
TEST(HvcConsole, HvcWriteKeepsWhatOpalRefusesWithEagainAndKhvcdPushesItInOrder) {
    UARTVP_SIM_TEST();
    bench<opal_console> b(1, SC_ZERO_TIME, std::uint64_t{4096});
    b.dev.paste({"", SC_ZERO_TIME, 100, 16}); // output drains at 100 KB/s: slower than the pushes
    sw::opal().base = base;
    sw::opal().irq = b.line;
    sw::hvc_struct hp;
    sw::tty_struct tty;
    const std::string text = paste_text(1000);
    bool written = false;
    b.m.cpu(0).create_task("writer", [&] {
        ASSERT_EQ(sw::opal_event_init(0), 0);
        sw::hvc_init(sw::hvc_read_loop::batching, 0);
        sw::hvc_alloc(hp, 0, sw::hvc_opal_raw_ops(), b.line);
        ASSERT_EQ(sw::hvc_open(hp, tty), 0);
        sw::tty_write(tty, reinterpret_cast<const unsigned char*>(text.data()), text.size());
        written = true;
    });
    sc_start(sc_time(2, SC_SEC));
    EXPECT_TRUE(written);
    EXPECT_EQ(b.dev.output(), text);
    // Each refused push came back later.
    EXPECT_GT(sw::hvc_state().push_eagain, 10u) << "the firmware's buffer was full";
    EXPECT_GT(sw::hvc_state().khvcd_passes, 10u) << "khvcd pushed, kicked by hvc_write";
    EXPECT_EQ(hp.n_outbuf, 0);
}

// A reader that waits 50 ms before reading: the line discipline's 4096 bytes fill, the tty throttles,
// the polls read nothing while it is; each read unthrottles and hvc_unthrottle kicks khvcd for more.
TEST(HvcConsole, AThrottledTtyStopsTheReadsAndItsUnthrottleKicksKhvcdForTheRest) {
    UARTVP_SIM_TEST();
    bench<virtio_console_rx> b(2, sc_time(50, SC_NS), 16u, std::uint64_t{4096});
    const std::string text = paste_text(12288);
    b.dev.paste({text, sc_time(1, SC_MS), 1000, 4096});
    sw::virtio_console().base = base;
    sw::virtio_console().irq = b.line;
    sw::hvc_struct hp;
    sw::tty_struct tty;
    hp.port.flush_cpu = 1;
    bool opened = false;
    b.m.cpu(0).create_task("init", [&] {
        ASSERT_EQ(sw::virtio_console_probe(), 0);
        sw::hvc_init(sw::hvc_read_loop::batching, 1);
        sw::hvc_alloc(hp, 0, sw::hv_ops_virtio(), b.line);
        ASSERT_EQ(sw::hvc_open(hp, tty), 0);
        opened = true;
    });
    std::string got;
    std::uint64_t throttled_polls_before_read = 0;
    b.m.cpu(1).create_task("reader", [&] {
        kapi::msleep(50);
        throttled_polls_before_read = sw::hvc_state().throttled_polls;
        EXPECT_TRUE(tty.throttled);
        std::array<unsigned char, 4096> buf;
        while (got.size() < text.size()) {
            const std::size_t n = sw::n_tty_read(tty, buf.data(), buf.size());
            got.append(reinterpret_cast<const char*>(buf.data()), n);
        }
    });
    sc_start(sc_time(1, SC_SEC));
    EXPECT_TRUE(opened);
    EXPECT_EQ(got, text);
    EXPECT_GE(tty.throttles, 2u);
    EXPECT_GE(throttled_polls_before_read, 2u) << "the later buffers' interrupts found the tty throttled";
}
