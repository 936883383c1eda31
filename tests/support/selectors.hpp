// The segment selectors a test compares against, read from this process's registers.
#pragma once
#include <cstdint>

/// The stack segment's selector: the data selector every 64-bit process runs with (0x2b on Linux).
inline uint16_t ss_selector() {
  uint16_t v;
  asm volatile("mov %%ss, %0" : "=r"(v));
  return v;
}
