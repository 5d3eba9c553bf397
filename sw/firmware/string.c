// SPDX-License-Identifier: Apache-2.0
// The two functions the compiler may emit calls to even in freestanding code (built with
// -fno-tree-loop-distribute-patterns so these loops stay loops). Byte accesses: the MMU is off, so
// memory is Device memory and unaligned accesses fault.
#include <stddef.h>

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}
