// memmove at overlapping buffers (issue 34): where dst = src + distance overlaps the source,
// only code that promises memmove's result runs (glibc's memmove variants, `:move` loads,
// musl's memmove, kex's own kernels after verification there); memcpy implementations are
// left out with one note per kernel, and a "memmove" that is really a forward copy is
// refused at the distance where it corrupts, and measured where it does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/shared_object.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/tmpdir.hpp"

namespace {

/// A correct memmove: forward when dst is below src, else backward, a byte at a time.
const char* kMove = "void *mv(void *d, const void *s, unsigned long n) {\n"
                    "  char *a = d; const char *b = s;\n"
                    "  if (a < b) for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n"
                    "  else for (unsigned long i = n; i-- > 0;) a[i] = b[i];\n  return d;\n}\n";
/// A "memmove" that is a forward copy: right when dst is below src, wrong above it.
const char* kForward = "void *fwd(void *d, const void *s, unsigned long n) {\n"
                       "  char *a = d; const char *b = s;\n"
                       "  for (unsigned long i = 0; i < n; ++i) a[i] = b[i];\n  return d;\n}\n";

const std::string kMuslArchive = "/usr/lib/x86_64-linux-musl/libc.a";

/// The entries of a results file by point name.
std::map<std::string, nlohmann::json> by_point(const std::string& path) {
  std::map<std::string, nlohmann::json> out;
  const nlohmann::json j = nlohmann::json::parse(slurp(path));
  for (const auto& e : j["benchmarks"]) out[e["name"].get<std::string>()] = e;
  return out;
}

}  // namespace

TEST_CASE("memmove at distance -64 and +64 over 4 KiB: memmove code races, memcpy code is left out, a forward copy "
          "is refused where it corrupts" * doctest::test_suite("cli")) {
  TmpDir dir;
  const bool musl = shell("test -r " + kMuslArchive).status == 0;
  if (!musl) MESSAGE("musl's memmove not raced: " << kMuslArchive << " is missing (Debian's musl-dev)");
  nlohmann::json load = {{{"name", "mv"}, {"path", build_so(dir, "mv", kMove)}, {"symbol", "mv"}, {"function", "move"}},
                         {{"name", "fwd"}, {"path", build_so(dir, "fwd", kForward)}, {"symbol", "fwd"}, {"function", "move"}},
                         {{"name", "cp"}, {"path", build_so(dir, "cp", kMove)}, {"symbol", "mv"}, {"function", "copy"}}};
  if (musl)
    load.push_back({{"name", "musl-memmove"}, {"path", kMuslArchive + "(memmove.lo)"}, {"symbol", "memmove"}, {"function", "move"}});
  const nlohmann::json config = {{"sizes", {4096}},
                                 {"layout", {{"distance", {-64, 64}}}},
                                 {"baselines", {"glibc-move", "glibc-copy"}},
                                 {"repetitions", 2},
                                 {"load", load}};
  std::ofstream(dir / "c.json") << config.dump();
  const ShellOut out = shell(kKex + " run " + (dir / "c.json") + " --no-report -o " + (dir / "r.json"));
  INFO(out.text);
  REQUIRE(out.status == 0);
  auto e = by_point(dir / "r.json");
  const auto measured = [&](const std::string& point) { return e[point].contains("real_time"); };
  size_t memmoves = 0, memcpys = 0;
  for (const auto& [name, r] : e) {
    const std::string kernel = r["kernel"];
    if (kernel.rfind("glibc/__memmove_", 0) == 0 && r["implementation"]["usable"] == true) {
      CHECK_MESSAGE(measured(name), name);
      ++memmoves;
    }
    if (kernel.rfind("glibc/__memcpy_", 0) == 0 && r["implementation"]["usable"] == true) {
      CHECK(r["skip_message"] ==
            "left out where src and dst overlap: it implements memcpy, which does not promise memmove's result "
            "(glibc-move and :move loads run there)");
      ++memcpys;
    }
  }
  CHECK(memmoves >= 2);
  CHECK(memcpys >= 2);
  // One note per memcpy kernel (each left out of 2 points), the :copy load's among them.
  size_t notes = 0;
  for (size_t at = 0; (at = out.text.find("kex: note: glibc/__memcpy_", at)) != std::string::npos; ++at) ++notes;
  CHECK(notes * 2 == memcpys);  // unusable variants are skipped for the CPU, not noted
  CHECK(out.text.find("kex: note: lib/cp: 2 points left out where src and dst overlap: it implements memcpy") !=
        std::string::npos);
  CHECK(out.text.find("kex: note: lib/mv") == std::string::npos);
  CHECK(measured("lib/mv/4096/dist:-64"));
  CHECK(measured("lib/mv/4096/dist:64"));
  // dst below src: a forward copy reads each byte before it overwrites it, so it is memmove there.
  CHECK(measured("lib/fwd/4096/dist:-64"));
  const std::string why = e["lib/fwd/4096/dist:64"]["skip_message"];
  CHECK(why.find("refused: the kernel does not give memmove's result where src and dst overlap: size 4096, "
                 "distance 64 (overlapping)") == 0);
  CHECK(why.find("(memmove)") != std::string::npos);
  if (musl) {
    CHECK(measured("asm/musl-memmove/4096/dist:-64"));
    CHECK(measured("asm/musl-memmove/4096/dist:64"));
  }
}
