// musl's memcpy, memmove and memset from Debian's musl-dev through the object loader:
// the members of its libc.a, the pieces and the one relocation (memmove's jump to
// __memcpy_fwd in memcpy.lo), and the bytes run against libc's results. Skipped, with a
// message, where musl-dev is not installed (the README's `make test` installs it).
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "src/core/error.hpp"
#include "src/run/file_sha256.hpp"
#include "src/run/object_code.hpp"
#include "tests/support/object_files.hpp"

using namespace kex;

namespace {

const std::string kMuslLibc = "/usr/lib/x86_64-linux-musl/libc.a";

bool have_musl() {
  struct stat st;
  if (stat(kMuslLibc.c_str(), &st) == 0) return true;
  MESSAGE("skipped: " << kMuslLibc << " is missing (Debian's musl-dev)");
  return false;
}

using CopyFn = void* (*)(void*, const void*, size_t);
using SetFn = void* (*)(void*, int, size_t);

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 7 + 3);
  return v;
}

}  // namespace

TEST_CASE("musl: memcpy.lo's memcpy is one piece without relocations and copies every size to 300" *
          doctest::test_suite("object")) {
  if (!have_musl()) return;
  const ObjectCode code = load_object_symbol(kMuslLibc + "(memcpy.lo)", "memcpy");
  REQUIRE(code.pieces.size() == 1);
  CHECK(code.pieces[0].object == "memcpy.lo");
  CHECK(code.pieces[0].section == ".text");
  CHECK(code.pieces[0].size == 50);
  CHECK(code.relocations.empty());
  CHECK(code.sha256 == file_sha256(kMuslLibc, kMaxLoadedFile, "archive"));
  ExecutableCode x(code.bytes);
  const CopyFn fn = x.at<CopyFn>(code.entry);
  const std::vector<uint8_t> src = pattern(320);
  for (size_t n = 0; n <= 300; ++n)
    for (size_t off : {0, 1, 7}) {
      std::vector<uint8_t> dst(320, 0xee), want(320, 0xee);
      std::memcpy(want.data() + off, src.data() + off, n);
      CHECK(fn(dst.data() + off, src.data() + off, n) == dst.data() + off);
      REQUIRE(dst == want);
    }
}

TEST_CASE("musl: memmove pulls in memcpy.lo for __memcpy_fwd and moves overlapping buffers both ways" *
          doctest::test_suite("object")) {
  if (!have_musl()) return;
  const ObjectCode code = load_object_symbol(kMuslLibc + "(memmove.lo)", "memmove");
  REQUIRE(code.pieces.size() == 2);
  CHECK(code.pieces[0].object == "memmove.lo");
  CHECK(code.pieces[0].size == 37);
  CHECK(code.pieces[1].object == "memcpy.lo");
  CHECK(code.pieces[1].offset == 37);
  REQUIRE(code.relocations.size() == 1);
  CHECK(code.relocations[0].type == "R_X86_64_PLT32");
  CHECK(code.relocations[0].symbol == "__memcpy_fwd");
  CHECK(code.relocations[0].offset == 11);
  CHECK(code.relocations[0].value == 37 - 4 - 11);  // the jae to memcpy.lo's start
  ExecutableCode x(code.bytes);
  const CopyFn fn = x.at<CopyFn>(code.entry);
  for (size_t n : {0, 1, 15, 64, 200})
    for (long distance : {-64L, -3L, -1L, 1L, 5L, 64L, 300L}) {
      std::vector<uint8_t> buf = pattern(900), want = buf;  // room for 300 + 300 + 200
      uint8_t* s = buf.data() + 300;
      std::memmove(want.data() + 300 + distance, want.data() + 300, n);
      CHECK(fn(s + distance, s, n) == s + distance);
      INFO("n " << n << " distance " << distance);
      REQUIRE(buf == want);
    }
}

TEST_CASE("musl: memset.lo's memset sets every size to 300 at several offsets" * doctest::test_suite("object")) {
  if (!have_musl()) return;
  const ObjectCode code = load_object_symbol(kMuslLibc + "(memset.lo)", "memset");
  REQUIRE(code.pieces.size() == 1);
  CHECK(code.pieces[0].size == 196);
  CHECK(code.relocations.empty());
  ExecutableCode x(code.bytes);
  const SetFn fn = x.at<SetFn>(code.entry);
  for (size_t n = 0; n <= 300; ++n)
    for (size_t off : {0, 3}) {
      std::vector<uint8_t> dst(320, 0xee), want(320, 0xee);
      std::memset(want.data() + off, 0x5a, n);
      CHECK(fn(dst.data() + off, 0x15a, n) == dst.data() + off);  // only the low byte of c counts
      REQUIRE(dst == want);
    }
}

TEST_CASE("musl: a member named wrong is refused in one line naming the nearest members" * doctest::test_suite("object")) {
  if (!have_musl()) return;
  const auto error = [](const std::string& member) {
    try {
      load_object_symbol(kMuslLibc + "(" + member + ")", "memcpy");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  const std::string typo = error("memcpyy.lo");
  CHECK(typo.starts_with(kMuslLibc + ": no member 'memcpyy.lo' ("));
  CHECK(typo.find(" members; the nearest: libc.a(memcpy.lo), libc.a(memccpy.lo), libc.a(mempcpy.lo); ") !=
        std::string::npos);
  CHECK(typo.ends_with("; `ar t` lists them)"));
  CHECK(typo.find('\n') == std::string::npos);
  CHECK(error("memcpy.o").find("the nearest: libc.a(memcpy.lo)") != std::string::npos);
  CHECK(error("memcpy").find("the nearest: libc.a(memcpy.lo)") != std::string::npos);
  CHECK(error("no_such_routine.lo").find("nearest") == std::string::npos);
}
