// The one place Results and run contexts become JSON and come back
// (configs/schema/results.schema.json). Google Benchmark's envelope
// {"context": {...}, "benchmarks": [...]} so its tools read kex's files.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/model/context.hpp"
#include "src/model/paired.hpp"
#include "src/model/result.hpp"

namespace kex {

/// Version of the results layout written in context.json_schema_version. 2: every
/// coordinate in the name and params, per-repetition records under "reps".
constexpr int kResultsSchemaVersion = 2;

/// One benchmark entry: Google Benchmark's fields (name, run_name, run_type,
/// repetitions, iterations, real_time, cpu_time in ns, bytes_per_second), kex's
/// typed params, statistics in ns and GB/s, and one record per repetition with
/// its raw samples in TSC ticks.
nlohmann::ordered_json to_json(const Result& r);

/// Reads an entry written by to_json (or by an earlier kex: entries without
/// "reps" become one repetition from their stats). tsc_hz converts the stored ns
/// where only ns are there. Throws InputError("<where>: <field>: ...") for a
/// missing or mistyped field or an unparsable name.
Result result_from_json(const nlohmann::json& entry, double tsc_hz, const std::string& where);

/// One repetition's record (statistics in ticks, raw samples, order, previous
/// point, disturbed flag) and back; the journal and the measuring worker use it too.
nlohmann::ordered_json to_json(const Repetition& r);
Repetition repetition_from_json(const nlohmann::json& j, const std::string& where);

/// A spec's typed parameters ("params" of generated entries) and back.
nlohmann::ordered_json spec_params(const KernelSpec& s);
KernelSpec spec_from_params(const nlohmann::json& params, const std::string& where);

/// The "preset" object of an entry (`kex show` prints it too).
nlohmann::ordered_json to_json(const PresetFacts& p);

/// A run's context and back (src/model/context_json.cpp: one field table per record).
/// A file of any kex so far reads: a field it lacks keeps its default, a key kex does
/// not know is kept (RunContext::unknown) and written back.
nlohmann::ordered_json to_json(const RunContext& c);
RunContext context_from_json(const nlohmann::json& j, const std::string& where);

/// context.machine: what kex writes of a machine (`kex info --json` starts from it too).
nlohmann::ordered_json to_json(const MachineInfo& m);

/// A sentinel reading (the worker's frame; the first fields of a context.sentinel_readings
/// entry) and back.
nlohmann::ordered_json to_json(const SentinelReading& r);
SentinelReading sentinel_reading_from_json(const nlohmann::json& j, const std::string& where);

/// Where a buffer plan's mapping landed ({"bytes", "planned_bytes", "huge_pages_advised",
/// "huge_page_bytes", "numa_nodes"}: the worker's frame and context.buffers.plans) and back.
nlohmann::ordered_json to_json(const BufferPlacement& b);
/// The context's "ifunc" record (kex info --json prints it too).
nlohmann::ordered_json to_json(const IfuncRecord& f);
BufferPlacement buffer_placement_from_json(const nlohmann::json& j, const std::string& where);

/// A results document of one run.
nlohmann::ordered_json to_json(const RunDoc& d);

/// A document of several machines (`kex merge` of different machines): the
/// context lists each machine's context under "machines" with a key, and every
/// entry carries "machine": key. One machine gives the plain document.
nlohmann::ordered_json to_json(const std::vector<RunDoc>& machines);

/// Reads a results document: one RunDoc per machine (a plain file gives one).
/// Throws InputError naming `where` and the JSON path of the bad field.
std::vector<RunDoc> docs_from_json(const nlohmann::json& doc, const std::string& where);

}  // namespace kex
