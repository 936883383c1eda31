#include "src/core/limits.hpp"

#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "src/core/error.hpp"
#include "src/core/units.hpp"

namespace kex {

namespace {

/// The soft limit of `resource` (RLIM_INFINITY when unlimited or unknown).
rlim_t soft_limit(int resource) {
  rlimit r{};
  return getrlimit(resource, &r) == 0 ? r.rlim_cur : RLIM_INFINITY;
}

}  // namespace

std::string errno_text(int e) { return std::string(strerrorname_np(e)) + " (" + strerror(e) + ")"; }

std::string limit_note(int err) {
  switch (err) {
    case EMFILE:
      if (const rlim_t n = soft_limit(RLIMIT_NOFILE); n != RLIM_INFINITY)
        return "; the open-file limit (ulimit -n) is " + std::to_string(n);
      return "";
    case ENFILE:
      return "; the system's open-file table is full";
    case ENOMEM:
      if (const rlim_t n = soft_limit(RLIMIT_AS); n != RLIM_INFINITY)
        return "; the address-space limit (ulimit -v) is " + format_bytes(uint64_t(n));
      return "";
    case EAGAIN:
      if (const rlim_t n = soft_limit(RLIMIT_NPROC); n != RLIM_INFINITY)
        return "; the process limit (ulimit -u) is " + std::to_string(n);
      return "";
    case EFBIG:
      if (const rlim_t n = soft_limit(RLIMIT_FSIZE); n != RLIM_INFINITY)
        return "; the file-size limit (ulimit -f) is " + format_bytes(uint64_t(n));
      return "";
    default:
      return "";
  }
}

bool is_limit_error(int err) {
  return err == EMFILE || err == ENFILE || err == ENOMEM || err == EAGAIN || err == EFBIG || err == ENOSPC ||
         err == EDQUOT;
}

void throw_os_error(const std::string& what, int err) {
  const std::string line = what + ": " + std::strerror(err);
  if (is_limit_error(err)) throw InputError(line + limit_note(err));
  throw std::runtime_error(line);
}

void check_open_file_limit() {
  const rlim_t n = soft_limit(RLIMIT_NOFILE);
  if (n == RLIM_INFINITY || n >= kMinOpenFiles) return;
  throw InputError("the open-file limit (ulimit -n) is " + std::to_string(n) + "; kex needs at least " +
                   std::to_string(kMinOpenFiles) +
                   " (its journal, output, verifying and measuring processes and gnuplot): raise it, e.g. ulimit -n 1024");
}

uint64_t memory_left_bytes() {
  uint64_t left = UINT64_MAX;
  if (const rlim_t as = soft_limit(RLIMIT_AS); as != RLIM_INFINITY) {
    unsigned long pages = 0;  // the first field of statm: the address space in pages
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const uint64_t used = uint64_t(pages) * uint64_t(sysconf(_SC_PAGESIZE));
    left = as > used ? uint64_t(as) - used : 0;
  }
  if (FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kb = 0;
    while (std::fscanf(f, "%63s %llu kB", key, &kb) == 2)
      if (std::strcmp(key, "MemAvailable:") == 0) {
        left = std::min<uint64_t>(left, uint64_t(kb) * 1024);
        break;
      }
    std::fclose(f);
  }
  return left;
}

InputError out_of_memory_reading(const std::string& path) {
  const std::string note = limit_note(ENOMEM);
  return InputError(path + ": out of memory reading it" + (note.empty() ? "; the machine's memory ran out" : note));
}

}  // namespace kex
