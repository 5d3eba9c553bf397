#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn in the bench
// The kernel model's rules, one by one: the scheduler (priority, first come first served, yielding),
// wait queues and wake-ups across cores, timers against jiffies at each HZ, interrupts (taken at their
// time, masked until IRQs are enabled again, routed to one core, their latency), irq_work, IPIs with the
// CSD lock and its debug reports at their times, contended spinlocks.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <uartvp/cpu/kernel.h>
#include <uartvp/cpu/machine.h>

#include "kernel_bench.h"
#include "sim_main.h"

using namespace uartvp;
using namespace uartvp::kapi;
using namespace sc_core;
using namespace uartvp::test::kernel_bench;

namespace {

// A machine with an interrupt line driven by the test.
struct bench : sc_module {
    // Raised by the test's thread, cleared by the handlers (another process).
    sc_signal<bool, SC_MANY_WRITERS> line{"line", false}, line2{"line2", false};
    cpu::machine m;
    no_bus bus{"bus"};
    int irq = -1, irq2 = -1;
    bench(unsigned cores, cpu::kernel_params p = {}, unsigned line_cpu = 0)
        : sc_module("bench")
        , m("machine", cores, timing(), p) {
        for (auto& c : m.cores)
            c->bus.bind(bus.target);
        irq = m.add_irq_line(line, "dev", line_cpu);
        irq2 = m.add_irq_line(line2, "dev2", cores > 1 ? 1 : 0);
    }
    // Raises the line at `at` and drops it when the handler says so (level: the handler clears it).
    void raise_at(sc_signal<bool, SC_MANY_WRITERS>& l, const sc_time& at) {
        sc_spawn([&l, at] {
            sc_core::wait(at);
            l.write(true);
        });
    }
};

} // namespace

// ---- the scheduler

TEST(KernelSched, LowerNiceFirstThenFirstComeFirstServed) {
    UARTVP_SIM_TEST();
    bench b(1);
    std::vector<std::string> order;
    b.m.cpu(0).create_task(
        "a", [&] { order.push_back("a"); }, 0);
    b.m.cpu(0).create_task(
        "b", [&] { order.push_back("b"); }, -5);
    b.m.cpu(0).create_task(
        "c", [&] { order.push_back("c"); }, 0);
    b.m.cpu(0).create_task(
        "d", [&] { order.push_back("d"); }, 5);
    sc_start(ms(1));
    EXPECT_EQ(order, (std::vector<std::string>{"b", "a", "c", "d"}));
}

TEST(KernelSched, ScheduleYieldsWithinALevelCondReschedOnlyToABetterTask) {
    UARTVP_SIM_TEST();
    bench b(1);
    std::vector<std::string> order;
    b.m.cpu(0).create_task("a", [&] {
        order.push_back("a1");
        cond_resched(); // b has the same nice: no switch
        order.push_back("a2");
        schedule(); // yields to b
        order.push_back("a3");
    });
    b.m.cpu(0).create_task("b", [&] {
        order.push_back("b1");
        kthread_run_on_cpu(
            [&](void*) {
                order.push_back("hi");
                return 0;
            },
            nullptr, 0, "hi")
            ->nice = -10;
        cond_resched(); // a better task is runnable: it runs now
        order.push_back("b2");
    });
    sc_start(ms(1));
    EXPECT_EQ(order, (std::vector<std::string>{"a1", "a2", "b1", "hi", "b2", "a3"}));
}

TEST(KernelSched, WakeUpFromAnotherCoreResumesTheWaiterAtTheWakersTime) {
    UARTVP_SIM_TEST();
    bench b(2);
    wait_queue_head wq;
    bool ready = false;
    sc_time resumed;
    b.m.cpu(1).create_task("waiter", [&] {
        wait_event(wq, [&] { return ready; });
        resumed = now_local();
    });
    b.m.cpu(0).create_task("waker", [&] {
        udelay(250);
        ready = true;
        wake_up(wq);
    });
    sc_start(ms(1));
    EXPECT_EQ(resumed, us(250));
    EXPECT_TRUE(b.m.cpu(1).idle());
}

