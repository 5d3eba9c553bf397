// SPDX-License-Identifier: Apache-2.0
// The boot log the earlycon programs print: the host's payload from the mailbox (a little-endian u64
// length at 0x42000000, then the bytes), one line per console write, or a short built-in one.
#include "firmware.h"

static const char builtin_boot_log[] =
	"[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]\n"
	"[    0.000000] Linux version 6.1.0-uartvp (uartvp@virt) #1 SMP PREEMPT\n"
	"[    0.000000] Machine model: linux,dummy-virt\n"
	"[    0.000000] earlycon: pl11 at MMIO 0x0000000009000000 (options '')\n"
	"[    0.000000] printk: bootconsole [pl11] enabled\n";

uint64_t mailbox_length(void)
{
	// 8-byte aligned: one 64-bit load (little-endian as the CPU).
	uint64_t len = *(volatile const uint64_t *)VIRT_MAILBOX_BASE;

	return len <= VIRT_MAILBOX_MAX_LEN ? len : 0;
}

static void for_each_line(const char *s, uint64_t len, void (*write)(const char *s, unsigned int n))
{
	const char *end = s + len;

	while (s != end) {
		const char *line = s;

		while (s != end && *s++ != '\n')
			;
		write(line, (unsigned int)(s - line));
	}
}

void for_each_boot_log_line(void (*write)(const char *s, unsigned int n))
{
	uint64_t len = mailbox_length();

	if (len)
		for_each_line((const char *)VIRT_MAILBOX_DATA, len, write);
	else
		for_each_line(builtin_boot_log, sizeof(builtin_boot_log) - 1, write);
}
