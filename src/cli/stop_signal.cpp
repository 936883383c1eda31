#include "src/cli/stop_signal.hpp"

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

}  // namespace kex
