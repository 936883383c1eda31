// Plans of the outside code a config or `--load` names (issue 34): lib/NAME, a shared
// object's symbol called through a slot filled in the processes that run kernels
// (src/run/shared_objects.hpp); asm/NAME, an object's symbol whose bytes kex places in
// its own code arena (src/run/object_code.hpp). The run layer's only entry to loading.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "src/model/load_spec.hpp"
#include "src/model/plan.hpp"
#include "src/model/source.hpp"
#include "src/run/outside_plan.hpp"
#include "src/run/shared_objects.hpp"

namespace kex {

/// The code one run loads (`--load`, a config's "load"): the files read and symbols
/// opened, and the NAMEs given. Whoever owns a run holds one (RunOptions::loaded, shared
/// by the copies of those options: kex tune's stages, --explain's races), so two runs, or
/// two tests, in one process neither share files nor see each other's NAMEs.
/// Lifetime: a plan of a shared object's symbol emits a stub that holds the address of a
/// slot in this registry (SharedObjects), filled in each child that runs kernels; the
/// registry must outlive every code arena built from its plans and every child that runs
/// them (SweepPlan::loaded keeps it alive as long as the plan). Neither copied nor moved.
class LoadedCode {
 public:
  LoadedCode() = default;
  LoadedCode(const LoadedCode&) = delete;
  LoadedCode& operator=(const LoadedCode&) = delete;

  /// The plan of `l` (key lib/NAME or asm/NAME, with /fill:0xNN for a clear writing
  /// `fill`): facts source, function, symbol, label, path and the file's SHA-256 (and for
  /// asm the pieces loaded). The file is read once per path and symbol in this registry;
  /// a shared object is opened only in a forked child (SharedObjects::probe). InputError,
  /// one line at `where`: a file that cannot be read, an object or symbol that cannot be
  /// opened (dlerror's text escaped), what the object loader refuses, or a NAME given again
  /// in this registry for other code.
  KernelPlan plan(const LoadSpec& l, uint8_t fill, const std::string& where);

  /// The load that first gave NAME in this registry (kex run --explain names a loaded
  /// winner again by it); nullopt when none did.
  std::optional<LoadSpec> load_named(const std::string& name) const {
    const auto it = named_.find(name);
    return it == named_.end() ? std::nullopt : std::optional<LoadSpec>(it->second);
  }

  /// The shared objects whose slots the plans use: what a child that runs kernels opens
  /// (SharedObjects::open_all, through open_objects_filtered).
  SharedObjects& shared_objects() { return shared_; }

 private:
  OutsideCode find_code(const LoadSpec& l, Source source, const std::string& where);
  void check_same_name(const LoadSpec& l, const std::string& where);

  SharedObjects shared_;
  /// What loading one (path, symbol) gave: the file's hash and where the code is.
  std::map<std::pair<std::string, std::string>, OutsideCode> done_;
  std::map<std::string, LoadSpec> named_;  ///< the first load of each NAME
};

}  // namespace kex
