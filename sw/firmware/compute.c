// SPDX-License-Identifier: Apache-2.0
// compute: a loop of arithmetic alone (no device access, no load or store), for an instruction rate:
// xorshift64 (Marsaglia) for 25 million rounds, about six instructions each, then the result in hex on
// the PL011 ("compute 0x...\n"), and power-off. The result is the same on every platform that executes
// the instructions correctly.
#include "firmware.h"

#define COMPUTE_ROUNDS 25000000u

int main(void)
{
	uint64_t x = 88172645463325252ull;

	for (uint32_t i = 0; i < COMPUTE_ROUNDS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	pl011_setup();
	pl011_puts("compute ");
	pl011_put_hex(x);
	pl011_puts("\n");
	pl011_wait_idle();
	return 0;
}
