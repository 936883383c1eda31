// libFuzzer target: a results file (any bytes) through kex's results reader, as
// `kex plot`, `compare`, `merge` and `export` read it (tests/fuzz/run.sh). A refusal is
// an InputError; any other exception, a crash, a hang or a sanitizer report is a finding. What is accepted must
// hold only kernel names of their kind, and must come back whole when written again.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "src/core/error.hpp"
#include "src/model/kernel_names.hpp"
#include "src/model/result_json.hpp"
#include "src/results/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // load_results takes a path, as every command reads it: an in-memory file, written whole.
  static const int fd = memfd_create("fuzz.json", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
  std::vector<kex::RunDoc> runs;
  try {
    runs = kex::load_results("/proc/self/fd/" + std::to_string(fd));
    for (const auto& r : runs) kex::check_measured(r);
  } catch (const kex::InputError&) {
    return 0;
  }
  for (const auto& run : runs)
    for (const auto& r : run.results)
      if (kex::kernel_name_error(r.kind, r.point.kernel)) std::abort();
  // What kex accepted it writes so that it reads it again.
  try {
    const auto again = kex::docs_from_json(nlohmann::json(kex::to_json(runs)), "again");
    if (again.size() != runs.size()) std::abort();
  } catch (const kex::InputError& e) {
    std::fprintf(stderr, "written back and refused: %s\n", e.what());
    std::abort();
  }
  return 0;
}
