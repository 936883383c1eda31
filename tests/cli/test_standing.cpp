// Where the code a user brought stands (issue 53): every loaded routine gets a row per
// group it raced in, winning or not, with its rank and its time over the fastest's, over
// libc's and over glibc's fastest variant, with intervals.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

TEST_CASE("kex run --load: each loaded routine's standing at every size, winner or not" * doctest::test_suite("cli")) {
  TmpDir d;
  // A byte loop (last at 4 KiB by far) and rep movsb (near the front).
  const std::string slow = build_so(d, "slow", "void *slow(void *d, const void *s, unsigned long n) {\n"
                                               "  volatile char *a = d; const char *b = s;\n"
                                               "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n"
                                               "  return d;\n}\n");
  const std::string rep = build_so(d, "rep", "void *rep(void *d, const void *s, unsigned long n) {\n"
                                             "  void *r = d;\n"
                                             "  __asm__ volatile(\"rep movsb\" : \"+D\"(d), \"+S\"(s), \"+c\"(n) : : \"memory\");\n"
                                             "  return r;\n}\n");
  const ShellOut out = shell(kKex + " run memcpy glibc/__memcpy_sse2_unaligned --load slow=" + slow + ":slow --load rep=" +
                             rep + ":rep --sizes 256,4KiB --repetitions 6 -o " + (d / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  const size_t at = out.text.find("\nwhere your code stands (rank among the group's measured members;");
  REQUIRE(at != std::string::npos);
  const std::string t = out.text.substr(at);
  // Each routine's block: from its title to the next blank line or title.
  auto block = [&](const std::string& k) {
    const size_t b = t.find(k + ", copy (warm):\n");
    if (b == std::string::npos) return std::string();
    const size_t e = std::min(t.find("\nlib/", b + 1), t.find("\n\n", b));
    return t.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  const std::string slow_rows = block("lib/slow"), rep_rows = block("lib/rep");
  INFO(slow_rows << "\n" << rep_rows);
  // The byte loop is last of the four at 4 KiB, slower than libc and than glibc's variant.
  const size_t row = slow_rows.find("4 KiB     4/4  ");
  REQUIRE(row != std::string::npos);
  const std::string line = slow_rows.substr(row, slow_rows.find('\n', row) - row);
  CHECK(line.find("glibc/__memcpy_sse2_unaligned") != std::string::npos);
  CHECK(line.find("fastest") == std::string::npos);
  // Both sizes for both routines, ranked out of the four.
  for (const std::string& rows : {slow_rows, rep_rows}) {
    CHECK(rows.find("256 B     ") != std::string::npos);
    CHECK(rows.find("4 KiB     ") != std::string::npos);
    CHECK(rows.find("/4  ") != std::string::npos);
  }
  // The report's answer has the same table.
  const std::string page = slurp(d / "r.html");
  CHECK(page.find("<pre>where your code stands (rank among") != std::string::npos);
  CHECK(page.find("lib/slow, copy (warm):") != std::string::npos);
}
