// The core-state probe (docs/methodology.md, "Two states"): on a VM whose core runs in
// a fast and a ~1.7x slower state, flipping every few ms, a 1.6 µs store loop taken
// just before a sample names that sample's state in about 4 of 5 samples.
#pragma once
#include <cstdint>

namespace kex {

/// Whether this CPU can take the probe (it needs AVX stores, whose rate differs by
/// 14-23% between the states; SSE stores differ by only 6%).
bool state_probe_available();

/// One probe: 64 passes of 32-byte stores over 1 KiB of L1, TSC ticks (about 4,000
/// in the fast state of the Zen 3 VM). 0 when !state_probe_available().
uint32_t state_probe_ticks();

/// The fastest probe this process has taken so far (0 before the first).
uint32_t state_probe_floor();

}  // namespace kex