TEST(KernelSched, KthreadStopEndsAThreadThatChecksShouldStop) {
    UARTVP_SIM_TEST();
    bench b(2);
    int loops = 0;
    sc_time stopped;
    b.m.cpu(0).create_task("boot", [&] {
        task_struct* t = kthread_run_on_cpu(
            [&](void*) {
                while (!kthread_should_stop()) {
                    ++loops;
                    msleep(1);
                }
                return 0;
            },
            nullptr, 1, "looper");
        msleep(20);
        kthread_stop(t);
        stopped = now_local();
    });
    sc_start(ms(100));
    EXPECT_GE(loops, 3); // msleep(1) at HZ 250 sleeps 2 jiffies: 8 ms
    EXPECT_GT(stopped, ms(20));
    EXPECT_LT(stopped, ms(40));
}

TEST(KernelSched, KworkerRunsQueuedWorkInOrderOnItsCore) {
    UARTVP_SIM_TEST();
    bench b(2);
    std::vector<std::pair<int, unsigned>> ran;
    work_struct w1, w2;
    w1.func = [&](work_struct*) { ran.emplace_back(1, smp_processor_id()); };
    w2.func = [&](work_struct*) { ran.emplace_back(2, smp_processor_id()); };
    bool twice = true;
    b.m.cpu(0).create_task("boot", [&] {
        EXPECT_TRUE(queue_work_on(1, w1));
        EXPECT_TRUE(queue_work_on(1, w2));
        twice = queue_work_on(1, w2); // already pending
    });
    sc_start(ms(1));
    EXPECT_FALSE(twice);
    EXPECT_EQ(ran, (std::vector<std::pair<int, unsigned>>{{1, 1}, {2, 1}}));
}

// ---- time

// msleep(ms) sleeps msecs_to_jiffies(ms) + 1 jiffies and wakes at that jiffy's tick.
void msleep_at(unsigned h) {
    cpu::kernel_params p;
    p.hz = h;
    bench b(1, p);
    sc_time woke;
    unsigned long j0 = 0, j1 = 0;
    b.m.cpu(0).create_task("sleeper", [&] {
        udelay(1500);
        j0 = jiffies();
        msleep(10);
        woke = now_local();
        j1 = jiffies();
    });
    sc_start(ms(100));
    const unsigned long want = j0 + msecs_to_jiffies(10) + 1;
    EXPECT_EQ(msecs_to_jiffies(10), (10ul * h + 999) / 1000);
    EXPECT_EQ(j1, want);
    EXPECT_EQ(woke, b.m.time_of_jiffy(want)) << "hz " << h;
    EXPECT_EQ(j0, static_cast<unsigned long>(1.5e-3 * h));
}

TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt100Hz) {
    UARTVP_SIM_TEST();
    msleep_at(100);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt250Hz) {
    UARTVP_SIM_TEST();
    msleep_at(250);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt300Hz) {
    UARTVP_SIM_TEST();
    msleep_at(300);
}
TEST(KernelTime, MsleepWakesAtTheTickOfItsJiffyAt1000Hz) {
    UARTVP_SIM_TEST();
    msleep_at(1000);
}

TEST(KernelTime, WaitEventTimeoutReturnsZeroWhenTheTimeRunsOut) {
    UARTVP_SIM_TEST();
    bench b(1);
    wait_queue_head wq;
    long left = -1;
    b.m.cpu(0).create_task("t", [&] {
        left = wait_event_timeout(
            wq, [] { return false; }, 5);
    });
    sc_start(ms(100));
    EXPECT_EQ(left, 0);
}

