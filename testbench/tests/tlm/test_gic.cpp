// SPDX-License-Identifier: Apache-2.0
// The GICv2 subset (uartvp::gicv2) against IHI 0048B: reset values, acknowledge and end of interrupt,
// level and edge lines, priority masking, ordering and preemption, enables, the pending latch, byte
// accesses, a PPI, unbound inputs, the 64-bit sockets behind router64, errors and debug reads.
#include <functional>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <uartvp/gic.h>
#include <uartvp/router.h>

#include "sim_main.h"
#include "tlm_payload.h"

using namespace uartvp;
using namespace sc_core;

namespace {

using uartvp::test::set_access;

constexpr std::uint64_t GICD_CTLR = 0x000, GICD_TYPER = 0x004, GICD_IIDR = 0x008, GICD_ISENABLER = 0x100,
                        GICD_ICENABLER = 0x180, GICD_ISPENDR = 0x200, GICD_ICPENDR = 0x280,
                        GICD_ISACTIVER = 0x300, GICD_IPRIORITYR = 0x400, GICD_ITARGETSR = 0x800,
                        GICD_ICFGR = 0xC00;
constexpr std::uint64_t GICC_CTLR = 0x000, GICC_PMR = 0x004, GICC_BPR = 0x008, GICC_IAR = 0x00C,
                        GICC_EOIR = 0x010, GICC_RPR = 0x014, GICC_HPPIR = 0x018, GICC_IIDR = 0x0FC;
constexpr std::uint32_t spurious = 1023;

// A GIC with both regions on their own 32-bit initiator sockets, its lines on signals (all of them, or
// none), and the test's body in a thread.
struct bench : sc_module {
    tlm_utils::simple_initiator_socket<bench, 32> dist{"dist"}, cpu{"cpu"};
    gicv2 gic;
    sc_vector<sc_signal<bool>> spi, ppi;
    sc_signal<bool> irq{"irq"};
    std::function<void(bench&)> body;
    bool finished = false;

    bench(const sc_module_name& n, std::function<void(bench&)> b, bool bind_lines = true)
        : sc_module(n)
        , gic("gic")
        , spi("spi", gic.num_spis())
        , ppi("ppi", 16)
        , body(std::move(b)) {
        dist.bind(gic.distributor);
        cpu.bind(gic.cpu_interface);
        gic.irq(irq);
        if (bind_lines) {
            gic.spi.bind(spi);
            gic.ppi.bind(ppi);
        }
        SC_HAS_PROCESS(bench);
        SC_THREAD(run);
    }
    void run() {
        body(*this);
        finished = true;
        sc_stop();
    }

