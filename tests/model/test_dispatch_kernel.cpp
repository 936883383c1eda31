// Dispatch kernels' names (issue 51): the table of kex's own kernels a name carries, its
// canonical form, the edges verification tries, and the one-line refusals of hostile names.
#include <doctest/doctest.h>

#include <string>

#include "src/model/dispatch_kernel.hpp"
#include "src/model/kernel_names.hpp"
#include "tests/support/input_error.hpp"

using namespace kex;

namespace {
std::string dispatch_refusal(const std::string& name) {
  return invalid_argument_of([&] { parse_dispatch_kernel(name); });
}
}  // namespace

TEST_CASE("a dispatch name parses to its rows' specs and prints back canonically" * doctest::test_suite("dispatch")) {
  const DispatchKernel d = parse_dispatch_kernel("dispatch:64:copy/avx/unroll:128/small:overlap/overlap,4K:copy/sse,rep_movsb");
  REQUIRE(d.members.size() == 3);
  CHECK(d.op == Op::copy);
  CHECK(d.table.entries[0].max_bytes == 64);
  CHECK(d.table.entries[1].max_bytes == 4096);
  CHECK(d.table.entries[2].max_bytes == kDispatchRest);
  CHECK(d.members[0] == parse_spec_name("copy/avx/unroll:128/overlap/small:overlap"));
  CHECK(d.members[2].regs == RegClass::string);
  CHECK(d.members[2].unroll == 1);
  const std::string canonical = dispatch_kernel_name(d);
  CHECK(canonical == "dispatch:64:" + spec_name(d.members[0]) + ",4096:" + spec_name(d.members[1]) + ",rep_movsb");
  CHECK(parse_dispatch_kernel(canonical) == d);
  CHECK(!kernel_name_error(KernelKind::dispatch, canonical));
  CHECK(is_kernel_name(canonical));
  // A clear: rep_stosb as a row, written rep_stosb again.
  const DispatchKernel c = parse_dispatch_kernel("dispatch:32:clear/sse,rep_stosb");
  CHECK(c.op == Op::clear);
  CHECK(dispatch_kernel_name(c) == "dispatch:32:" + spec_name(c.members[0]) + ",rep_stosb");
}

TEST_CASE("a dispatch's edges: each bound and its neighbours, none for the last row" * doctest::test_suite("dispatch")) {
  const DispatchKernel d = parse_dispatch_kernel("dispatch:0:copy/gpr,64:copy/sse,rep_movsb");
  CHECK(dispatch_edges(d.table) == std::vector<uint64_t>{0, 1, 63, 64, 65});
}

TEST_CASE("hostile or wrong dispatch names are refused in one line that says what is allowed" *
          doctest::test_suite("dispatch")) {
  CHECK(dispatch_refusal("dispatch:rep_movsb").find("2 to 16 rows") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:copy/sse,32:copy/gpr,rep_movsb").find("bounds must ascend") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:copy/sse,64:copy/gpr,rep_movsb").find("not above the previous one") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:lib/mine,rep_movsb").find("a member is a kex spec name or rep_movsb") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:glibc/__memcpy_erms,rep_movsb").find("a member is a kex spec name") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:memcpy,rep_movsb").find("'memcpy': a member is a kex spec name") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:linux24/copy_page,rep_movsb").find("a member is a kex spec name") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:copy/sse,rep_stosb").find("every member has the first's op (copy)") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:copy/sse/rep:256,rep_movsb").find("rep:N is a dispatch of its own") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:clear/sse/fill:0xaa,rep_stosb").find("write 0") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:copy/sse,64:copy/gpr").find("only the last item is a NAME alone") != std::string::npos);
  CHECK(dispatch_refusal("dispatch:64:dispatch:8:copy/gpr,rep_movsb").find("cannot hold another dispatch") !=
        std::string::npos);
  // 10,000 ranges: refused by count, in one line.
  std::string many = "dispatch:";
  for (int i = 1; i <= 10000; ++i) many += std::to_string(i * 8) + ":copy/gpr,";
  many += "rep_movsb";
  const std::string e = dispatch_refusal(many);
  CHECK(e == "a dispatch has 2 to 16 rows (SIZE:NAME,...,NAME), not 10001");
  CHECK(dispatch_refusal("copy/sse") == "a dispatch name starts with dispatch:");
}