TEST(KernelTime, TheTickCostsItsTimeOnEveryCore) {
    UARTVP_SIM_TEST();
    cpu::kernel_params p;
    p.hz = 1000;
    p.tick_cost = us(2);
    bench b(2, p);
    sc_time end0;
    b.m.cpu(0).create_task("busy", [&] {
        udelay(10'000); // 10 ms of work: 10 ticks of 2 us come on top (the first at 1 ms)
        end0 = now_local();
    });
    sc_start(ms(50));
    EXPECT_EQ(end0, us(10'000 + 2 * 10));
    EXPECT_GE(b.m.cpu(1).stats().interrupts, 40u) << "the idle core ticks too";
}

// An hrtimer sleep ends at its own time, not at a jiffy's tick (HZ 250 here: ticks every 4 ms).
TEST(KernelTime, HrtimeoutWakesAtItsOwnTimeAbsoluteOrRelative) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time woke_abs, woke_rel;
    int r_abs = -1, r_rel = -1;
    ktime_t before = -1;
    b.m.cpu(0).create_task("sleeper", [&] {
        udelay(3);
        before = ktime_get();
        ktime_t t = 1'234'567;
        r_abs = schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke_abs = now_local();
        t = 10'000;
        r_rel = schedule_hrtimeout(&t, HRTIMER_MODE_REL);
        woke_rel = now_local();
    });
    sc_start(ms(20));
    EXPECT_EQ(before, 3000);
    EXPECT_EQ(r_abs, 0);
    EXPECT_EQ(woke_abs, sc_time(1'234'567, SC_NS));
    EXPECT_EQ(r_rel, 0);
    EXPECT_EQ(woke_rel, sc_time(1'244'567, SC_NS));
}

// The timer's interrupt waits for IRQs on at its core (the sleeper runs once the task holding the core
// gives it up); a wake-up before the time ends the sleep with -EINTR.
TEST(KernelTime, HrtimeoutWaitsForIrqsOnAndAnEarlyWakeUpReturnsEintr) {
    UARTVP_SIM_TEST();
    bench b(2);
    sc_time woke0, woke1;
    int r1 = 0;
    task_struct* sleeper1 = nullptr;
    b.m.cpu(0).create_task("sleeper", [&] {
        ktime_t t = 100'000;
        schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke0 = now_local();
    });
    b.m.cpu(0).create_task("holder", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(500); // the timer is due at 100 us, in here
        local_irq_restore(f);
        udelay(50); // then the holder still has the core
    });
    sleeper1 = &b.m.cpu(1).create_task("sleeper1", [&] {
        ktime_t t = 1'000'000;
        r1 = schedule_hrtimeout(&t, HRTIMER_MODE_ABS);
        woke1 = now_local();
    });
    b.m.cpu(0).create_task("waker", [&] { wake_up_process(sleeper1); }, 5); // after the holder
    sc_start(ms(5));
    EXPECT_EQ(woke0, us(550));
    EXPECT_EQ(r1, -4);
    EXPECT_EQ(woke1, us(550));
}

// ---- interrupts

TEST(KernelIrq, HandlerRunsAtTheAssertionTimeAndTheTaskResumesAfterIt) {
    UARTVP_SIM_TEST();
    cpu::kernel_params p;
    p.irq_entry = sc_time(300, SC_NS);
    p.irq_exit = sc_time(200, SC_NS);
    bench b(1, p);
    sc_time entered, task_end;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                udelay(5);
                b.line.write(false); // the handler clears the source
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(100); // the interrupt comes in the middle
        task_end = now_local();
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(40) + sc_time(300, SC_NS));
    EXPECT_EQ(task_end, us(105) + sc_time(500, SC_NS)) << "the task's work resumes after the handler";
    const auto& s = b.m.irq_lines()[static_cast<std::size_t>(b.irq)];
    EXPECT_EQ(s.count, 1u);
    EXPECT_EQ(s.latency_max, sc_time(300, SC_NS));
    EXPECT_EQ(b.m.cpu(0).stats().hardirq, us(5) + sc_time(500, SC_NS));
}

TEST(KernelIrq, MaskedInterruptIsTakenWhenIrqsAreEnabledAgain) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time entered;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq,
            [&](int, void*) {
                entered = now_local();
                b.line.write(false);
                return IRQ_HANDLED;
            },
            0, "dev", nullptr);
        udelay(10);
        irqflags f;
        local_irq_save(f);
        udelay(90); // the line rises at 40 us, in here
        local_irq_restore(f);
        udelay(10);
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(100));
    EXPECT_EQ(b.m.irq_lines()[static_cast<std::size_t>(b.irq)].latency_max, us(60));
    EXPECT_EQ(b.m.cpu(0).stats().irq_off_max, us(90));
}

TEST(KernelIrq, LineRoutedToAnotherCoreLeavesThisOneAlone) {
    UARTVP_SIM_TEST();
    bench b(2);
    sc_time task_end;
    unsigned handled_on = 99;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(
            b.irq2,
            [&](int, void*) {
                handled_on = smp_processor_id();
                b.line2.write(false);
                return IRQ_HANDLED;
            },
            0, "dev2", nullptr);
        udelay(100);
        task_end = now_local();
    });
    b.raise_at(b.line2, us(40));
    sc_start(ms(1));
    EXPECT_EQ(handled_on, 1u);
    EXPECT_EQ(task_end, us(100));
    EXPECT_EQ(b.m.cpu(0).stats().interrupts, 0u);
}