    tlm::tlm_response_status access(bool distributor, bool write, std::uint64_t addr, std::uint32_t& v,
                                    unsigned len) {
        tlm::tlm_generic_payload tx;
        sc_time d = SC_ZERO_TIME;
        set_access(tx, write, addr, v, len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        (distributor ? dist : cpu)->b_transport(tx, d);
        return tx.get_response_status();
    }
    void wr_d(std::uint64_t addr, std::uint32_t v, unsigned len = 4) {
        EXPECT_EQ(access(true, true, addr, v, len), tlm::TLM_OK_RESPONSE) << std::hex << addr;
    }
    std::uint32_t rd_d(std::uint64_t addr, unsigned len = 4) {
        std::uint32_t v = 0;
        EXPECT_EQ(access(true, false, addr, v, len), tlm::TLM_OK_RESPONSE) << std::hex << addr;
        return v;
    }
    void wr_c(std::uint64_t addr, std::uint32_t v) {
        EXPECT_EQ(access(false, true, addr, v, 4), tlm::TLM_OK_RESPONSE) << std::hex << addr;
    }
    std::uint32_t rd_c(std::uint64_t addr) {
        std::uint32_t v = 0;
        EXPECT_EQ(access(false, false, addr, v, 4), tlm::TLM_OK_RESPONSE) << std::hex << addr;
        return v;
    }
    // Let irq follow (it changes one delta cycle after a line or an access).
    void settle() { wait(10, SC_NS); }
    void enable_both(std::uint32_t pmr = 0xFF) {
        wr_d(GICD_CTLR, 1);
        wr_c(GICC_CTLR, 1);
        wr_c(GICC_PMR, pmr);
    }
    void enable(unsigned intid, std::uint8_t priority) {
        wr_d(GICD_IPRIORITYR + intid, priority, 1);
        wr_d(GICD_ISENABLER + 4 * (intid / 32), 1u << (intid % 32));
    }
    sc_signal<bool>& line(unsigned intid) { return intid < 32 ? ppi[intid - 16] : spi[intid - 32]; }
    // Acknowledges, expecting `intid`, and checks that irq then falls (nothing else to signal).
    void take(unsigned intid) {
        EXPECT_EQ(rd_c(GICC_IAR), intid);
        EXPECT_TRUE(gic.active(intid));
        settle();
    }
};

void simulate(const std::function<void(bench&)>& body, bool bind_lines = true) {
    bench b("b", body, bind_lines);
    sc_start();
    EXPECT_TRUE(b.finished);
}

} // namespace

TEST(Gic, ResetValuesIdentifyAGicv2WithIrqLowAndEverythingMasked) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.rd_d(GICD_CTLR), 0u);
        EXPECT_EQ(b.rd_d(GICD_TYPER), 2u) << "64 SPIs: INTIDs 0..95, ITLinesNumber 2, CPUNumber 0";
        EXPECT_EQ(b.rd_d(GICD_IIDR), 0x43Bu);
        EXPECT_EQ(b.rd_d(GICD_ISENABLER), 0u);
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 32), 0u);
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR), 0x01010101u) << "SGIs target CPU0";
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR + 16), 0x01010101u) << "PPIs target CPU0";
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR + 32), 0x01010101u) << "SPIs reset to CPU0";
        EXPECT_EQ(b.rd_d(GICD_ICFGR), 0xAAAAAAAAu) << "SGIs are edge-triggered";
        EXPECT_EQ(b.rd_d(GICD_ICFGR + 4), 0u) << "PPIs level";
        EXPECT_EQ(b.rd_d(GICD_ICFGR + 8), 0u) << "SPIs level";
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR + 96), 0u) << "beyond the last SPI: RAZ";
        EXPECT_EQ(b.rd_c(GICC_CTLR), 0u);
        EXPECT_EQ(b.rd_c(GICC_PMR), 0u);
        EXPECT_EQ(b.rd_c(GICC_BPR), 0u);
        EXPECT_EQ(b.rd_c(GICC_RPR), 0xFFu) << "idle";
        EXPECT_EQ(b.rd_c(GICC_HPPIR), spurious);
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        EXPECT_EQ(b.rd_c(GICC_IIDR), 0x0202143Bu);
    });
}

TEST(Gic, SpiLineRaisesIrqIarTakesItAndEoirWithTheLineLowLeavesNothingPending) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(37, 0x80);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        b.spi[5] = true; // INTID 37
        b.settle();
        EXPECT_TRUE(b.irq.read());
        EXPECT_TRUE(b.gic.pending(37));
        EXPECT_EQ(b.rd_c(GICC_HPPIR), 37u);
        EXPECT_EQ(b.rd_c(GICC_IAR), 37u);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_TRUE(b.gic.active(37));
        EXPECT_EQ(b.rd_c(GICC_RPR), 0x80u);
        EXPECT_EQ(b.rd_d(GICD_ISACTIVER + 4), 1u << 5);
        b.spi[5] = false;
        b.settle();
        b.wr_c(GICC_EOIR, 37);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_FALSE(b.gic.pending(37));
        EXPECT_FALSE(b.gic.active(37));
        EXPECT_EQ(b.rd_c(GICC_RPR), 0xFFu);
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
    });
}

