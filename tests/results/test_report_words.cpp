// The words of the tables and figures (issue 53): a copy whose buffers overlap is titled a
// move, a skip reason is cut at a word's end, the default layout's column names its offsets.
#include <doctest/doctest.h>

#include <string>

#include "src/results/answer_text.hpp"
#include "src/results/results.hpp"
#include "src/results/summary.hpp"
#include "tests/support/paired_sweep.hpp"

using namespace kex;

TEST_CASE("a copy group whose destination lies within its source is titled a move, one apart stays a copy") {
  using paired_sweep::Kernel;
  RunDoc run = paired_sweep::sweep({256, 4096}, {{"memcpy", {10, 10}}, {"copy/sse/unroll:64/scratch:4/t/fwd", {11, 11}}});
  for (Result& r : run.results) r.point.at.layout.distance = 64;
  RunDoc apart = run;
  for (Result& r : apart.results) r.point.at.layout.distance = 1 << 20;
  const std::vector<GroupAnswer> answers = answer_groups(run), far = answer_groups(apart);
  REQUIRE(answer_blocks(answers).size() == 1);
  CHECK(block_title(answer_blocks(answers)[0]) == "move (dist:64)");
  CHECK(block_title(answer_blocks(far)[0]) == "copy (dist:1048576)");
  CHECK(answer_lines(run, answers, false)[0].find("move (dist:64): ") == 0);
  CHECK(summary_table(run).find("\nmove (dist:64)\n") != std::string::npos);
}

TEST_CASE("a skip reason longer than its room is cut at a word's end, never inside one") {
  RunDoc run = paired_sweep::sweep({4096}, {{"memcpy", {10}}, {"rep_movsb", {9}}});
  Result r;
  r.point.kernel = "glibc/__memcpy_x";
  r.point.at.size = 4096;
  r.status = {StatusKind::skipped, "left out where src and dst overlap: it implements memcpy, which does not promise "
                                   "memmove's result (glibc-move and :move loads run there)"};
  run.results.push_back(r);
  run.results.push_back(r);
  const std::string t = summary_table(run);
  CHECK(t.find("2 points skipped: left out where src and dst overlap: it implements memcpy, which does not promise "
               "... (2); 0 failed") != std::string::npos);
  CHECK(t.find("memmov...") == std::string::npos);
}

TEST_CASE("the default layout's label names its offsets") {
  CHECK(layout_label(Layout{}) == "src:0/dst:0");
  Layout l;
  l.src_offset = 1;
  CHECK(layout_label(l) == "src:1");
}
