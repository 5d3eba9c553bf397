// SPDX-License-Identifier: Apache-2.0
// The end of every run: PSCI SYSTEM_OFF through HVC #0 (QEMU's virt conduit at EL1; QEMU exits 0).
#include "firmware.h"

void system_off(void)
{
	register unsigned long x0 __asm__("x0") = PSCI_0_2_FN_SYSTEM_OFF;

	// SMCCC: x0-x17 may be clobbered by the call.
	__asm__ volatile("hvc #0"
			 : "+r"(x0)
			 :
			 : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
			   "x14", "x15", "x16", "x17", "memory");
	// It returned: nothing more runs.
	__asm__ volatile("msr daifset, #0xf" ::: "memory");
	for (;;)
		__asm__ volatile("wfi" ::: "memory");
}