TEST(Gic, LevelLineStillHighAfterEoirIsSignalledAgain) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(40, 0x10);
        b.spi[8] = true;
        b.settle();
        b.take(40);
        EXPECT_FALSE(b.irq.read()) << "active and pending is not signalled";
        EXPECT_TRUE(b.gic.pending(40));
        EXPECT_EQ(b.rd_d(GICD_ISPENDR + 4), 1u << 8);
        b.wr_c(GICC_EOIR, 40);
        b.settle();
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd_c(GICC_IAR), 40u);
    });
}

TEST(Gic, PriorityEqualToPmrIsNotSignalledOneBelowIs) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both(0x80);
        b.enable(33, 0x80);
        b.spi[1] = true;
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        EXPECT_EQ(b.rd_c(GICC_HPPIR), 33u) << "HPPIR is not masked by PMR";
        b.wr_c(GICC_PMR, 0x81);
        b.settle();
        EXPECT_TRUE(b.irq.read());
        b.wr_c(GICC_PMR, 0);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.rd_c(GICC_PMR), 0u);
    });
}

TEST(Gic, HighestPriorityIsTakenFirstAndTiesGoToTheLowestIntid) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(35, 0x60);
        b.enable(50, 0x40);
        b.enable(40, 0x40);
        for (unsigned id : {35u, 50u, 40u})
            b.line(id) = true;
        b.settle();
        EXPECT_EQ(b.rd_c(GICC_HPPIR), 40u);
        b.take(40);
        EXPECT_FALSE(b.irq.read()) << "50 has the running priority, 35 a lower one";
        for (unsigned id : {40u, 50u, 35u})
            b.line(id) = false;
        b.wr_c(GICC_EOIR, 40);
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "the lines are low and nothing was latched";
        for (unsigned id : {35u, 50u, 40u})
            b.line(id) = true;
        b.settle();
        b.take(40);
        b.line(40) = false;
        b.wr_c(GICC_EOIR, 40);
        b.settle();
        EXPECT_TRUE(b.irq.read());
        b.take(50);
        b.line(50) = false;
        b.wr_c(GICC_EOIR, 50);
        b.settle();
        b.take(35);
    });
}

TEST(Gic, OnlyAStrictlyHigherPriorityPreemptsAndTheLowerIsTakenAfterEoir) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(35, 0x80);
        b.enable(36, 0x80);
        b.enable(37, 0x40);
        b.line(35) = true;
        b.settle();
        b.take(35);
        EXPECT_EQ(b.rd_c(GICC_RPR), 0x80u);
        b.line(36) = true;
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "equal to the running priority";
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        b.line(37) = true;
        b.settle();
        EXPECT_TRUE(b.irq.read());
        b.take(37);
        EXPECT_EQ(b.rd_c(GICC_RPR), 0x40u);
        b.line(37) = false;
        b.wr_c(GICC_EOIR, 37);
        b.settle();
        EXPECT_EQ(b.rd_c(GICC_RPR), 0x80u) << "back to the interrupted one";
        EXPECT_FALSE(b.irq.read());
        b.line(35) = false;
        b.wr_c(GICC_EOIR, 35);
        b.settle();
        EXPECT_EQ(b.rd_c(GICC_RPR), 0xFFu);
        EXPECT_TRUE(b.irq.read());
        b.take(36);
    });
}

TEST(Gic, EdgeTriggeredSpiLatchesAShortPulseALevelOneDoesNot) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(41, 0x20);                    // edge
        b.enable(42, 0x20);                    // level
        b.wr_d(GICD_ICFGR + 8, 2u << (2 * 9)); // INTID 41: field 9 of ICFGR2
        EXPECT_EQ(b.rd_d(GICD_ICFGR + 8), 2u << 18);
        b.spi[9] = true;
        b.spi[10] = true;
        wait(1, SC_NS);
        b.spi[9] = false;
        b.spi[10] = false;
        b.settle();
        EXPECT_TRUE(b.irq.read());
        EXPECT_TRUE(b.gic.pending(41));
        EXPECT_FALSE(b.gic.pending(42));
        b.take(41);
        EXPECT_FALSE(b.gic.pending(41));
        EXPECT_FALSE(b.irq.read());
        b.spi[9] = true; // a new edge while active: active and pending
        b.settle();
        EXPECT_TRUE(b.gic.pending(41));
        b.wr_c(GICC_EOIR, 41);
        b.settle();
        EXPECT_TRUE(b.irq.read());
        b.take(41);
        b.wr_c(GICC_EOIR, 41);
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "a line held high is one edge";
    });
}

