#include "src/model/config_forms.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "src/core/affinity.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/units.hpp"
#include "src/model/config.hpp"
#include "src/model/config_fields.hpp"
#include "src/model/json_fields.hpp"
#include "src/model/kernel_names.hpp"

namespace kex::config_forms {

using nlohmann::json;

void fail_at(const std::string& at, const json& x, const std::string& allowed) {
  throw InputError(at + ": " + shown_value(x) + ": " + allowed);
}

uint64_t whole_at(const json& x, const std::string& at, uint64_t lo, uint64_t hi) {
  if (!x.is_number_integer() || (x.get<int64_t>() < 0 && !x.is_number_unsigned()))
    fail_at(at, x, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  const uint64_t v = x.get<uint64_t>();
  if (v < lo || v > hi) fail_at(at, x, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return v;
}

int64_t Signed::read(const json& x, const std::string& at) const {
  if (!x.is_number_integer()) fail_at(at, x, "expected an integer");
  const int64_t v = x.get<int64_t>();
  if (v < lo || v > hi) fail_at(at, x, "out of range (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return v;
}

double Real::read(const json& x, const std::string& at) const {
  if (!x.is_number()) fail_at(at, x, "expected a number");
  const double v = x.get<double>();
  if (!(v >= lo && v <= hi)) {
    std::ostringstream o;
    o << "out of range (allowed " << lo << ".." << hi << ")";
    fail_at(at, x, o.str());
  }
  return v;
}

uint64_t ByteSize::read(const json& x, const std::string& at) const {
  const char* what = "expected a byte size such as 4096, \"4KiB\" or \"64MiB\" (binary units K/KiB, M/MiB, G/GiB)";
  uint64_t v = 0;
  if (x.is_string()) {
    const auto b = parse_bytes(x.get<std::string>());
    if (!b) fail_at(at, x, what);
    v = *b;
  } else if (x.is_number_unsigned() || (x.is_number_integer() && x.get<int64_t>() >= 0)) {
    v = x.get<uint64_t>();
  } else {
    fail_at(at, x, what);
  }
  if (v < lo || v > hi) fail_at(at, x, "out of range (allowed " + format_bytes(lo) + " .. " + format_bytes(hi) + ")");
  return v;
}

bool Flag::read(const json& x, const std::string& at) const {
  if (!x.is_boolean()) fail_at(at, x, "expected true or false");
  return x.get<bool>();
}

std::string StreamSource::read(const json& x, const std::string& at) const {
  const std::string s = Text{}.read(x, at);
  const bool control = std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (s.empty() || s.size() > 4096 || control)
    fail_at(at, x, "expected a stream: a name of `kex list streams` or a file's path (1..4096 bytes, no control characters)");
  return s;
}

Footprint FootprintForm::read(const json& x, const std::string& at) const {
  if (x.is_string())
    if (const auto l = parse_footprint_level(x.get<std::string>())) return Footprint{*l, 0};
  if (x.is_string() && !parse_bytes(x.get<std::string>()))
    fail_at(at, x, "expected L1, L2, LLC or a byte size such as 65536 or \"1MiB\"");
  return Footprint{std::nullopt, ByteSize{64, hi}.read(x, at)};
}

json FootprintForm::write(const Footprint& f) const { return f.level ? json(to_string(*f.level)) : json(f.bytes); }

std::string Text::read(const json& x, const std::string& at) const {
  if (!x.is_string()) fail_at(at, x, "expected a string");
  return x.get<std::string>();
}

std::optional<Store> store_alias(std::string_view t) {
  if (t == "t") return Store::temporal;
  if (t == "nt") return Store::nontemporal;
  return parse_store(t);
}

std::optional<Direction> dir_alias(std::string_view t) {
  if (t == "fwd") return Direction::forward;
  if (t == "bwd") return Direction::backward;
  return parse_direction(t);
}

PrefetchAt PrefetchForm::read(const json& x, const std::string& at) const {
  const std::string t = Text{}.read(x, at);
  const auto sep = t.find('@');
  const auto kind = parse_prefetch(t.substr(0, sep));
  if (!kind) {
    std::string allowed;  // "none, nta@D, t0@D, ...": every kind but none takes a distance
    for (const PrefetchInfo& p : prefetch_kinds())
      allowed += (allowed.empty() ? "" : ", ") + std::string(p.name) + (p.kind == Prefetch::none ? "" : "@D");
    fail_at(at, x, "allowed: " + allowed + " (D = distance in bytes)");
  }
  PrefetchAt p{*kind, 0};
  if (sep != std::string::npos) {
    try {  // the grammar of kernel names too (src/core/numbers.hpp)
      p.distance = static_cast<int32_t>(
          parse_integer(std::string_view(t).substr(sep + 1), -kMaxPfDistance, kMaxPfDistance));
    } catch (const NumberError& err) {
      fail_at(at, x, std::string("the distance after @: ") + err.what());
    }
  } else if (*kind != Prefetch::none) {
    fail_at(at, x, "give a distance, e.g. \"" + t + "@256\"");
  }
  return p;
}

json PrefetchForm::write(const PrefetchAt& p) const {
  return std::string(to_string(p.kind)) + "@" + std::to_string(p.distance);
}

BlockPrefetch BlockForm::read(const json& x, const std::string& at) const {
  BlockPrefetch b;
  if (x.is_number_integer() && x.get<int64_t>() == 0) return b;
  if (!x.is_object()) fail_at(at, x, "expected 0 or {\"bytes\": N, \"order\": \"backward\"}");
  FieldReader in(x, at, Keys::partial);
  in.check_keys([](FieldReader& names) {
    BlockPrefetch scratch;
    config_fields::map_block(names, scratch);
  });
  config_fields::map_block(in, b);
  if (!in.raw("bytes")) ByteSize{64, 1 << 20}.read(json(0), at + "/bytes");  // refused: a block needs its bytes
  return b;
}

json BlockForm::write(const BlockPrefetch& b) const {
  json out;
  FieldWriter w(out);
  BlockPrefetch copy = b;
  config_fields::map_block(w, copy);
  return out;
}

uint8_t PrefillByte::read(const json& x, const std::string& at) const {
  if (!x.is_number_integer())
    fail_at(at, x, "allowed: \"none\" or a byte value 0..255 written to the destination before each sample");
  return static_cast<uint8_t>(whole_at(x, at, 0, 255));
}

uint32_t Threads::read(const json& x, const std::string& at) const {
  if (x.is_string() && x.get<std::string>() == "all")
    return static_cast<uint32_t>(std::clamp<size_t>(startup_cpus().size(), 1, kMaxThreads));
  if (!x.is_number_integer())
    fail_at(at, x, "allowed: a number of threads 1.." + std::to_string(kMaxThreads) +
                       ", or \"all\" (every CPU of the affinity mask)");
  return static_cast<uint32_t>(whole_at(x, at, 1, kMaxThreads));
}

namespace {

/// The sizes of a range `r` (read by `in`) of exactly one kind, at most 10000.
std::vector<uint64_t> range_sizes(const config_fields::SizeRange& r, const FieldReader& in) {
  std::vector<uint64_t> out;
  if (r.factor) {
    if (std::log(static_cast<double>(r.to) / r.from) / std::log(*r.factor) > 10000)
      fail_at(in.path("factor"), *in.raw("factor"), "gives more than 10000 sizes; use a larger factor");
    for (double v = static_cast<double>(r.from); v <= static_cast<double>(r.to) * (1 + 1e-9); v *= *r.factor)
      out.push_back(static_cast<uint64_t>(std::llround(v)));
  } else if (r.steps_per_octave) {
    if (std::log2(static_cast<double>(r.to) / r.from) * *r.steps_per_octave > 10000)
      fail_at(in.path("steps_per_octave"), *in.raw("steps_per_octave"), "gives more than 10000 sizes; use fewer steps");
    out = sizes_per_octave(r.from, r.to, *r.steps_per_octave);
  } else {
    if ((r.to - r.from) / *r.step > 10000)
      fail_at(in.path("step"), *in.raw("step"), "gives more than 10000 sizes; use a larger step");
    for (uint64_t v = r.from; v <= r.to; v += *r.step) out.push_back(v);
  }
  return out;
}

}  // namespace

std::vector<uint64_t> SizesForm::read(const json& x, const std::string& at) const {
  if (!x.is_object()) return {ByteSize{1, hi}.read(x, at)};
  FieldReader in(x, at, Keys::partial);
  in.check_keys([&](FieldReader& names) {
    config_fields::SizeRange scratch;
    config_fields::map_size_range(names, scratch, hi);
  });
  if (!in.raw("from") || !in.raw("to")) fail_at(at, x, "a range needs from and to");
  config_fields::SizeRange r;
  config_fields::map_size_range(in, r, hi);
  if (r.to < r.from) fail_at(at + "/to", *in.raw("to"), "must be >= from");
  if (bool(in.raw("factor")) + bool(in.raw("step")) + bool(in.raw("steps_per_octave")) != 1)
    fail_at(at, x, "a range needs exactly one of factor, step or steps_per_octave");
  return range_sizes(r, in);
}

std::vector<std::string> BaselinesForm::read(const json& x, const std::string& at) const {
  const char* names =
      "memcpy, memset, rep_movsb, rep_stosb, glibc-copy, glibc-move, glibc-clear, glibc/SYMBOL, dispatch:SIZE:NAME,...,NAME";
  const std::vector<std::string>& all = baseline_names();
  if (x.is_boolean()) return x.get<bool>() ? all : std::vector<std::string>{};
  if (!x.is_array()) fail_at(at, x, std::string("expected true, false or a list of ") + names);
  std::vector<std::string> out;
  for (size_t i = 0; i < x.size(); ++i) {
    const std::string p = at + "/" + std::to_string(i);
    std::string b = Text{}.read(x[i], p);
    if (is_dispatch_name(b)) {
      try {
        b = dispatch_kernel_name(parse_dispatch_kernel(b));
      } catch (const std::invalid_argument& e) {
        fail_at(p, x[i], e.what());
      }
      out.push_back(std::move(b));
      continue;
    }
    if (std::find(all.begin(), all.end(), b) == all.end() && !find_impl_set(b) && !parse_impl_name(b))
      fail_at(p, x[i], std::string("allowed: ") + names);
    if (const auto n = parse_impl_name(b); n && source_row(n->source).loaded)
      fail_at(p, x[i],
              "loaded code is named in \"load\" ({\"name\": \"" + n->symbol + "\", \"path\": ..., \"symbol\": ...}), "
              "and races with the rest from there");
    out.push_back(std::move(b));
  }
  return out;
}

json BaselinesForm::write(const std::vector<std::string>& v) const { return v.empty() ? json(false) : json(v); }

SegmentsRequest SegmentsForm::read(const json& x, const std::string& at) const {
  SegmentsRequest s;
  s.enabled = true;
  if (x.is_boolean()) s.enabled = x.get<bool>();
  else {
    FieldReader in(x, at, Keys::partial);
    config_fields::map_segments(in, s);
    in.finish();
  }
  return s;
}

json SegmentsForm::write(const SegmentsRequest& s) const {
  json out;
  FieldWriter w(out);
  config_fields::map_segments(w, s);
  return out;
}

}  // namespace kex::config_forms
