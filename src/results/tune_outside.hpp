// The outside implementations a tune raced beside its own kernels (glibc's variants with
// --glibc, loaded lib/ and asm/ code with --load) where they beat the dispatch: kex cannot
// emit them, so the tune says so instead of putting them in the table (issue 34).
#pragma once
#include <string>
#include <vector>

#include "src/model/result.hpp"
#include "src/model/tune.hpp"

namespace kex {

/// One line per size and outside implementation whose paired rounds show the dispatched
/// kernel slower beyond the tune's margin: "lib/x was faster than the dispatch at 4 KiB by
/// 23% [18%, 30%] (not emittable: kex emits only its own code)"; empty when none did.
/// Names are as the results hold them (the caller escapes them for a terminal).
std::vector<std::string> outside_faster(const RunDoc& doc, const TuneRecord& tune);

}  // namespace kex