TEST(Gic, IcenablerStopsSignallingIsenablerResumesIt) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(64, 0x30);
        b.line(64) = true;
        b.settle();
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd_d(GICD_ISENABLER + 8), 1u);
        b.wr_d(GICD_ICENABLER + 8, 1);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_EQ(b.rd_d(GICD_ISENABLER + 8), 0u);
        EXPECT_EQ(b.rd_d(GICD_ICENABLER + 8), 0u);
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        EXPECT_TRUE(b.gic.pending(64)) << "disabled, still pending";
        b.wr_d(GICD_ISENABLER + 8, 1);
        b.settle();
        EXPECT_TRUE(b.irq.read());
    });
}

TEST(Gic, IspendrLatchesPendingAndIcpendrClearsTheLatchButNotAHighLine) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(45, 0x30);
        b.wr_d(GICD_ISPENDR + 4, 1u << 13);
        b.settle();
        EXPECT_TRUE(b.gic.pending(45));
        EXPECT_EQ(b.rd_d(GICD_ICPENDR + 4), 1u << 13);
        EXPECT_TRUE(b.irq.read());
        b.wr_d(GICD_ICPENDR + 4, 1u << 13);
        b.settle();
        EXPECT_FALSE(b.gic.pending(45));
        EXPECT_FALSE(b.irq.read());
        b.line(45) = true;
        b.wr_d(GICD_ICPENDR + 4, 1u << 13);
        b.settle();
        EXPECT_TRUE(b.irq.read()) << "a level line high stays pending";
        b.line(45) = false;
        b.wr_d(GICD_ISPENDR + 4, 1u << 13);
        b.settle();
        b.take(45);
        EXPECT_FALSE(b.gic.pending(45)) << "acknowledged: the latch is gone";
        b.wr_c(GICC_EOIR, 45);
        b.enable(3, 0x10);
        b.wr_d(GICD_ISPENDR, 1u << 3); // an SGI: write ignored
        b.settle();
        EXPECT_FALSE(b.gic.pending(3));
        EXPECT_EQ(b.rd_d(GICD_ISPENDR), 0u);
        EXPECT_FALSE(b.irq.read());
    });
}

TEST(Gic, IarReadsSpuriousWhenNothingIsPending) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(32, 0);
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        EXPECT_EQ(b.rd_c(GICC_HPPIR), spurious);
        b.wr_c(GICC_EOIR, spurious); // ignored
        EXPECT_EQ(b.rd_c(GICC_RPR), 0xFFu);
    });
}

TEST(Gic, DistributorOrCpuInterfaceDisabledSignalsNothing) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable(34, 0x10);
        b.line(34) = true;
        b.wr_c(GICC_PMR, 0xFF);
        b.wr_c(GICC_CTLR, 1);
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "GICD_CTLR off";
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        b.wr_d(GICD_CTLR, 1);
        b.settle();
        EXPECT_TRUE(b.irq.read());
        b.wr_c(GICC_CTLR, 0);
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "GICC_CTLR off";
        EXPECT_EQ(b.rd_c(GICC_IAR), spurious);
        EXPECT_FALSE(b.gic.active(34));
        b.wr_c(GICC_CTLR, 1);
        b.settle();
        EXPECT_TRUE(b.irq.read());
    });
}

