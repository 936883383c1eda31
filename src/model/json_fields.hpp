// One field table per record serves writing and reading (so the two cannot drift apart).
// A record's mapping is one function template over the IO, naming each key once
// with what a reader accepts:
//
//   template <class IO, class R> void map_shard(IO& io, R& s) {
//     io.whole("index", s.index, size_t(0), size_t(99999));
//     io.whole("count", s.count, size_t(1), size_t(100000));
//   }
//
// FieldWriter turns it into a JSON object; FieldReader reads one back, checking
// types and ranges, refusing missing and unknown keys, and naming
// "<where>/<key>: <value>: <what is allowed>" in every error (an InputError).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

/// What a text field may hold: at most `max_bytes`, no control characters, and,
/// when `valid` is set, only what it accepts (`allowed` says what that is).
struct TextRule {
  size_t max_bytes = 4096;
  bool (*valid)(const std::string&) = nullptr;
  const char* allowed = "";
};

/// Writes a record's fields into a JSON object (the rules are for readers).
class FieldWriter {
 public:
  explicit FieldWriter(nlohmann::json& out) : out_(out) { out_ = nlohmann::json::object(); }
  void text(const char* key, const std::string& v, const TextRule& = {}) { out_[key] = v; }
  void flag(const char* key, bool v) { out_[key] = v; }
  template <class T>
  void whole(const char* key, const T& v, std::type_identity_t<T>, std::type_identity_t<T>) {
    out_[key] = v;
  }
  void real(const char* key, double v, double, double) { out_[key] = v; }
  void texts(const char* key, const std::vector<std::string>& v, size_t, const TextRule& = {}) { out_[key] = v; }
  /// A JSON object or list kept as it is (a config: its own reader checks it).
  void object_value(const char* key, const nlohmann::json& v) { out_[key] = v; }
  void array_value(const char* key, const nlohmann::json& v, size_t) { out_[key] = v; }
  template <class E, class Parse, class Name>
  void choice(const char* key, const E& v, Parse, Name name, const char*) {
    out_[key] = std::string(name(v));
  }
  template <class F>
  void object(const char* key, F&& map) {
    FieldWriter w(out_[key]);
    map(w);
  }
  template <class T, class F>
  void list(const char* key, const std::vector<T>& v, size_t, size_t, F&& map) {
    nlohmann::json a = nlohmann::json::array();
    for (const T& e : v) {
      nlohmann::json o;
      FieldWriter w(o);
      map(w, e);
      a.push_back(std::move(o));
    }
    out_[key] = std::move(a);
  }

 private:
  nlohmann::json& out_;
};

/// Reads a record's fields from the JSON object `j`, found at `where` (e.g.
/// "run.journal:1: /header"). Every field named is required; call finish() after
/// the mapping to refuse the keys no field named.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& j, std::string where);
  void finish() const;
  void text(const char* key, std::string& v, const TextRule& rule = {});
  void flag(const char* key, bool& v);
  template <class T>
  void whole(const char* key, T& v, std::type_identity_t<T> lo, std::type_identity_t<T> hi) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    if constexpr (std::is_signed_v<T>) v = static_cast<T>(signed_in(key, int64_t(lo), int64_t(hi)));
    else v = static_cast<T>(unsigned_in(key, uint64_t(lo), uint64_t(hi)));
  }
  void real(const char* key, double& v, double lo, double hi);
  void texts(const char* key, std::vector<std::string>& v, size_t max_items, const TextRule& rule = {});
  void object_value(const char* key, nlohmann::json& v);
  void array_value(const char* key, nlohmann::json& v, size_t max_items);
  template <class E, class Parse, class Name>
  void choice(const char* key, E& v, Parse parse, Name, const char* allowed) {
    const nlohmann::json& x = at(key);
    std::optional<E> e;
    if (x.is_string()) e = parse(x.template get<std::string>());
    if (!e) fail(key, x, std::string("allowed: ") + allowed);
    v = *e;
  }
  template <class F>
  void object(const char* key, F&& map) {
    FieldReader r(at(key), path(key));
    map(r);
    r.finish();
  }
  template <class T, class F>
  void list(const char* key, std::vector<T>& v, size_t min_items, size_t max_items, F&& map) {
    const nlohmann::json& a = list_at(key, min_items, max_items);
    v.assign(a.size(), T{});
    for (size_t i = 0; i < a.size(); ++i) {
      FieldReader r(a[i], path(key) + "/" + std::to_string(i));
      map(r, v[i]);
      r.finish();
    }
  }
  /// "<where>/<key>": the place of a field, for errors a caller makes about it.
  std::string path(const std::string& key) const { return where_ + "/" + key; }
  [[noreturn]] void fail(const std::string& key, const nlohmann::json& value, const std::string& allowed) const;

 private:
  const nlohmann::json& at(const char* key);
  const nlohmann::json& list_at(const char* key, size_t min_items, size_t max_items);
  int64_t signed_in(const char* key, int64_t lo, int64_t hi);
  uint64_t unsigned_in(const char* key, uint64_t lo, uint64_t hi);
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> named_;
};

/// Whether `s` holds no control characters (bytes below 0x20, and 0x7f): the rule
/// of every text a FieldReader reads.
bool printable(std::string_view s);

}  // namespace kex
