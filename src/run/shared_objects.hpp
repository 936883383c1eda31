// Shared objects the user loads (`--load NAME=x.so:SYMBOL`, issue 34) are opened with
// dlopen only in the processes that verify and measure kernels (the sandbox's children,
// the supervisor's worker), never in kex's own: the object's constructors run there and
// nowhere else. The code arena calls each symbol through a slot (generators/outside_call.hpp,
// emit_slot_call) that those processes fill after fork; in kex's process it stays null.
#pragma once
#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "src/run/code_extent.hpp"

namespace kex {

/// The shared objects of one run (RunOptions::loaded holds them, through LoadedCode,
/// src/run/load_plans.hpp): each file's image as kex read it, once per path, and each
/// (path, symbol)'s slot. Two runs in one process keep their own. Lifetime: the code
/// arena's stubs hold the address of a slot (emit_slot_call) and the children's copies
/// of this object fill it, so it must outlive every stub built from its slots and every
/// child that runs them; it is neither copied nor moved (slots keep their address).
/// Its images' descriptors stay open until it is destroyed; the children that run its code
/// keep them (descriptors(), handed to each ContainedChild), no other child does.
class SharedObjects {
 public:
  SharedObjects();
  ~SharedObjects();
  SharedObjects(const SharedObjects&) = delete;
  SharedObjects& operator=(const SharedObjects&) = delete;

  /// The SHA-256 of the shared object at `path` as kex read it, once per path in this
  /// registry (a regular file of at most kMaxLoadedFile bytes): the children that probe,
  /// verify, show and measure it dlopen that copy (a sealed memfd they inherit), not the
  /// path, so what is hashed is what runs even if the file changes. InputError "PATH: ..."
  /// when it cannot be read.
  std::string sha256(const std::string& path);

  /// The descriptors of the images read so far (sealed copies): what a child that opens
  /// them must keep open (ContainedChild's keep_open).
  std::vector<int> descriptors() const;

  /// The slot of `symbol` in the shared object at `path`: registered once per pair (the
  /// same address every time), null until open_all() runs in a child. Call before forking
  /// the processes that run kernels.
  void* const* slot(const std::string& path, const std::string& symbol);

  /// In a forked child that runs kernels: dlopen (RTLD_NOW | RTLD_LOCAL) the copy of every
  /// registered object and dlsym its symbol into its slot. A failure leaves the slot null
  /// (the stub then raises SIGILL, which the verifier reports). Nothing when none is registered.
  void open_all() noexcept;

  /// The libraries probe() saw `path` load, a line each: "PATH DEV INO SIZE MTIME_NS"
  /// ("" before the probe, or when it loaded none).
  std::string dependencies(const std::string& path);

  /// Opens `path` and looks up `symbol` in a forked child (its constructors run there):
  /// "" when both work, else one line saying why (dlerror's text with control characters
  /// escaped, "crashed while opening it: killed by SIGSEGV", or a timeout of 10 s). Records
  /// the libraries the open loaded besides it (its DT_NEEDED entries, found by name): a later
  /// child that loads another file at one of those paths gets no symbol (open_all).
  std::string probe(const std::string& path, const std::string& symbol);

  /// For `kex show lib/NAME`: the code of `symbol` in the shared object at `path`, read in
  /// a forked child that opens it (its constructors run there, never in kex's process), from
  /// the symbol's address to its first ret no earlier branch jumps past (function_code, at
  /// most `cap` bytes). InputError "PATH: WHY" when it cannot be opened, has no such symbol,
  /// or the child dies.
  FunctionCode code(const std::string& path, const std::string& symbol, size_t cap);

 private:
  /// A shared object's bytes as kex read them once: a sealed copy (memfd) the children
  /// dlopen, and their SHA-256. What is hashed, verified and measured is the same bytes,
  /// whatever happens to the file after.
  struct Image {
    int fd = -1;
    std::string sha256;
    /// The libraries dlopen loaded with it in the probing child, one line each: "PATH DEV
    /// INO SIZE MTIME_NS" (its DT_NEEDED entries, found by name): what every later child
    /// must load again, the same files.
    std::string dependencies;
  };
  /// A registered symbol and its slot.
  struct Symbol {
    std::string path, symbol;
    std::string image;   ///< what dlopen opens: the image's descriptor
    void* fn = nullptr;  ///< the slot: filled in the children only
  };
  /// The image of `path`, read on first use (read_regular_file: a regular file, at most
  /// kMaxLoadedFile).
  Image& image_of(const std::string& path);

  std::map<std::string, Image> images_;
  std::deque<Symbol> symbols_;  ///< a deque: slots keep their address
};

}  // namespace kex
