// The segment-override table's section of a results file (`context.segments`, the
// output of `kex segments --json`): what src/run/segments.cpp measures and the
// table printers, the summary and the figures read. Serialized in one place,
// src/model/context_json.cpp, by one field table (src/model/segments_fields.hpp);
// configs/schema/segments.schema.json describes the JSON.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/segment_kinds.hpp"

namespace kex {

/// A selector by name ("ds", "ldt", "gdt-tls", ...): "0x2b", or none (JSON null)
/// where it could not be set up. Order as written.
using NamedSelectors = std::vector<std::pair<std::string, std::optional<std::string>>>;

/// The section's header: the CPU, the selectors, the clocks and the protocol.
struct SegmentHeader {
  std::string cpu_model;
  double mhz = 0;                    ///< /proc/cpuinfo MHz before the table (else the TSC rate)
  std::optional<double> mhz_after;   ///< the same after it
  int family = 0, model = 0, stepping = 0;
  NamedSelectors selectors;          ///< ds, ss, fs, gs on entry; data, ldt, gdt: the ones the loop loads
  std::optional<std::string> ldt_error, gdt_error;  ///< why ldt or gdt is none
  std::optional<NamedSelectors> entry_selectors;    ///< held on entry to the loop, by entry_selector_kind
  std::optional<std::string> ldt_entry_error, gdt_entry_error;
  std::string timer = "TSC";
  std::optional<std::string> seed_clock;   ///< "CPUTIME": the clock of cputime_ns
  double tsc_hz = 0;
  std::optional<uint64_t> iterations;      ///< timed iterations per case
  std::optional<int> repetitions;          ///< samples per case
  std::optional<int> cpu;                  ///< the CPU the table ran on
  std::optional<bool> null_selector_clears_base;
  std::optional<std::string> base_restore; ///< "arch_prctl" or "wrfsbase/wrgsbase"
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();  ///< keys of a newer kex, kept as written
};

/// One case of the table: what it loads and how, and its figures when measured
/// (per iteration from the fastest sample; ticks are TSC ticks, cycles estimated).
struct SegmentCase {
  std::string name;                ///< "fs with LDT selector, entry fs=7"
  /// The register, the kind of selector loaded and the loop: kex writes all three; a
  /// results file from elsewhere may leave one out (then the case is in no block of
  /// the table and no cell of the heatmap, and the modern costs' bars draw it).
  std::optional<SegReg> segment;
  std::optional<std::string> selector;  ///< the selector loaded ("0x0f"); none for plain loads
  std::optional<SelectorKind> selector_kind;
  std::optional<SegVariant> variant;
  std::optional<std::string> entry_selector;        ///< held on entry (2006, mixed): "0x2b"
  std::optional<SelectorKind> entry_selector_kind;  ///< the kind of entry_selector
  std::optional<std::string> base;               ///< the fs/gs base set ("0x0")
  std::optional<std::string> restored_selector;  ///< mixed: "0x00 (base 0)"
  bool skipped = false;
  std::string skip_message;        ///< why, when skipped
  std::optional<double> ns_per_iteration, ticks_per_iteration, est_cycles_per_iteration;
  std::optional<std::string> cycles_method;
  std::optional<double> cycles_per_tick;
  std::optional<int> repetitions;
  std::optional<uint64_t> iterations_per_sample, unroll, min_ticks, median_ticks;
  std::optional<double> median_ns_per_iteration;
  std::optional<uint64_t> timed_iterations, cputime_ns;  ///< cputime_ns: CLOCK_PROCESS_CPUTIME_ID over timed_iterations
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();

  /// Measured: not skipped, with a time per iteration.
  bool measured() const { return !skipped && ns_per_iteration.has_value(); }
};

/// The whole section: the header, the cases in table order, and whether a stop
/// cut the table short.
struct SegmentSection {
  SegmentHeader header;
  std::vector<SegmentCase> cases;
  bool interrupted = false;
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();
};

/// The section as JSON, keys in the table's order (what `kex segments --json` writes).
nlohmann::ordered_json to_json(const SegmentSection& s);

/// A section from JSON found at `where` (a journal line, `kex segments --json`):
/// header, header/selectors and cases required; other fields as a results file
/// reads them. Throws InputError naming the place and the value.
SegmentSection segment_section_from_json(const nlohmann::json& j, const std::string& where);

/// The named selector `name` of `v`: none when it is null or absent.
std::optional<std::string> selector_named(const NamedSelectors& v, const std::string& name);

}  // namespace kex
