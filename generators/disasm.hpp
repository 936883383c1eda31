// Disassembly of generated code with Capstone (x86-64, Intel or AT&T syntax), and the
// raw forms `kex show --format` prints: a GNU as source that reassembles to the same
// bytes, hex, and the bytes themselves.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kex {

/// Disassembly syntax: Intel (Capstone's default, as in objdump -M intel) or AT&T.
enum class Syntax { intel, att };
/// "intel", "att": the words of --syntax.
inline std::string_view to_string(Syntax s) { return s == Syntax::att ? "att" : "intel"; }
inline constexpr std::array kSyntaxes{Syntax::intel, Syntax::att};

/// What `kex show --format` prints: listing (metadata, offsets, bytes, disassembly), s
/// (format_asm's source), hex (32 bytes a line) or bin (the raw bytes).
enum class CodeFormat { listing, s, hex, bin };
inline std::string_view to_string(CodeFormat f) {
  switch (f) {
    case CodeFormat::listing: return "listing";
    case CodeFormat::s: return "s";
    case CodeFormat::hex: return "hex";
    case CodeFormat::bin: return "bin";
  }
  return "?";
}
inline constexpr std::array kCodeFormats{CodeFormat::listing, CodeFormat::s, CodeFormat::hex, CodeFormat::bin};

struct Insn {
  uint64_t offset;       ///< from the start of the code
  std::vector<uint8_t> bytes;
  std::string mnemonic;  ///< e.g. "movntdq"
  std::string operands;  ///< e.g. "xmmword ptr [rdi + 0x10], xmm1" (Intel) or "%xmm1, 0x10(%rdi)" (AT&T)
  /// Target of a relative jump, call or loop, as an offset from the start of the code
  /// (Capstone's absolute target, decoded at the instruction's real offset); none for
  /// everything else.
  std::optional<uint64_t> target;
};

/// Decodes `size` bytes at `code`, which sit at offset `offset` of the kernel: offsets
/// and branch targets in the result (and Capstone's operand text) are relative to the
/// kernel's start, so a piece decoded after an undecodable byte keeps true targets.
/// Stops at the first undecodable byte. Throws std::runtime_error if Capstone cannot
/// be opened.
std::vector<Insn> disassemble(const uint8_t* code, size_t size, Syntax syntax = Syntax::intel, uint64_t offset = 0);

/// "offset: hex bytes   mnemonic operands" lines, one per instruction.
std::string format_listing(const std::vector<Insn>& insns);

/// A byte range of the code that format_asm marks for llvm-mca: "# LLVM-MCA-BEGIN name"
/// before the instruction at `begin`, "# LLVM-MCA-END" after the one ending at `end`
/// (both instruction boundaries, offsets from the code's start; a name of [A-Za-z0-9_]).
struct McaRegion {
  uint64_t begin = 0, end = 0;
  std::string name;
};

/// A GNU as source of the `size` bytes `insns` decode (`.intel_syntax noprefix` or
/// `.att_syntax`), one global function `symbol` preceded by `comment` lines (each gets
/// "# "). Branch targets inside the code become local labels (.L<symbol>_<hex offset>, so
/// several kernels' sources can be concatenated into one file), and rel32
/// branches carry `{disp32}` so the assembler keeps their length; what the text cannot
/// pin down (multi-byte nops, a rep prefix ahead of 66, bytes not decoded) is written as
/// `.byte` with the disassembly in a comment.
/// `as` or `llvm-mc -triple=x86_64` assemble it to exactly the same bytes. With
/// `region`, its instructions are marked for llvm-mca (comments: the bytes stay the same).
std::string format_asm(const std::vector<Insn>& insns, const uint8_t* code, size_t size, Syntax syntax,
                       const std::string& symbol, const std::vector<std::string>& comment,
                       const std::optional<McaRegion>& region = std::nullopt);

/// Lower-case hex, 32 bytes to a line, nothing else (xxd -p layout: `xxd -r -p` gives
/// the bytes back).
std::string format_hex(const uint8_t* code, size_t size);

}  // namespace kex
