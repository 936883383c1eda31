// The field tables of the machine as results describe it (context.machine) and of
// context.ifunc, with the limits and helpers they read by: for the model's readers and
// writers of the results' context (src/model/context_json.cpp) and of `kex info --json`
// (src/model/info_json.cpp), which writes the same machine record.
#pragma once
#include <cstdint>
#include <limits>

#include "src/model/json_fields.hpp"

namespace kex::machine_fields {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();
inline constexpr size_t kMaxItems = size_t(1) << 24;       ///< entries of a list
inline constexpr uint64_t kMaxBytes = uint64_t(1) << 40;   ///< a cache's size
inline constexpr int kMaxCpus = 1 << 20;

/// Text as another program wrote it (a host name, a CPU model, a path): any bytes, at most
/// kMaxFreeTextBytes; each writer escapes it for its medium (terminal_text, gp_string, csv_text).
inline const TextRule kAsWritten{kMaxFreeTextBytes, nullptr, "", true};

// A field written when it is known (a std::optional), read when it is there.
template <class IO, class O>
void maybe_text(IO& io, const char* key, O& v) {
  if (io.has(key, v)) io.text(key, *v, kAsWritten);
}
template <class IO, class O>
void maybe_texts(IO& io, const char* key, O& v) {
  if (io.has(key, v)) io.texts(key, *v, kMaxItems, kAsWritten);
}
template <class IO, class O>
void maybe_flag(IO& io, const char* key, O& v) {
  if (io.has(key, v)) io.flag(key, *v);
}
template <class IO, class O, class T>
void maybe_whole(IO& io, const char* key, O& v, T lo, T hi) {
  if (io.has(key, v)) io.whole(key, *v, lo, hi);
}
template <class IO, class O>
void maybe_real(IO& io, const char* key, O& v, double lo, double hi) {
  if (io.has(key, v)) io.real(key, *v, lo, hi);
}

template <class IO, class L>
void map_cache_level(IO& io, L& l) {
  io.whole("level", l.level, 0, 16);
  io.text("type", l.type, kAsWritten);
  io.whole("size", l.size, uint64_t(0), kMaxBytes);
  io.whole("line_size", l.line_size, 0, 1 << 20);
  io.whole("ways", l.ways, -1, 1 << 20);
  io.whole("num_sharing", l.num_sharing, 0, kMaxCpus);
  io.text("shared_cpu_list", l.shared_cpu_list, kAsWritten);
}

/// context.machine: the identity kex always writes, then what it probes (optional).
template <class IO, class M>
void map_machine(IO& io, M& m) {
  io.text("cpu_vendor", m.cpu_vendor, kAsWritten);
  io.text("cpu_model", m.cpu_model, kAsWritten);
  io.whole("cpu_family", m.family, 0, 0x10e);  // CPUID: family up to 0xff + 0xf, model and stepping 0..255
  io.whole("cpu_model_number", m.model, 0, 255);
  io.whole("cpu_stepping", m.stepping, 0, 255);
  maybe_text(io, "microcode", m.microcode);
  io.texts("cpu_features", m.features, kMaxItems, kAsWritten);
  io.whole("num_cpus", m.num_cpus, 0, kMaxCpus);
  maybe_whole(io, "mhz_per_cpu", m.mhz_per_cpu, int64_t(0), int64_t(1) << 40);
  io.object("caches", [&](auto& c) {
    c.whole("l1d_bytes", m.l1d_bytes, uint64_t(0), kMaxBytes);
    c.whole("l2_bytes", m.l2_bytes, uint64_t(0), kMaxBytes);
    c.whole("llc_bytes", m.llc_bytes, uint64_t(0), kMaxBytes);
    maybe_text(c, "source", m.cache_source);
  });
  maybe_whole(io, "cache_cpu", m.cache_cpu, -1, kMaxCpus);
  if (io.has("cache_levels", m.cache_levels))
    io.list("cache_levels", *m.cache_levels, 0, 64, [](auto& e, auto& l) { map_cache_level(e, l); });
  maybe_whole(io, "numa_nodes", m.numa_nodes, 0, kMaxCpus);
  maybe_whole(io, "cache_cpu_numa_node", m.cache_cpu_numa_node, -1, kMaxCpus);
  io.real("tsc_hz", m.tsc_hz, 0, kUnbounded);
  maybe_text(io, "tsc_source", m.tsc_source);
  maybe_real(io, "cpuinfo_mhz", m.cpuinfo_mhz, 0, kUnbounded);
  maybe_text(io, "kernel", m.kernel);
  maybe_text(io, "kernel_version", m.kernel_version);
  io.text("virtualization", m.virtualization, kAsWritten);
  maybe_text(io, "hypervisor_signature", m.hypervisor_signature);
  maybe_text(io, "transparent_hugepage", m.transparent_hugepage);
  maybe_flag(io, "pmu_available", m.pmu_available);
  maybe_text(io, "pmu_error", m.pmu_error);
  maybe_flag(io, "cpu_scaling_enabled", m.cpu_scaling_enabled);
  maybe_texts(io, "scaling_governors", m.scaling_governors);
  io.others(m.unknown);
}

/// context.ifunc: what memcpy, memmove and memset resolved to.
template <class IO, class F>
void map_ifunc(IO& io, F& f) {
  io.text("memcpy", f.memcpy_impl, kAsWritten);
  io.text("memmove", f.memmove_impl, kAsWritten);
  io.text("memset", f.memset_impl, kAsWritten);
  maybe_text(io, "missing", f.missing);
}

}  // namespace kex::machine_fields
