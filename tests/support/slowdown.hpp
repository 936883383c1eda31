// How much slower than a release build this test binary runs, for the few bounds on
// wall-clock time that the tests keep (a run that must answer a signal "within seconds").
#pragma once

/// 4 in a build with AddressSanitizer (GCC's __SANITIZE_ADDRESS__; kex, its workers
/// and the test program all run instrumented, and LeakSanitizer scans at each exit),
/// 1 otherwise.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr double kSlowdown = 4;
#else
inline constexpr double kSlowdown = 1;
#endif

/// True in the sanitizer build: its runtimes need a large address space (no ulimit -v)
/// and file descriptors of their own (a test at ulimit -n 5 sees their failures, not kex's).
inline constexpr bool kSanitized = kSlowdown > 1;
