// SPDX-License-Identifier: Apache-2.0
// hello: sets the PL011 up, prints one line ('\n' sent as "\r\n"), waits until it has left, powers off.
#include "firmware.h"

int main(void)
{
	pl011_setup();
	pl011_puts("Hello from uartvp firmware\n");
	pl011_wait_idle();
	return 0;
}
