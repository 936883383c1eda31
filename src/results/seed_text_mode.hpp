// How the seed programs' tables are written, annotated or exact: the one choice the seed
// table (seed_text.hpp) and Asami's runtests tables (runtests.hpp) share.
#pragma once

namespace kex {

/// How a seed table is written.
enum class SeedText {
  annotated,  ///< '#' lines saying what the figures are and how kex ran them, the program's
              ///< lines, and kex's notes after a TAB (low confidence, which of two same-named
              ///< presets, skipped kernels)
  exact,      ///< only what the seed program printed: no '#' lines and no notes, so the text
              ///< differs from the program's output in its numbers only; kernels that did not
              ///< run have no line (the program would have had one)
};

}  // namespace kex
