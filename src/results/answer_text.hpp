// The answer first: one line per op and condition saying which kernel is fastest over
// which sizes and against libc, or that the sizes end in a tie; and, before any figure,
// what state the machine was in (busy before the run, windows the sentinel flagged).
#pragma once
#include <string>
#include <vector>

#include "src/model/context.hpp"
#include "src/model/paired.hpp"

namespace kex {

/// A block of group answers: one op and condition (every coordinate but kernel and
/// size, with the fill of a clear), its groups by ascending size.
struct AnswerBlock {
  Op op = Op::copy;
  std::string cond;                      ///< condition_label of the groups ("" = the default one)
  std::vector<const GroupAnswer*> rows;  ///< by size
};

/// `answers` in blocks: by op, then plainest condition first (shortest label).
std::vector<AnswerBlock> answer_blocks(const std::vector<GroupAnswer>& answers);

/// "0.82x [0.80-0.85]": a paired time ratio with its interval; "same [0.99-1.01]" when the
/// interval holds 1; "-" when the two were not paired.
std::string ratio_text(const PairedRatio& r);

/// "copy (warm)": a block's title.
std::string block_title(Op op, const std::string& cond);

/// A block of answers' title: block_title, but "move (dist:64)" for a copy whose layout
/// places the destination within the source at one of its sizes (a distance below the
/// size: src and dst overlap, and only memmove's contract holds there).
std::string block_title(const AnswerBlock& b);

/// One line per block (`compact`: the first block of each op only): runs of
/// consecutive sizes with the same fastest kernel, untied, with its speed over libc
/// in the same rounds ("copy (warm): K at 256 B..16 KiB, 1.09..1.71x memcpy"), and runs
/// of sizes where the fastest cannot be told from others ("a tie at 64 KiB..64 MiB
/// (4..23 kernels within 1%; memcpy among them at 3 of 6 sizes)"). Names as the file
/// has them: the caller escapes the lines for its medium. Empty without paired answers.
std::vector<std::string> answer_lines(const RunDoc& run, const std::vector<GroupAnswer>& answers, bool compact);

/// What state the machine was in, a line each: busy before the run (its load average
/// over the last minute at or above 1), or at least a tenth of the sentinel's windows
/// disturbed. Empty when neither holds or the file does not record it.
std::vector<std::string> state_warnings(const RunDoc& run);

/// answer_lines and state_warnings under an "answer:" head, escaped for a terminal; ""
/// when there are none.
std::string answer_text(const RunDoc& run, bool compact);

/// The same as GitHub Markdown, for a pull request: a bold "answer" and a list item per
/// line, escaped (md_text); "" when there are none.
std::string answer_markdown(const RunDoc& run);

}  // namespace kex
