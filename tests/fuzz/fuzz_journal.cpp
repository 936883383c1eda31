// libFuzzer target: a journal (any bytes) through kex's journal reader, as
// `kex run --resume` reads it (tests/fuzz/run.sh). A refusal is an InputError; any
// other exception, a crash, a hang or a sanitizer report is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/core/error.hpp"
#include "src/run/journal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes a path: an in-memory file, written whole.
  static const int fd = memfd_create("fuzz.journal", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    (void)kex::read_journal(path);
  } catch (const kex::InputError&) {
  }
  return 0;
}