// The worst phase of an IRQs-off window: a task woken by the line's rise ahead of its interrupt
// (make_runnable_first) takes the idle core and disables IRQs at that very instant, so the handler
// waits for the whole window. Woken the plain way, the handler runs first.
sc_time handler_entry_with_window_at_the_rise(bool first) {
    cpu::kernel_params p;
    p.irq_entry = sc_time(300, SC_NS);
    bench b(1, p);
    sc_time entered, window_at;
    task_struct* hog = nullptr;
    b.m.cpu(0).create_task("boot", [&] {
        request_irq(b.irq, [&](int, void*) {
            entered = now_local();
            b.line.write(false);
            return IRQ_HANDLED;
        }, 0, "dev", nullptr);
    });
    hog = &b.m.cpu(0).create_task("hog", [&] {
        schedule_timeout(-1); // until the line rises
        irqflags f;
        local_irq_save(f);
        window_at = now_local();
        udelay(50);
        local_irq_restore(f);
    });
    b.m.on_irq_raised(b.irq, [&] {
        if (first)
            hog->cpu->make_runnable_first(*hog);
        else
            hog->cpu->make_runnable(*hog);
    });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(window_at, first ? us(40) : us(40) + sc_time(300, SC_NS));
    EXPECT_EQ(b.m.cpu(0).stats().irq_off_max, us(50));
    return entered;
}

TEST(KernelIrq, TaskWokenFirstAtTheRiseHoldsTheInterruptForItsWholeWindow) {
    UARTVP_SIM_TEST();
    EXPECT_EQ(handler_entry_with_window_at_the_rise(true), us(90) + sc_time(300, SC_NS));
}

TEST(KernelIrq, TaskWokenPlainlyAtTheRiseRunsAfterTheInterrupt) {
    UARTVP_SIM_TEST();
    EXPECT_EQ(handler_entry_with_window_at_the_rise(false), us(40) + sc_time(300, SC_NS));
}

// On a busy core the interrupt interrupts the running task at its time; the task woken first runs when
// the core is given up.
TEST(KernelIrq, TaskWokenFirstOnABusyCoreWaitsForTheCore) {
    UARTVP_SIM_TEST();
    bench b(1);
    sc_time entered, hog_ran;
    task_struct* hog = nullptr;
    hog = &b.m.cpu(0).create_task("hog", [&] {
        schedule_timeout(-1);
        hog_ran = now_local();
    });
    b.m.cpu(0).create_task("busy", [&] {
        request_irq(b.irq, [&](int, void*) {
            entered = now_local();
            b.line.write(false);
            return IRQ_HANDLED;
        }, 0, "dev", nullptr);
        udelay(200);
    });
    b.m.on_irq_raised(b.irq, [&] { hog->cpu->make_runnable_first(*hog); });
    b.raise_at(b.line, us(40));
    sc_start(ms(1));
    EXPECT_EQ(entered, us(40));
    EXPECT_EQ(hog_ran, us(200));
}

// A handler's accesses count for the task it interrupted; on an idle core, for the core's idle stats.
TEST(KernelIrq, HandlerAccessesCountForTheInterruptedTaskOrTheIdleCore) {
    UARTVP_SIM_TEST();
    struct ram : sc_module {
        tlm_utils::multi_passthrough_target_socket<ram, 32> target{"target"};
        explicit ram(const sc_module_name& n)
            : sc_module(n) {
            target.register_b_transport(this, &ram::b_transport);
        }
        void b_transport(int, tlm::tlm_generic_payload& tx, sc_time&) {
            std::memset(tx.get_data_ptr(), 0, tx.get_data_length());
            tx.set_response_status(tlm::TLM_OK_RESPONSE);
        }
    };
    sc_signal<bool, SC_MANY_WRITERS> line{"line", false};
    cpu::machine m("machine", 1, timing());
    ram mem("mem");
    m.cpu(0).bus.bind(mem.target);
    const int irq = m.add_irq_line(line, "dev", 0);
    m.cpu(0).create_task("boot", [&] {
        request_irq(irq, [&](int, void*) {
            (void)readl(0x1000);
            line.write(false);
            return IRQ_HANDLED;
        }, 0, "dev", nullptr);
        udelay(100); // the first interrupt comes in here
    });
    sc_spawn([&] {
        sc_core::wait(us(50));
        line.write(true);
        sc_core::wait(us(150)); // the core is idle by then
        line.write(true);
    });
    sc_start(ms(1));
    EXPECT_EQ(m.cpu(0).tasks()[0].mmio_reads, 1u);
    EXPECT_EQ(m.cpu(0).idle_stats().mmio_reads, 1u);
    EXPECT_EQ(m.irq_lines()[0].count, 2u);
}