TEST(Gic, IpriorityrAndItargetsrTakeByteAccessesOtherRegistersOnlyWords) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.wr_d(GICD_IPRIORITYR + 37, 0xA5, 1);
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 36), 0xA500u) << "all 8 priority bits";
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 37, 1), 0xA5u);
        b.wr_d(GICD_IPRIORITYR + 36, 0x44332211);
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 38, 1), 0x33u);
        b.wr_d(GICD_IPRIORITYR + 36, 0x7777, 2); // halfword: WI
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 36), 0x44332211u);
        EXPECT_EQ(b.rd_d(GICD_IPRIORITYR + 36, 2), 0u) << "halfword: RAZ";
        b.wr_d(GICD_ISENABLER + 4, 1, 1); // byte to a word-only register: WI
        EXPECT_EQ(b.rd_d(GICD_ISENABLER + 4), 0u);
        EXPECT_EQ(b.rd_d(GICD_TYPER, 1), 0u) << "byte from a word-only register: RAZ";

        b.wr_d(GICD_ITARGETSR + 3, 0x02, 1); // an SGI's: read only
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR), 0x01010101u);
        b.enable_both();
        b.enable(38, 0x10);
        b.line(38) = true;
        b.wr_d(GICD_ITARGETSR + 38, 0x02, 1); // CPU1: not there
        EXPECT_EQ(b.rd_d(GICD_ITARGETSR + 36), 0x01020101u);
        b.settle();
        EXPECT_FALSE(b.irq.read()) << "targets no CPU we have";
        b.wr_d(GICD_ITARGETSR + 38, 0x03, 1);
        b.settle();
        EXPECT_TRUE(b.irq.read());
    });
}

TEST(Gic, PpiIntid27WorksLikeAnSpi) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(27, 0x20);                 // the EL1 virtual timer on QEMU's virt
        b.wr_d(GICD_ICFGR + 4, 0xFFFFFFFF); // PPIs: level, read only here
        EXPECT_EQ(b.rd_d(GICD_ICFGR + 4), 0u);
        b.ppi[11] = true;
        b.settle();
        EXPECT_TRUE(b.irq.read());
        EXPECT_EQ(b.rd_d(GICD_ISPENDR), 1u << 27);
        b.take(27);
        b.ppi[11] = false;
        b.wr_c(GICC_EOIR, 27);
        b.settle();
        EXPECT_FALSE(b.irq.read());
        EXPECT_FALSE(b.gic.pending(27));
        EXPECT_FALSE(b.gic.active(27));
    });
}

TEST(Gic, UnboundInputsReadLowBesideBoundOnes) {
    UARTVP_SIM_TEST();
    sc_signal<bool> uart_irq("uart_irq"), timer("timer");
    bench b(
        "b",
        [&](bench& t) {
            t.enable_both();
            for (unsigned id = 16; id < 96; ++id)
                t.enable(id, 0x10);
            t.settle();
            EXPECT_FALSE(t.irq.read()) << "the unbound lines are low";
            uart_irq = true; // QEMU's virt: the PL011 on SPI 1
            t.settle();
            EXPECT_TRUE(t.irq.read());
            t.take(33);
            uart_irq = false;
            t.wr_c(GICC_EOIR, 33);
            timer = true; // INTID 30, the EL1 physical timer
            t.settle();
            t.take(30);
            t.wr_c(GICC_EOIR, 30);
            EXPECT_EQ(t.rd_d(GICD_ISPENDR + 4), 0u);
            EXPECT_EQ(t.rd_d(GICD_ISPENDR + 8), 0u);
        },
        false);
    b.gic.spi[1](uart_irq);
    b.gic.ppi[14](timer);
    sc_start();
    EXPECT_TRUE(b.finished);
}

