// SPDX-License-Identifier: Apache-2.0
// The platform the firmware runs on: QEMU's `-M virt` and uartvp's aarch64 platform share this map and
// ABI (docs/firmware.md). Entry at EL1h with the MMU off (data accesses are Device memory: no unaligned
// accesses, hence -mstrict-align), DAIF masked, FP/SIMD off (-mgeneral-regs-only).
#ifndef UARTVP_FIRMWARE_VIRT_H
#define UARTVP_FIRMWARE_VIRT_H

// ---- Memory -------------------------------------------------------------------------------------------
// RAM base. QEMU places its DTB here for ELF images, below the image (limited to the image's start).
#define VIRT_RAM_BASE 0x40000000UL
// Where the images are linked (virt.ld): 512 KiB above the RAM base, clear of QEMU's DTB.
#define VIRT_IMAGE_BASE 0x40080000UL

// ---- Payload mailbox ----------------------------------------------------------------------------------
// The host may place a little-endian u64 length here, then that many bytes (a boot log, '\n'-separated
// lines). Length 0 (memory reads zero when nothing was loaded) means "nothing". In RAM, 32 MiB above its
// base: 128 MiB of RAM (QEMU's -m 128M, uartvp's default) hold the image, the mailbox and 64 MiB of payload.
#define VIRT_MAILBOX_BASE 0x42000000UL
#define VIRT_MAILBOX_DATA (VIRT_MAILBOX_BASE + 8)
// A length above this is taken as no payload (not a mailbox the host wrote).
#define VIRT_MAILBOX_MAX_LEN (64UL << 20)

// ---- Line settings from the host ---------------------------------------------------------------------
// A host may leave the PL011's line settings for the earlycon programs here: the magic "UART", then IBRD,
// FBRD and LCRH_H, each a little-endian u32 (uartvp's earlycon-pl011 -a64 variants, from their --set
// keys). Without the magic (QEMU, or a host that leaves none) they use VIRT_PL011_IBRD/FBRD/LCRH below.
#define VIRT_CONFIG_BASE 0x41ff0000UL
#define VIRT_CONFIG_MAGIC 0x54524155u // "UART"

// ---- PL011 UART (ARM PrimeCell UART, DDI 0183) -------------------------------------------------------
// 32-bit accesses unless a routine says otherwise (the kernel's earlycon writes DR with an 8-bit store).
#define VIRT_PL011_BASE 0x09000000UL
#define VIRT_PL011_INTID 33u        // SPI 1, level
#define VIRT_PL011_UARTCLK 24000000u // 24 MHz on uartvp (QEMU ignores the divisor)

#define UART01x_DR 0x00
#define UART01x_RSR 0x04
#define UART01x_FR 0x18
#define UART011_IBRD 0x24
#define UART011_FBRD 0x28
#define UART011_LCRH 0x2c
#define UART011_CR 0x30
#define UART011_IFLS 0x34
#define UART011_IMSC 0x38
#define UART011_RIS 0x3c
#define UART011_MIS 0x40
#define UART011_ICR 0x44

#define UART01x_FR_BUSY (1u << 3)
#define UART01x_FR_RXFE (1u << 4)
#define UART01x_FR_TXFF (1u << 5)
#define UART011_FR_RXFF (1u << 6)
#define UART011_FR_TXFE (1u << 7)

#define UART011_LCRH_FEN (1u << 4)
#define UART011_LCRH_WLEN_8 (3u << 5)
#define UART011_CR_UARTEN (1u << 0)
#define UART011_CR_TXE (1u << 8)
#define UART011_CR_RXE (1u << 9)

#define UART011_RXIM (1u << 4)
#define UART011_TXIM (1u << 5)
#define UART011_RTIM (1u << 6)
#define UART011_ALL_INTS 0x7ffu

