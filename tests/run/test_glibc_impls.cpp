// glibc's own variants as kernels: the list on this machine, the ifunc pick among them,
// and plans from a fake list (an unusable variant is never called; a wrong one is refused).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "generators/jit.hpp"
#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "src/run/built.hpp"
#include "src/run/glibc_impls.hpp"
#include "src/run/plans.hpp"
#include "src/run/verify.hpp"
#include "tests/support/tmpdir.hpp"

using namespace kex;

TEST_CASE("glibc_impls: this machine's glibc lists memcpy, memmove and memset, and ifunc's picks are among them" *
          doctest::test_suite("glibc")) {
  const GlibcImpls& g = glibc_impls();
  REQUIRE(g.missing.empty());
  for (const Function f : kFunctions) {
    const auto of = g.of(f);
    CHECK(of.size() >= 2);
    size_t usable = 0;
    for (const GlibcImpl* i : of) {
      CHECK(parse_impl_name(impl_name({Source::glibc, i->facts.symbol, 0})));  // every symbol is a kernel name
      CHECK(i->facts.usable == i->facts.reason.empty());
      usable += i->facts.usable;
    }
    CHECK(usable >= 1);
    const std::string pick = ifunc_pick(f);
    INFO(to_string(f) << " resolved to " << pick);
    REQUIRE(pick != "unknown");
    REQUIRE(g.find(pick) != nullptr);
    CHECK(g.find(pick)->facts.function == f);
    CHECK(g.find(pick)->facts.usable);
  }
  CHECK(ifunc_pick(g, Function::memcpy, nullptr) == "unknown");
}

namespace {

std::string g_marker;  // the file the unusable variant would create if it were ever called

void* fake_copy(void* d, const void* s, size_t n) { return std::memcpy(d, s, n); }
void* fake_off_by_one(void* d, const void* s, size_t n) {
  std::memcpy(d, s, n);
  if (n > 100) static_cast<unsigned char*>(d)[100] ^= 1;  // one byte wrong
  return d;
}
void* fake_rtm(void* d, const void*, size_t) {
  spit(g_marker, "called");
  return d;
}
void* fake_memset(void* d, int c, size_t n) { return std::memset(d, c, n); }

size_t fake_list(const char* function, LibcIfuncImpl* a, size_t max) {
  const std::string f = function;
  std::vector<LibcIfuncImpl> l;
  if (f == "memcpy")
    l = {{"__memcpy_fake", reinterpret_cast<void (*)()>(fake_copy), true},
         {"__memcpy_off_by_one", reinterpret_cast<void (*)()>(fake_off_by_one), true},
         {"__memcpy_avx_unaligned_rtm", reinterpret_cast<void (*)()>(fake_rtm), false}};
  if (f == "memset") l = {{"__memset_fake", reinterpret_cast<void (*)()>(fake_memset), true}};
  for (size_t i = 0; i < l.size() && i < max; ++i) a[i] = l[i];
  return l.size();
}

}  // namespace

TEST_CASE("glibc plans from a fake list: verified like any kernel, an unusable variant never called" *
          doctest::test_suite("glibc")) {
  TmpDir dir;
  g_marker = dir / "called";
  const GlibcImpls fake = glibc_impls_from(fake_list);
  REQUIRE(fake.list.size() == 4);
  CHECK(fake.of(Function::memmove).empty());
  CHECK(fake.find("__memcpy_avx_unaligned_rtm")->facts.reason == "needs RTM: not usable on this CPU");

  std::vector<KernelPlan> plans = impl_plans("glibc-copy", 0, fake, "test");
  REQUIRE(plans.size() == 3);
  for (KernelPlan& k : impl_plans("glibc-clear", 0xaa, fake, "test")) plans.push_back(std::move(k));
  REQUIRE(plans.size() == 4);
  CHECK(plans[0].key == "glibc/__memcpy_fake");
  CHECK(plans[0].kind == KernelKind::implementation);
  CHECK(plans[2].skip == "needs RTM: not usable on this CPU");
  CHECK(plans[3].key == "glibc/__memset_fake/fill:0xaa");
  CHECK((plans[3].op == Op::clear && plans[3].fill == 0xaa && plans[3].impl->fill == 0xaa));

  CodeArena arena;
  const std::vector<Built> b = build_plans(arena, plans);
  CHECK(b[2].status == Status{StatusKind::skipped, "needs RTM: not usable on this CPU"});
  CHECK((b[2].fn == nullptr));  // nothing to call
  CHECK(!b[0].info);          // the stub is not the implementation's code
  std::vector<VerifyTarget> targets;
  for (size_t k = 0; k < plans.size(); ++k)
    if (b[k].status.kind == StatusKind::ok) targets.push_back(verify_target(plans[k], b[k]));
  REQUIRE(targets.size() == 3);
  const std::vector<std::string> v = verify_in_child(targets);
  CHECK(v[0] == "");
  CHECK(v[1].find("byte 100") != std::string::npos);
  CHECK(v[2] == "");  // memset's ABI: the stub passes the fill byte 0xaa, which verification checks
  struct stat st;
  CHECK(stat(g_marker.c_str(), &st) != 0);
}

TEST_CASE("impl_plans: an unknown glibc/NAME is one error naming the sets, other names are not implementations" *
          doctest::test_suite("glibc")) {
  const GlibcImpls fake = glibc_impls_from(fake_list);
  CHECK_THROWS_WITH_AS(impl_plans("glibc/NOPE", 0, fake, "cfg.json: /baselines/0"),
                       "cfg.json: /baselines/0: 'glibc/NOPE': no such glibc implementation (4 here, see `kex list "
                       "glibc`; sets: glibc-copy, glibc-move, glibc-clear)",
                       InputError);
  CHECK(impl_plans("memcpy", 0, fake, "x").empty());
  CHECK(impl_plans("glibc/__memcpy_fake", 0, fake, "x").at(0).key == "glibc/__memcpy_fake");
  const GlibcImpls none = glibc_impls_from(nullptr);
  CHECK(none.list.empty());
  CHECK(none.missing.find("__libc_ifunc_impl_list") != std::string::npos);
  CHECK(impl_plans("glibc-copy", 0, none, "x").empty());
  CHECK(ifunc_pick(none, Function::memcpy, reinterpret_cast<const void*>(&fake_copy)) == "unknown");
}