TEST(Gic, ReadOutsideTheRegionAnswersAnAddressErrorBadWidthsInsideReadZero) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        std::uint32_t v = 0xDEAD;
        EXPECT_EQ(b.access(true, false, gicv2::distributor_size, v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(b.access(true, false, gicv2::distributor_size - 2, v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(b.access(false, false, gicv2::cpu_interface_size, v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(b.access(false, true, gicv2::cpu_interface_size + 0x10, v, 4),
                  tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(b.access(false, false, GICC_IAR + 1, v, 4), tlm::TLM_OK_RESPONSE) << "misaligned: RAZ";
        EXPECT_EQ(v, 0u);
        EXPECT_EQ(b.rd_d(0xF00), 0u) << "unmodelled (GICD_SGIR): RAZ";
        EXPECT_EQ(b.rd_c(0x1000), 0u) << "unmodelled (GICC_DIR): RAZ";
        b.wr_c(GICC_BPR, 0xFF);
        EXPECT_EQ(b.rd_c(GICC_BPR), 7u) << "BPR: 3 bits, stored";
    });
}

TEST(Gic, DebugReadOfIarShowsTheInterruptWithoutTakingIt) {
    UARTVP_SIM_TEST();
    simulate([](bench& b) {
        b.enable_both();
        b.enable(39, 0x10);
        b.line(39) = true;
        b.settle();
        std::uint32_t v = 0;
        tlm::tlm_generic_payload tx;
        set_access(tx, false, GICC_IAR, v, 4);
        EXPECT_EQ(b.cpu->transport_dbg(tx), 4u);
        EXPECT_EQ(v, 39u);
        b.settle();
        EXPECT_FALSE(b.gic.active(39));
        EXPECT_TRUE(b.irq.read());
        set_access(tx, true, GICC_EOIR, v, 4);
        EXPECT_EQ(b.cpu->transport_dbg(tx), 0u) << "debug writes are refused";
        b.take(39);
    });
}

namespace {
struct cpu64 : sc_module {
    tlm_utils::simple_initiator_socket<cpu64, 64> socket{"socket"};
    explicit cpu64(const sc_module_name& n)
        : sc_module(n) {}
    std::uint64_t access(bool write, std::uint64_t addr, std::uint64_t v = 0) {
        tlm::tlm_generic_payload tx;
        sc_time d(5, SC_NS); // waited out: the access happens at its time
        set_access(tx, write, addr, v, 4);
        socket->b_transport(tx, d);
        EXPECT_EQ(tx.get_response_status(), tlm::TLM_OK_RESPONSE) << std::hex << addr;
        EXPECT_EQ(d, SC_ZERO_TIME);
        return v;
    }
};
struct runner : sc_module {
    std::function<void()> body;
    runner(const sc_module_name& n, std::function<void()> f)
        : sc_module(n)
        , body(std::move(f)) {
        SC_HAS_PROCESS(runner);
        SC_THREAD(run);
    }
    void run() { body(); }
};
} // namespace

TEST(Gic, SitsOnRouter64AtQemuVirtAddressesWithMoreSpis) {
    UARTVP_SIM_TEST();
    constexpr std::uint64_t gicd = 0x08000000, gicc = 0x08010000;
    cpu64 cpu("cpu");
    router64 bus("bus");
    gicv2 gic("gic", 96);
    sc_signal<bool> irq("irq"), line("line");
    cpu.socket.bind(bus.target);
    bus.map(gic.distributor64, gicd, gicv2::distributor_size, "gicd");
    bus.map(gic.cpu_interface64, gicc, gicv2::cpu_interface_size, "gicc");
    gic.irq(irq);
    gic.spi[95](line); // INTID 127
    EXPECT_THROW(gicv2("too_many", gicv2::max_spis + 1), std::invalid_argument);
    bool finished = false;
    runner r("r", [&] {
        EXPECT_EQ(cpu.access(false, gicd + GICD_TYPER), 3u) << "128 INTIDs";
        cpu.access(true, gicd + GICD_CTLR, 1);
        cpu.access(true, gicc + GICC_CTLR, 1);
        cpu.access(true, gicc + GICC_PMR, 0xF0);
        cpu.access(true, gicd + GICD_IPRIORITYR + 124, 0xA0000000);
        cpu.access(true, gicd + GICD_ISENABLER + 12, 1u << 31);
        line = true;
        wait(10, SC_NS);
        EXPECT_TRUE(irq.read());
        EXPECT_EQ(cpu.access(false, gicc + GICC_IAR), 127u);
        wait(10, SC_NS);
        EXPECT_FALSE(irq.read());
        finished = true;
        sc_stop();
    });
    sc_start();
    EXPECT_TRUE(finished);
}