// 115200 8N1 from 24 MHz: 24e6 / (16 * 115200) = 13.0208: IBRD 13, FBRD round(0.0208 * 64) = 1.
#define VIRT_PL011_IBRD 13u
#define VIRT_PL011_FBRD 1u
#define VIRT_PL011_LCRH (UART011_LCRH_WLEN_8 | UART011_LCRH_FEN) // 0x70: 8N1, FIFOs on
#define VIRT_PL011_CR (UART011_CR_UARTEN | UART011_CR_TXE | UART011_CR_RXE) // 0x301

// ---- 16550 UART (uartvp only; QEMU's virt has none) ---------------------------------------------------
// Registers 4 bytes apart (reg-shift 2), 32-bit loads/stores, input clock 1.8432 MHz.
#define VIRT_16550_BASE 0x09100000UL
#define VIRT_16550_INTID 42u        // SPI 10
#define VIRT_16550_CLOCK 1843200u
#define VIRT_16550_REG_SHIFT 2
// 1.8432 MHz / (16 * 115200) = 1.
#define VIRT_16550_DIVISOR 1u

#define UART_RX 0  // RBR (read, DLAB=0)
#define UART_TX 0  // THR (write, DLAB=0)
#define UART_DLL 0 // divisor latch low (DLAB=1)
#define UART_IER 1
#define UART_DLM 1 // divisor latch high (DLAB=1)
#define UART_IIR 2 // read
#define UART_FCR 2 // write
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_MSR 6
#define UART_SCR 7

#define UART_FCR_ENABLE_FIFO 0x01
#define UART_FCR_CLEAR_RCVR 0x02
#define UART_FCR_CLEAR_XMIT 0x04
#define UART_LCR_WLEN8 0x03
#define UART_LCR_DLAB 0x80
#define UART_MCR_DTR 0x01
#define UART_MCR_RTS 0x02
#define UART_LSR_DR 0x01
#define UART_LSR_THRE 0x20
#define UART_LSR_TEMT 0x40
#define UART_LSR_BOTH_EMPTY (UART_LSR_THRE | UART_LSR_TEMT)
#define UART_FIFO_SIZE_16550 16u

// ---- GICv2 ----------------------------------------------------------------------------------------------
// QEMU's virt default (gic-version 2). Only these registers are used (uartvp's GIC is a subset).
#define VIRT_GICD_BASE 0x08000000UL
#define VIRT_GICC_BASE 0x08010000UL

#define GICD_CTLR 0x000
#define GICD_ISENABLER(n) (0x100 + 4 * (n)) // one bit per INTID, 32 a word
#define GICD_ICENABLER(n) (0x180 + 4 * (n))
#define GICD_IPRIORITYR(n) (0x400 + 4 * (n)) // one byte per INTID, 4 a word
#define GICD_ITARGETSR(n) (0x800 + 4 * (n))  // one byte per INTID, 4 a word (read-only for SGIs/PPIs)
#define GICD_ICFGR(n) (0xc00 + 4 * (n))      // two bits per INTID, 16 a word (bit 1: edge)

#define GICC_CTLR 0x00
#define GICC_PMR 0x04
#define GICC_IAR 0x0c
#define GICC_EOIR 0x10

#define GIC_INTID_MASK 0x3ffu
#define GIC_INTID_SPURIOUS 1023u

// ---- Generic timer ----------------------------------------------------------------------------------
// CNTFRQ_EL0, CNTVCT_EL0; the virtual timer (CNTV_CTL_EL0, CNTV_TVAL_EL0/CNTV_CVAL_EL0) is this PPI.
#define VIRT_VTIMER_INTID 27u
#define CNTV_CTL_ENABLE (1u << 0)
#define CNTV_CTL_IMASK (1u << 1)
#define CNTV_CTL_ISTATUS (1u << 2)

// ---- Power off ------------------------------------------------------------------------------------------
// PSCI SYSTEM_OFF through HVC #0 (QEMU's virt conduit at EL1; QEMU then exits with status 0).
#define PSCI_0_2_FN_SYSTEM_OFF 0x84000008UL

#endif
