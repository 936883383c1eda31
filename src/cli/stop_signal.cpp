#include "src/cli/stop_signal.hpp"

#include <unistd.h>

#include <ctime>

#include "src/cli/cli.hpp"

namespace kex {

namespace {

volatile std::sig_atomic_t g_race_stop = 0;
extern "C" void on_race_stop(int) {
  if (g_race_stop < 100) g_race_stop = g_race_stop + 1;
}

}  // namespace

const volatile std::sig_atomic_t* race_stop_counter() { return &g_race_stop; }

void catch_race_stops() {
  std::signal(SIGINT, on_race_stop);
  std::signal(SIGTERM, on_race_stop);
  std::signal(SIGHUP, on_race_stop);  // a closed terminal stops a race as Ctrl-C does: what was measured is written
}

RunOptions race_options(int cpu) {
  RunOptions opt;
  opt.stop = race_stop_counter();
  opt.progress = !quiet();
  opt.protocol.seed = (uint64_t(time(nullptr)) << 20) ^ uint64_t(getpid());
  opt.protocol.cpu = cpu;
  return opt;
}

}  // namespace kex