TEST(KernelIrq, IrqWorkRunsAtTheNextIrqsOnPointLazyAtTheNextTick) {
    UARTVP_SIM_TEST();
    bench b(1); // HZ 250: ticks every 4 ms
    sc_time ran, ran_lazy;
    irq_work w, lazy;
    w.func = [&](irq_work*) { ran = now_local(); };
    lazy.func = [&](irq_work*) { ran_lazy = now_local(); };
    lazy.lazy = true;
    b.m.cpu(0).create_task("boot", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(10);
        irq_work_queue(&w);
        irq_work_queue(&lazy);
        udelay(20);
        local_irq_restore(f);
        udelay(10);
    });
    sc_start(ms(20));
    EXPECT_EQ(ran, us(30));
    EXPECT_EQ(ran_lazy, ms(4));
}

// ---- IPIs and the CSD lock

// CPU1 holds IRQs off from 0 to `hold`; CPU0 calls a function on CPU1 at 1 ms and waits for it.
struct ipi_run {
    sc_time called_at, returned_at, ran_at;
    std::vector<cpu::csd_report> reports;
};
ipi_run ipi_with_irqs_off(const sc_time& hold, bool debug, unsigned cores = 2) {
    cpu::kernel_params p;
    p.csdlock_debug = debug;
    p.csd_lock_timeout_ms = 5;
    bench b(cores, p);
    ipi_run r;
    b.m.cpu(1).create_task("replay", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(static_cast<unsigned long>(hold.to_seconds() * 1e6));
        local_irq_restore(f);
    });
    b.m.cpu(0).create_task("kworker", [&] {
        udelay(1000);
        r.called_at = now_local();
        smp_call_function_single(
            1, [&](void*) { r.ran_at = now_local(); }, nullptr, 1);
        r.returned_at = now_local();
    });
    sc_start(ms(200));
    r.reports = b.m.csd_reports();
    return r;
}

TEST(KernelSmp, CallerSpinsUntilTheTargetEnablesIrqsAndRunsTheFunction) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(10), false);
    EXPECT_EQ(r.called_at, ms(1));
    EXPECT_EQ(r.ran_at, ms(10));
    EXPECT_EQ(r.returned_at, ms(10));
    EXPECT_TRUE(r.reports.empty()) << "no reports without csdlock_debug";
}

TEST(KernelSmp, CsdDebugReportsDetectedAfterTheTimeoutThenUnstuck) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(10), true);
    ASSERT_EQ(r.reports.size(), 2u);
    EXPECT_EQ(r.reports[0].kind, cpu::csd_report::detected);
    EXPECT_EQ(r.reports[0].time, ms(6));
    EXPECT_EQ(r.reports[0].wait, ms(5));
    EXPECT_EQ(r.reports[0].cpu, 0u);
    EXPECT_EQ(r.reports[0].target_cpu, 1u);
    EXPECT_NE(r.reports[0].text.find("Detected non-responsive CSD lock"), std::string::npos);
    EXPECT_EQ(r.reports[1].kind, cpu::csd_report::unstuck);
    EXPECT_EQ(r.reports[1].time, ms(10));
    EXPECT_NE(r.reports[1].text.find("got unstuck"), std::string::npos);
}

