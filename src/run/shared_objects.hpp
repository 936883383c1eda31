// Shared objects the user loads (`--load NAME=x.so:SYMBOL`, issue 34) are opened with
// dlopen only in the processes that verify and measure kernels (the sandbox's children,
// the supervisor's worker), never in kex's own: the object's constructors run there and
// nowhere else. The code arena calls each symbol through a slot (generators/outside_call.hpp,
// emit_slot_call) that those processes fill after fork; in kex's process it stays null.
#pragma once
#include <cstddef>
#include <string>

#include "src/run/code_extent.hpp"

namespace kex {

/// The SHA-256 of the shared object at `path` as kex read it, once per path in this process
/// (a regular file of at most kMaxLoadedFile bytes): the children that probe, verify, show
/// and measure it dlopen that copy (a sealed memfd they inherit), not the path, so what is
/// hashed is what runs even if the file changes. InputError "PATH: ..." when it cannot be read.
std::string shared_object_sha256(const std::string& path);

/// The slot of `symbol` in the shared object at `path`: registered once per pair (the
/// same address every time), null until open_shared_objects() runs in a child. Call
/// before forking the processes that run kernels.
void* const* shared_object_slot(const std::string& path, const std::string& symbol);

/// In a forked child that runs kernels: dlopen (RTLD_NOW | RTLD_LOCAL) the copy of every
/// registered object and dlsym its symbol into its slot. A failure leaves the slot null (the stub then
/// raises SIGILL, which the verifier reports). Nothing when none is registered.
void open_shared_objects() noexcept;

/// The libraries probe_shared_object saw `path` load, a line each: "PATH DEV INO SIZE
/// MTIME_NS" ("" before the probe, or when it loaded none).
std::string shared_object_dependencies(const std::string& path);

/// Opens `path` and looks up `symbol` in a forked child (its constructors run there):
/// "" when both work, else one line saying why (dlerror's text with control characters
/// escaped, "crashed while opening it: killed by SIGSEGV", or a timeout of 10 s). Records
/// the libraries the open loaded besides it (its DT_NEEDED entries, found by name): a later
/// child that loads another file at one of those paths gets no symbol (open_shared_objects).
std::string probe_shared_object(const std::string& path, const std::string& symbol);

/// For `kex show lib/NAME`: the code of `symbol` in the shared object at `path`, read in
/// a forked child that opens it (its constructors run there, never in kex's process), from
/// the symbol's address to its first ret no earlier branch jumps past (function_code, at
/// most `cap` bytes). InputError "PATH: WHY" when it cannot be opened, has no such symbol,
/// or the child dies.
FunctionCode shared_object_code(const std::string& path, const std::string& symbol, size_t cap);

}  // namespace kex
