// SPDX-License-Identifier: Apache-2.0
// The instruction-stub CPU: access costs from the timing profile, time of each access at the device,
// udelay and cpu_relax in simulated time, IRQs-off accounting, access widths, bus errors.
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include <gtest/gtest.h>

#include <tlm_utils/simple_target_socket.h>
#include <uartvp/cpu/core.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/initiator_id.h>

#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::kapi;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

// A register file that records when and how each access arrived, synchronising like a real target.
struct probe_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<probe_target, 32> socket{"socket"};
    struct access {
        sc_time at;
        bool write;
        std::uint64_t addr;
        unsigned size;
        std::uint32_t data;
    };
    std::vector<access> log;
    std::uint32_t value = 0x11223344;
    explicit probe_target(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_b_transport(this, &probe_target::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& d) {
        wait(d);
        d = sc_core::SC_ZERO_TIME;
        if (tx.get_address() >= 0x100) {
            tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        std::uint32_t v = 0;
        std::memcpy(&v, tx.get_data_ptr(), tx.get_data_length());
        if (tx.is_read()) std::memcpy(tx.get_data_ptr(), &value, tx.get_data_length());
        log.push_back({sc_core::sc_time_stamp(), tx.is_write(), tx.get_address(), tx.get_data_length(), v});
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

cpu::timing_profile profile() {
    cpu::timing_profile t;
    t.cpu_hz = 1'000'000'000;
    t.cpu_relax_cycles = 5;
    t.regions.push_back({"dev", 0, 0x100, sc_time(100, SC_NS), sc_time(40, SC_NS)});
    return t;
}

struct bench {
    cpu::core core{"cpu0", 0, profile()};
    probe_target dev{"dev"};
    bench() { core.bus.bind(dev.socket); }
};

} // namespace

TEST(CpuStub, AccessesArriveAtTheirIssueTimeAndCostTheirRegionsTime) {
    UARTVP_SIM_TEST();
    bench b;
    b.core.add_task("t", [] {
        writel(1, 0x10);   // at 0, costs 40 ns
        (void)readl(0x14); // at 40, costs 100 ns
        cpu_relax();       // 5 ns
        udelay(2);         // 2000 ns
        ndelay(15);
        writeb(2, 0x18); // at 2160
    });
    sc_core::sc_start();
    ASSERT_EQ(b.dev.log.size(), 3u);
    EXPECT_EQ(b.dev.log[0].at, sc_time(0, SC_NS));
    EXPECT_EQ(b.dev.log[1].at, sc_time(40, SC_NS));
    EXPECT_EQ(b.dev.log[2].at, sc_time(40 + 100 + 5 + 2000 + 15, SC_NS));
    const auto& t = b.core.tasks().at(0);
    EXPECT_EQ(t.mmio_reads, 1u);
    EXPECT_EQ(t.mmio_writes, 2u);
    EXPECT_EQ(t.relax, 1u);
    EXPECT_EQ(t.end - t.start, sc_time(2160 + 40, SC_NS));
}

TEST(CpuStub, AccessWidthsAndValues) {
    UARTVP_SIM_TEST();
    bench b;
    std::uint32_t l = 0;
    std::uint16_t w = 0;
    std::uint8_t c = 0;
    b.core.add_task("t", [&] {
        l = readl(0x00);
        w = readw(0x00);
        c = readb(0x00);
        writew(0xBEEF, 0x20);
    });
    sc_core::sc_start();
    EXPECT_EQ(l, 0x11223344u);
    EXPECT_EQ(w, 0x3344u);
    EXPECT_EQ(c, 0x44u);
    ASSERT_EQ(b.dev.log.size(), 4u);
    EXPECT_EQ(b.dev.log[0].size, 4u);
    EXPECT_EQ(b.dev.log[1].size, 2u);
    EXPECT_EQ(b.dev.log[2].size, 1u);
    EXPECT_EQ(b.dev.log[3].data, 0xBEEFu);
}

TEST(CpuStub, PortIoGoesToTheIoSpaceOnTheBus) {
    UARTVP_SIM_TEST();
    cpu::timing_profile t = profile();
    t.io_base = 0x80;
    t.regions.push_back({"io", 0x80, 0x80, sc_time(1700, SC_NS), sc_time(1700, SC_NS)});
    t.regions.erase(t.regions.begin()); // only the I/O range has a cost of its own
    cpu::core core("cpu0", 0, t);
    probe_target dev("dev");
    core.bus.bind(dev.socket);
    std::uint8_t v = 0;
    core.add_task("t", [&] {
        outb(0x41, 0x10);
        v = inb(0x15);
    });
    sc_core::sc_start();
    ASSERT_EQ(dev.log.size(), 2u);
    EXPECT_EQ(dev.log[0].addr, 0x90u);
    EXPECT_EQ(dev.log[0].size, 1u);
    EXPECT_EQ(dev.log[0].data, 0x41u);
    EXPECT_EQ(dev.log[1].addr, 0x95u);
    EXPECT_EQ(dev.log[1].at, sc_time(1700, SC_NS)) << "a port access costs what the profile says";
    EXPECT_EQ(v, 0x44u);
}

TEST(CpuStub, IrqsOffWindowsAreMeasured) {
    UARTVP_SIM_TEST();
    bench b;
    b.core.add_task("t", [] {
        irqflags f;
        local_irq_save(f);
        udelay(10);
        local_irq_restore(f);
        udelay(1);
        spinlock lock;
        spin_lock_irqsave(lock, f);
        irqflags inner;
        local_irq_save(inner); // nested: already off, the window goes on
        udelay(30);
        local_irq_restore(inner);
        udelay(5);
        spin_unlock_irqrestore(lock, f);
    });
    sc_core::sc_start();
    const auto& s = b.core.stats();
    EXPECT_EQ(s.irq_off_windows, 2u);
    EXPECT_EQ(s.irq_off_max, sc_time(35, SC_US));
    EXPECT_EQ(s.irq_off_total, sc_time(45, SC_US));
    EXPECT_FALSE(b.core.irqs_off.read());
}

TEST(CpuStub, TasksRunInOrderToCompletion) {
    UARTVP_SIM_TEST();
    bench b;
    std::vector<std::string> order;
    b.core.add_task("first", [&] {
        udelay(3);
        order.push_back("first");
    });
    b.core.add_task("second", [&] { order.push_back("second"); });
    sc_core::sc_start();
    EXPECT_EQ(order, (std::vector<std::string>{"first", "second"}));
    EXPECT_EQ(b.core.tasks()[1].start, sc_time(3, SC_US));
    EXPECT_TRUE(b.core.idle());
}

namespace {
// A target that applies every access at SystemC time plus its delay and says so (initiator_id's
// delay_exact): an unsynchronised one at once, the others after their wait (none, from the core).
struct exact_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<exact_target, 32> socket{"socket"};
    struct access {
        sc_time at; // the access's time: SystemC time plus its delay
        bool unsynchronised;
        sc_time served; // SystemC time when the target served it
    };
    std::vector<access> log;
    explicit exact_target(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_b_transport(this, &exact_target::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& d) {
        initiator_id* who = nullptr;
        tx.get_extension(who);
        const bool unsync = who && who->unsynchronised;
        if (who) who->delay_exact = true;
        if (!unsync) {
            wait(d);
            d = sc_core::SC_ZERO_TIME;
        }
        log.push_back({sc_core::sc_time_stamp() + d, unsync, sc_core::sc_time_stamp()});
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Ticks at `at`: SystemC activity due then.
struct alarm : sc_core::sc_module {
    sc_time at;
    SC_HAS_PROCESS(alarm);
    alarm(sc_core::sc_module_name n, sc_time t)
        : sc_module(n)
        , at(t) {
        SC_THREAD(run);
    }
    void run() { wait(at); }
};

std::vector<exact_target::access> run_ahead_task(bool collapse, std::uint64_t* ahead, sc_time alarm_at) {
    cpu::core core("cpu0", 0, profile());
    exact_target dev("dev");
    alarm a("alarm", alarm_at);
    core.bus.bind(dev.socket);
    core.set_collapse_polls(collapse);
    core.add_task("t", [] {
        writel(1, 0x10);   // at 0: the target tells the core it applies accesses at their time
        udelay(2);         // local work: the core's time runs ahead of SystemC's
        writel(2, 0x10);   // at 2040 ns
        (void)readl(0x14); // at 2080: a register not yet known to take its delay
        udelay(1);
        (void)readl(0x14); // at 3180
    });
    sc_core::sc_start();
    *ahead = core.accesses_ahead();
    return dev.log;
}
} // namespace

// With nothing for SystemC to do before an access's time, the core issues it without waiting for that
// time, unsynchronised, to a register whose target said it applies accesses at their time; the access's
// time is the literal one either way.
TEST(CpuStub, AccessesGoAheadUnsynchronisedWhereNothingComesBeforeThem) {
    UARTVP_SIM_TEST();
    std::uint64_t ahead = 0;
    const auto log = run_ahead_task(true, &ahead, sc_time(1, sc_core::SC_SEC));
    ASSERT_EQ(log.size(), 4u);
    const sc_time at[] = {sc_time(0, SC_NS), sc_time(2040, SC_NS), sc_time(2080, SC_NS),
                          sc_time(3180, SC_NS)};
    const bool unsync[] = {false, true, false, true};
    for (unsigned i = 0; i < 4; ++i) {
        EXPECT_EQ(log[i].at, at[i]) << "access " << i;
        EXPECT_EQ(log[i].unsynchronised, unsync[i]) << "access " << i;
    }
    EXPECT_EQ(log[1].served, sc_time(0, SC_NS)) << "served at once, 2 us before its time";
    EXPECT_EQ(ahead, 2u);
}

namespace {
// Records the times at which the core's write strobe changes.
struct strobe_log : sc_core::sc_module {
    const sc_core::sc_signal<bool>& write;
    std::vector<std::pair<sc_time, bool>> changes;
    SC_HAS_PROCESS(strobe_log);
    strobe_log(sc_core::sc_module_name n, const sc_core::sc_signal<bool>& w)
        : sc_module(n)
        , write(w) {
        SC_METHOD(on_change);
        sensitive << write;
        dont_initialize();
    }
    void on_change() { changes.emplace_back(sc_core::sc_time_stamp(), write.read()); }
};
} // namespace

// The bus signals (observe_bus) show an access issued ahead at its own time, for its cost.
TEST(CpuStub, AnAccessIssuedAheadShowsOnTheBusSignalsAtItsTime) {
    UARTVP_SIM_TEST();
    cpu::core core("cpu0", 0, profile());
    exact_target dev("dev");
    core.bus.bind(dev.socket);
    core.observe_bus();
    strobe_log log("log", core.mmio_write);
    core.add_task("t", [] {
        writel(1, 0x10); // at 0, 40 ns: its strobe falls at 40 ns
        udelay(1500);    // over max_ahead_ns: the core synchronises, past the strobe's fall
        udelay(2);
        writel(2, 0x10); // at 1,502,040 ns, issued ahead
    });
    sc_core::sc_start();
    ASSERT_EQ(dev.log.size(), 2u);
    EXPECT_TRUE(dev.log[1].unsynchronised);
    EXPECT_EQ(dev.log[1].at, sc_time(1'502'040, SC_NS));
    EXPECT_EQ(core.accesses_ahead(), 1u);
    const std::vector<std::pair<sc_time, bool>> want = {{sc_time(0, SC_NS), true},
                                                        {sc_time(40, SC_NS), false},
                                                        {sc_time(1'502'040, SC_NS), true},
                                                        {sc_time(1'502'080, SC_NS), false}};
    EXPECT_EQ(log.changes, want);
}

// Something due before the access's time (another process's wake at 1 us): the core waits for the
// access's time first, as always; after the alarm, nothing is due, and the last read goes ahead.
TEST(CpuStub, AccessesWaitForTheirTimeWhereSomethingComesFirst) {
    UARTVP_SIM_TEST();
    std::uint64_t ahead = 0;
    const auto log = run_ahead_task(true, &ahead, sc_time(1, SC_US));
    ASSERT_EQ(log.size(), 4u);
    EXPECT_EQ(log[1].at, sc_time(2040, SC_NS));
    EXPECT_FALSE(log[1].unsynchronised);
    EXPECT_EQ(log[1].served, sc_time(2040, SC_NS));
    EXPECT_TRUE(log[3].unsynchronised);
    EXPECT_EQ(log[3].at, sc_time(3180, SC_NS));
    EXPECT_EQ(ahead, 1u);
}

// Reference mode synchronises before every access.
TEST(CpuStub, AccessesAreSynchronisedInReferenceMode) {
    UARTVP_SIM_TEST();
    std::uint64_t ahead = 0;
    const auto log = run_ahead_task(false, &ahead, sc_time(1, sc_core::SC_SEC));
    ASSERT_EQ(log.size(), 4u);
    for (const auto& a : log) {
        EXPECT_FALSE(a.unsynchronised);
        EXPECT_EQ(a.served, a.at);
    }
    EXPECT_EQ(log[3].at, sc_time(3180, SC_NS));
    EXPECT_EQ(ahead, 0u);
}

TEST(CpuStub, BusErrorStopsTheTaskWithAMessage) {
    UARTVP_SIM_TEST();
    bench b;
    b.core.add_task("t", [] { (void)readl(0x200); });
    try {
        sc_core::sc_start();
        FAIL() << "a bus error must not pass silently";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("0x200"), std::string::npos) << e.what();
    }
}

namespace {
// A status register that reads 0 until `flip`, then 1, and promises it (read_promise).
struct flipping_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<flipping_target, 32> socket{"socket"};
    sc_time flip;
    sc_core::sc_event never;
    std::uint64_t transactions = 0;
    flipping_target(sc_core::sc_module_name n, sc_time f)
        : sc_module(n)
        , flip(f) {
        socket.register_b_transport(this, &flipping_target::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& d) {
        wait(d);
        d = sc_core::SC_ZERO_TIME;
        ++transactions;
        const std::uint32_t v = sc_core::sc_time_stamp() >= flip ? 1 : 0;
        std::memcpy(tx.get_data_ptr(), &v, tx.get_data_length());
        uartvp::read_promise* p = nullptr;
        tx.get_extension(p);
        if (p && v == 0) {
            p->valid = true;
            p->until = flip;
            p->broken = &never;
        }
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct poll_outcome {
    kapi::poll_result r;
    sc_time end;
    std::uint64_t reads, transactions;
    bool operator==(const poll_outcome& o) const {
        return r.value == o.r.value && r.reads == o.r.reads && r.timed_out == o.r.timed_out && end == o.end &&
               reads == o.reads;
    }
};

poll_outcome run_poll(bool collapse, unsigned long max_reads, sc_time flip) {
    cpu::core core("cpu0", 0, profile());
    flipping_target dev("dev", flip);
    core.bus.bind(dev.socket);
    core.set_collapse_polls(collapse);
    poll_outcome o{};
    core.add_task("t", [&] {
        o.r = poll_udelay(
            readl, 0x10, [](std::uint32_t v) { return v == 0; }, max_reads, 1);
    });
    sc_core::sc_start();
    o.end = core.tasks()[0].end;
    o.reads = core.tasks()[0].mmio_reads;
    o.transactions = dev.transactions;
    return o;
}
} // namespace

// Reads at 0, 1.1, 2.2, ... us (100 ns read + 1 us delay); the value flips at 50 us: the 46th read (at
// 49.5 us) still sees 0, the 47th (at 50.6 us) sees 1.
TEST(CpuStub, PollWithUdelayAsOneOperationMatchesTheLiteralLoop) {
    UARTVP_SIM_TEST();
    const pid_t pid = fork(); // two simulations: the literal loop in a child process
    if (pid == 0) {
        const poll_outcome lit = run_poll(false, 10000, sc_time(50, SC_US));
        // _exit: exit would run this process's exit handlers (a leak check among them) with the
        // GoogleTest test object, the parent's, still alive.
        _exit(lit.r.reads == 47 && !lit.r.timed_out && lit.r.value == 1 && lit.transactions == 47 &&
                      lit.end == sc_time(46 * 1100 + 100, SC_NS)
                  ? 0
                  : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the literal loop's counts";
    const poll_outcome fast = run_poll(true, 10000, sc_time(50, SC_US));
    EXPECT_EQ(fast.r.reads, 47u);
    EXPECT_FALSE(fast.r.timed_out);
    EXPECT_EQ(fast.r.value, 1u);
    EXPECT_EQ(fast.reads, 47u);
    EXPECT_EQ(fast.end, sc_time(46 * 1100 + 100, SC_NS));
    EXPECT_LT(fast.transactions, 5u) << "the reads before the flip were counted, not transported";
}

TEST(CpuStub, PollWithUdelayTimesOutAfterMaxReadsWithoutTheLastDelay) {
    UARTVP_SIM_TEST();
    const poll_outcome fast = run_poll(true, 10, sc_time(1, sc_core::SC_MS));
    EXPECT_TRUE(fast.r.timed_out);
    EXPECT_EQ(fast.r.reads, 10u);
    EXPECT_EQ(fast.r.value, 0u);
    EXPECT_EQ(fast.end, sc_time(9 * 1100 + 100, SC_NS)) << "10 reads, 9 delays between them";
}

// A loop on a value that will never change (promised until the end of time, nothing to break it): the
// simulation runs out of events instead of spinning forever, and the task is seen unfinished (the
// uartvp program reports that as an error).
TEST(CpuStub, PollingForAChangeThatCannotComeEndsTheSimulationWithTheTaskUnfinished) {
    UARTVP_SIM_TEST();
    cpu::core core("cpu0", 0, profile());
    flipping_target dev("dev", sc_core::sc_max_time());
    core.bus.bind(dev.socket);
    core.add_task("t", [] { spin_while(readl, 0x10, [](std::uint32_t v) { return v == 0; }); });
    sc_core::sc_start();
    EXPECT_FALSE(core.idle());
    EXPECT_LT(dev.transactions, 3u);
}

namespace {
// A register that reads 0, promised for ever, until another process sets it to 1 at `at` and
// breaks the promise.
struct breaking_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<breaking_target, 32> socket{"socket"};
    sc_time at;
    std::uint32_t value = 0;
    sc_core::sc_event broken;
    SC_HAS_PROCESS(breaking_target);
    breaking_target(sc_core::sc_module_name n, sc_time t)
        : sc_module(n)
        , at(t) {
        socket.register_b_transport(this, &breaking_target::b_transport);
        SC_THREAD(change);
    }
    void change() {
        wait(at);
        value = 1;
        broken.notify();
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& d) {
        wait(d);
        d = sc_core::SC_ZERO_TIME;
        std::memcpy(tx.get_data_ptr(), &value, tx.get_data_length());
        uartvp::read_promise* p = nullptr;
        tx.get_extension(p);
        if (p && value == 0) {
            p->valid = true;
            p->until = sc_core::sc_max_time();
            p->broken = &broken;
        }
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

void check_promise_broken_behind_the_core(bool traced) {
    // The first read is at 1000 ns; the core then runs ahead to its next read at 1105 ns (100 ns read,
    // 5 ns relax) while the value changes at 1050 ns: the literal loop reads twice, relaxes once and
    // ends at 1205 ns.
    cpu::core core("cpu0", 0, profile());
    breaking_target dev("dev", sc_time(1050, SC_NS));
    core.bus.bind(dev.socket);
    if (traced) core.observe_bus();
    core.add_task("t", [] {
        ndelay(1000);
        spin_while(readl, 0x10, [](std::uint32_t v) { return v == 0; });
    });
    sc_core::sc_start();
    ASSERT_TRUE(core.idle()) << "the task must finish";
    const auto& t = core.tasks()[0];
    EXPECT_EQ(t.mmio_reads, 2u);
    EXPECT_EQ(t.relax, 1u);
    EXPECT_EQ(t.end, sc_time(1205, SC_NS));
}
} // namespace

TEST(CpuStub, PromiseBrokenBeforeTheCoresOwnTimeCountsNoRead) {
    UARTVP_SIM_TEST();
    check_promise_broken_behind_the_core(false);
}
TEST(CpuStub, PromiseBrokenBeforeTheCoresOwnTimeCountsNoReadWhenTraced) {
    UARTVP_SIM_TEST();
    check_promise_broken_behind_the_core(true);
}

namespace {
// A register that reads 0 until 20 us (foreseen: promised until then), 1 until 37.3 us (a change
// nobody foresaw: promised for ever, broken when it comes), then 2; a promise_breaker counts breaks.
struct stepping_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<stepping_target, 32> socket{"socket"};
    std::uint32_t value = 0;
    std::uint64_t transactions = 0;
    uartvp::detail::promise_breaker breaker;
    SC_HAS_PROCESS(stepping_target);
    explicit stepping_target(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_b_transport(this, &stepping_target::b_transport);
        SC_THREAD(change);
    }
    void change() {
        wait(sc_time(20, SC_US));
        value = 1;
        wait(sc_time(17300, SC_NS));
        value = 2;
        breaker.fire(false, UINT_MAX);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_time& d) {
        wait(d);
        d = sc_core::SC_ZERO_TIME;
        ++transactions;
        std::memcpy(tx.get_data_ptr(), &value, tx.get_data_length());
        uartvp::read_promise* p = nullptr;
        tx.get_extension(p);
        if (p && value < 2) {
            breaker.promise(*p);
            p->until = value == 0 ? sc_time(20, SC_US) : sc_core::sc_max_time();
        }
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct literal_outcome {
    std::uint32_t last[2];
    std::uint64_t reads, relax, transactions;
    sc_time end;
};

// The kernel's loops as written: `while (readl(r) == v) cpu_relax();`, twice.
literal_outcome run_literal(bool collapse) {
    cpu::core core("cpu0", 0, profile());
    stepping_target dev("dev");
    core.bus.bind(dev.socket);
    core.set_collapse_polls(collapse);
    literal_outcome o{};
    core.add_task("t", [&] {
        ndelay(333);
        std::uint32_t v;
        while ((v = readl(0x10)) == 0)
            cpu_relax();
        o.last[0] = v;
        while ((v = readl(0x10)) == 1)
            cpu_relax();
        o.last[1] = v;
    });
    sc_core::sc_start();
    o.reads = core.tasks()[0].mmio_reads;
    o.relax = core.tasks()[0].relax;
    o.end = core.tasks()[0].end;
    o.transactions = dev.transactions;
    return o;
}
} // namespace

// Fast mode answers the reads a standing promise covers without transactions: the same values, read and
// relax counts and end time as every read a transaction (reference mode, in a child process), across a
// foreseen change (the promise's end) and one nobody foresaw (a break).
TEST(CpuStub, LiteralLoopReadsAnsweredFromPromisesMatchEveryReadATransaction) {
    UARTVP_SIM_TEST();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        const literal_outcome ref = run_literal(false);
        (void)!write(fds[1], &ref, sizeof ref);
        _exit(0);
    }
    close(fds[1]);
    literal_outcome ref{};
    const bool got = read(fds[0], &ref, sizeof ref) == static_cast<ssize_t>(sizeof ref);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(got && WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the reference run";
    EXPECT_EQ(ref.transactions, ref.reads) << "reference: every read a transaction";
    EXPECT_GT(ref.reads, 200u);
    const literal_outcome fast = run_literal(true);
    EXPECT_EQ(fast.last[0], 1u);
    EXPECT_EQ(fast.last[1], 2u);
    EXPECT_EQ(fast.last[0], ref.last[0]);
    EXPECT_EQ(fast.last[1], ref.last[1]);
    EXPECT_EQ(fast.reads, ref.reads);
    EXPECT_EQ(fast.relax, ref.relax);
    EXPECT_EQ(fast.end, ref.end);
    EXPECT_LT(fast.transactions, 10u) << "the covered reads were answered, not transported";
}

namespace {
struct flag_setter : sc_core::sc_module {
    sc_time at;
    bool flag = false;
    SC_HAS_PROCESS(flag_setter);
    flag_setter(sc_core::sc_module_name n, sc_time t)
        : sc_module(n)
        , at(t) {
        SC_THREAD(run);
    }
    void run() {
        wait(at);
        flag = true;
    }
};
} // namespace

// A loop that never reads (only cpu_relax(), or udelay()) still lets simulated time advance: the core
// synchronises once it ran a bound ahead, so another process's change reaches it (the loop ends
// within the bound after it) instead of the simulation standing still for ever.
TEST(CpuStub, LoopsThatNeverReadLetSimulatedTimeAdvance) {
    UARTVP_SIM_TEST();
    cpu::core core("cpu0", 0, profile());
    const sc_time ms(1, sc_core::SC_MS);
    flag_setter relax_until("relax_until", 2 * ms), delay_until("delay_until", 5 * ms);
    probe_target dev("dev");
    core.bus.bind(dev.socket);
    core.add_task("relax", [&] {
        for (std::uint64_t n = 0; !relax_until.flag && n < 100'000'000; ++n)
            cpu_relax();
    });
    core.add_task("udelay", [&] {
        for (std::uint64_t n = 0; !delay_until.flag && n < 100'000'000; ++n)
            udelay(1);
    });
    sc_core::sc_start();
    ASSERT_TRUE(core.idle());
    const sc_time bound(static_cast<double>(cpu::core::max_ahead_ns), SC_NS);
    EXPECT_LT(core.tasks()[0].relax, 100'000'000u) << "the flag ended the loop, not the count";
    EXPECT_GE(core.tasks()[0].end, 2 * ms);
    EXPECT_LE(core.tasks()[0].end, 2 * ms + bound + sc_time(10, SC_NS));
    EXPECT_LT(core.tasks()[1].start, 5 * ms) << "the udelay loop starts before its flag is set";
    EXPECT_GE(core.tasks()[1].end, 5 * ms);
    EXPECT_LE(core.tasks()[1].end, 5 * ms + bound + sc_time(1, SC_US));
}
