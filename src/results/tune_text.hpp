// What `kex tune` prints: the dispatch per size against libc and rep with intervals,
// the table to hand to `kex emit --dispatch`, where it switches, the race's course, and
// the glibc tunables the dispatch suggests with what libc measured with them.
#pragma once
#include <string>

#include "src/model/tune.hpp"

namespace kex {

/// The tune's report as text (every name through terminal_text: the record may come
/// from someone else's file). `machine`: the label of the machine it ran on.
std::string format_tune(const TuneRecord& t, const std::string& machine);

/// The same as GitHub Markdown (kex summary --format markdown, kex report): the head in
/// bold, the verdict per size as a table, the dispatch a line per row, then the race's
/// course and the validation a paragraph per line; names from the record through md_text.
std::string format_tune_markdown(const TuneRecord& t, const std::string& machine);

}  // namespace kex
