// A bound on a test of a hang: where the code under test regresses, the test program ends
// with SIGALRM (a failure ctest reports) instead of hanging the suite.
#pragma once
#include <signal.h>
#include <unistd.h>

/// Ends this test program with SIGALRM after `seconds` unless destroyed first.
struct Watchdog {
  explicit Watchdog(unsigned seconds) {
    signal(SIGALRM, SIG_DFL);
    alarm(seconds);
  }
  ~Watchdog() { alarm(0); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
};
