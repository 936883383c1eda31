/* A simple byte-at-a-time copy with memcpy's signature, to race against kex's kernels and
 * libc (README "Your own implementation"). Build it twice and race the two builds:
 *   gcc -O1 -shared -fPIC -fno-builtin -o copy-O1.so examples/my_copy.c
 *   gcc -O3 -shared -fPIC -fno-builtin -o copy-O3.so examples/my_copy.c
 *   kex run examples/load-ab.json -o ab.json
 * -fno-builtin keeps gcc from turning the loop into a call to memcpy. */
#include <stddef.h>

void *my_copy(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
  return dst;
}
