#include "src/results/emit_test.hpp"

#include <set>

namespace kex {

namespace {

/// The checks, after the generated tables copies[] and clears[] (each ending in {0, 0})
/// and fills[] (ending in -1).
constexpr const char* kTestBody = R"C(enum { GUARD = 64, OFFSETS = 64, SMALL = 4097 };
static const size_t large[] = {4159, 5000, 8191, 8192, 8193, 12288, 16447, 65537, 131071, 262207, 1048579,
                               4194305, 16777223, 67108865};
static const size_t large_offsets[][2] = {{0, 0}, {1, 63}, {63, 1}, {17, 42}};
static unsigned char *srcbuf, *dstbuf;

/* The first difference in [d, d + n) from want (or from c when want is null), or in the
   guard bytes around it (0x5a), as one line; exits 1. */
static void check(const char *fn, size_t n, size_t so, size_t dof, const unsigned char *d, const void *ret,
                  const unsigned char *want, int c) {
  if (ret != d) {
    printf("%s n=%zu src+%zu dst+%zu: returned dst%+td, not dst\n", fn, n, so, dof, (const unsigned char *)ret - d);
    exit(1);
  }
  for (const unsigned char *p = d - GUARD; p < d + n + GUARD; ++p) {
    const int inside = p >= d && p < d + n;
    const unsigned char w = !inside ? 0x5a : want ? want[p - d] : (unsigned char)c;
    if (*p != w) {
      printf("%s n=%zu src+%zu dst+%zu: byte %td is 0x%02x, expected 0x%02x%s\n", fn, n, so, dof, p - d, *p, w,
             inside ? "" : " (guard)");
      exit(1);
    }
  }
}

static long calls;
static unsigned char fives[GUARD];
static int guards_ok(const unsigned char *d, size_t n) {
  return !memcmp(d - GUARD, fives, GUARD) && !memcmp(d + n, fives, GUARD);
}

static void copy_one(const char *fn, copy_fn f, size_t n, size_t so, size_t dof) {
  const unsigned char *s = srcbuf + so;
  unsigned char *d = dstbuf + GUARD + dof;
  const void *ret = f(d, s, n);
  ++calls;
  if (ret != d || memcmp(d, s, n) != 0 || !guards_ok(d, n)) check(fn, n, so, dof, d, ret, s, 0);
  memset(d, 0x5a, n);
}

static void clear_one(const char *fn, clear_fn f, size_t n, size_t dof, int c) {
  unsigned char *d = dstbuf + GUARD + dof;
  const void *ret = f(d, c, n);
  ++calls;
  if (ret != d || (n && (d[0] != c || memcmp(d, d + 1, n - 1) != 0)) || !guards_ok(d, n)) check(fn, n, 0, dof, d, ret, 0, c);
  memset(d, 0x5a, n);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : 0; /* one function's symbol: only it is checked */
  const size_t max = large[sizeof large / sizeof *large - 1];
  srcbuf = malloc(max + OFFSETS);
  dstbuf = malloc(max + OFFSETS + 3 * GUARD);
  if (!srcbuf || !dstbuf) {
    printf("cannot allocate %zu bytes twice\n", max);
    return 2;
  }
  memset(fives, 0x5a, GUARD);
  unsigned seed = 1;
  for (size_t i = 0; i < max + OFFSETS; ++i) { /* never the guard byte 0x5a */
    const unsigned char b = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    srcbuf[i] = b == 0x5a ? 0xa5 : b;
  }
  memset(dstbuf, 0x5a, max + OFFSETS + 3 * GUARD);
  for (size_t k = 0; copies[k].f; ++k) {
    if (only && strcmp(only, copies[k].name) != 0) continue;
    for (size_t n = 0; n <= SMALL; ++n)
      for (size_t so = 0; so < OFFSETS; ++so)
        for (size_t dof = 0; dof < OFFSETS; ++dof) copy_one(copies[k].name, copies[k].f, n, so, dof);
    for (size_t i = 0; i < sizeof large / sizeof *large; ++i)
      for (size_t o = 0; o < sizeof large_offsets / sizeof *large_offsets; ++o)
        copy_one(copies[k].name, copies[k].f, large[i], large_offsets[o][0], large_offsets[o][1]);
  }
  for (size_t k = 0; clears[k].f; ++k)
    for (size_t b = 0; fills[b] >= 0 && !(only && strcmp(only, clears[k].name) != 0); ++b) {
      for (size_t n = 0; n <= SMALL; ++n)
        for (size_t dof = 0; dof < OFFSETS; ++dof) clear_one(clears[k].name, clears[k].f, n, dof, fills[b]);
      for (size_t i = 0; i < sizeof large / sizeof *large; ++i)
        for (size_t o = 0; o < sizeof large_offsets / sizeof *large_offsets; ++o)
          clear_one(clears[k].name, clears[k].f, large[i], large_offsets[o][1], fills[b]);
    }
  if (only && !calls) {
    printf("%s: no such function here\n", only);
    return 2;
  }
  printf("ok: %ld calls, every byte and return value as the C library's\n", calls);
  return 0;
}
)C";

}  // namespace

std::vector<std::pair<std::string, Op>> tested_functions(const std::vector<SourceKernel>& kernels,
                                                         const std::optional<SourceDispatch>& dispatch) {
  if (dispatch) return {{dispatch->symbol, dispatch->op}};
  std::vector<std::pair<std::string, Op>> out;
  for (const SourceKernel& k : kernels)
    if (!k.libc) out.emplace_back(k.symbol, k.op);
  return out;
}

std::string test_program(const std::vector<SourceKernel>& kernels, const std::optional<SourceDispatch>& dispatch) {
  std::string decl, copies, clears, fills = "0, 0x17, ";
  for (const auto& [symbol, op] : tested_functions(kernels, dispatch)) {
    const bool copy = op == Op::copy;
    decl += "void *" + symbol + (copy ? "(void *, const void *, size_t);\n" : "(void *, int, size_t);\n");
    (copy ? copies : clears) += "\t{\"" + symbol + "\", " + symbol + "},\n";
  }
  std::set<int> fill_bytes;
  for (const SourceKernel& k : kernels)
    if (k.op == Op::clear && !k.libc && k.fill != 0 && k.fill != 0x17 && k.fill != 0x5a) fill_bytes.insert(k.fill);
  for (int b : fill_bytes) fills += std::to_string(b) + ", ";
  return "/*\n * Written by kex emit --test-program: checks the emitted functions against the C library's\n"
         " * memcpy and memset contract (build: cc -O2 -o test THIS_FILE EMITTED.s|.c; run: ./test,\n"
         " * or ./test SYMBOL for one of them).\n */\n"
         "#include <stddef.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n" +
         decl + "typedef void *(*copy_fn)(void *, const void *, size_t);\ntypedef void *(*clear_fn)(void *, int, size_t);\n" +
         "static const struct { const char *name; copy_fn f; } copies[] = {\n" + copies + "\t{0, 0}};\n" +
         "static const struct { const char *name; clear_fn f; } clears[] = {\n" + clears + "\t{0, 0}};\n" +
         "static const int fills[] = {" + fills + "-1};\n" + kTestBody;
}

}  // namespace kex
