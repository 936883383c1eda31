#include "src/core/affinity.hpp"

#include <sched.h>

namespace kex {

std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) out.push_back(i);
  return out;
}

const std::vector<int>& startup_cpus() {
  static const std::vector<int> cpus = allowed_cpus();
  return cpus;
}

}  // namespace kex