// The waves' IPI signal of the target: high from the call until its handler ran the queue (IRQs off on
// the target until 10 ms); the observers see the IPI's hard-IRQ span and the target's IRQs-off window.
TEST(KernelSmp, IpiSignalAndSpansShowTheCallPendingThenHandled) {
    UARTVP_SIM_TEST();
    bench b(2);
    struct spans : cpu::core_observer {
        std::vector<std::string> seen;
        void irqs_off_span(const cpu::core& c, const sc_time& s, const sc_time& e) override {
            seen.push_back("cpu" + std::to_string(c.id()) + " irqs off " + s.to_string() + " " +
                           e.to_string());
        }
        void hardirq_span(const cpu::core& c, const std::string& what, const sc_time& s,
                          const sc_time& e) override {
            seen.push_back("cpu" + std::to_string(c.id()) + " " + what + " " + s.to_string() + " " +
                           e.to_string());
        }
    } obs;
    b.m.cpu(1).add_observer(obs);
    std::vector<std::pair<sc_time, bool>> ipi;
    sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&b.m.ipi[1]->value_changed_event());
    sc_spawn([&] { ipi.emplace_back(sc_time_stamp(), b.m.ipi[1]->read()); }, "ipi_watch", &o);
    b.m.cpu(1).create_task("replay", [&] {
        irqflags f;
        local_irq_save(f);
        udelay(10000);
        local_irq_restore(f);
    });
    b.m.cpu(0).create_task("caller", [&] {
        udelay(1000);
        smp_call_function_single(
            1, [&](void*) { udelay(5); }, nullptr, 1);
    });
    sc_start(ms(20));
    ASSERT_EQ(ipi.size(), 2u);
    EXPECT_EQ(ipi[0], std::make_pair(ms(1), true));
    EXPECT_EQ(ipi[1], std::make_pair(ms(10) + us(5), false));
    ASSERT_EQ(obs.seen.size(), 2u);
    EXPECT_EQ(obs.seen[0], "cpu1 irqs off 0 s " + ms(10).to_string());
    EXPECT_EQ(obs.seen[1], "cpu1 IPI " + ms(10).to_string() + " " + (ms(10) + us(5)).to_string());
}

// Re-reports come when the time since the previous one exceeds timeout x (n+1) x (ilog2(cpus)/2 + 1):
// with 4 CPUs and a 5 ms timeout: detected at +5 ms, continued 20 ms later, then 30 ms after that.
TEST(KernelSmp, CsdDebugReReportsAtGrowingIntervals) {
    UARTVP_SIM_TEST();
    const ipi_run r = ipi_with_irqs_off(ms(70), true, 4);
    ASSERT_EQ(r.reports.size(), 4u);
    EXPECT_EQ(r.reports[0].time, ms(6));
    EXPECT_EQ(r.reports[1].kind, cpu::csd_report::continued);
    EXPECT_EQ(r.reports[1].time, ms(26));
    EXPECT_EQ(r.reports[2].time, ms(56));
    EXPECT_EQ(r.reports[3].kind, cpu::csd_report::unstuck);
    EXPECT_EQ(r.reports[3].time, ms(70));
}

TEST(KernelSmp, KickAllCpusSyncWaitsForEveryOtherCpu) {
    UARTVP_SIM_TEST();
    bench b(3);
    sc_time returned;
    for (unsigned c = 1; c < 3; ++c)
        b.m.cpu(c).create_task("hold", [c] {
            irqflags f;
            local_irq_save(f);
            udelay(c * 100);
            local_irq_restore(f);
        });
    b.m.cpu(0).create_task("kick", [&] {
        udelay(10);
        kick_all_cpus_sync();
        returned = now_local();
    });
    sc_start(ms(5));
    EXPECT_EQ(returned, us(200));
}

// ---- spinlocks

TEST(KernelSpinlock, ContendedLockCostsSpinningAndSpinningWithIrqsOffCountsAsIrqsOff) {
    UARTVP_SIM_TEST();
    bench b(2);
    spinlock lock;
    sc_time got;
    b.m.cpu(0).create_task("holder", [&] {
        spin_lock(lock);
        udelay(500);
        spin_unlock(lock);
    });
    b.m.cpu(1).create_task("spinner", [&] {
        udelay(100);
        irqflags f;
        spin_lock_irqsave(lock, f);
        got = now_local();
        udelay(50);
        spin_unlock_irqrestore(lock, f);
    });
    sc_start(ms(5));
    EXPECT_EQ(got, us(500));
    EXPECT_EQ(b.m.cpu(1).stats().irq_off_max, us(450));
}
