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
//
// A record some files lack fields of (results files of every kex so far) is read
// with Keys::tolerant: a missing field keeps its default and a key no field names
// is passed over (or kept with others()). A field written only sometimes is
// guarded by has(), which is the writer's condition and the reader's "is it there":
//
//   if (io.has("run_id", !c.run_id.empty())) io.text("run_id", c.run_id);
//   if (io.has("num_cpus", c.num_cpus)) io.whole("num_cpus", *c.num_cpus, 1, 1 << 20);  // a std::optional
//
// A value whose JSON is not one of the plain types (a byte size "4KiB", a number or the
// word "none", a word with aliases) is read and written by a form: an object with
// read(json, at) -> T and write(T) -> json (see OrToken). one_or_list() reads a value or
// a list of them (an axis of a config); when() guards a field of a Keys::partial record
// that a writer writes only sometimes (a reader reads it whenever it is there):
//
//   if (io.when(a.chunks != base.chunks)) io.one_or_list("chunk", a.chunks, OrToken{json("none"), 0, bytes});
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kex {

/// A JSON value as an error message shows it: its JSON text, cut at a character
/// boundary to 60 columns with "..." (a 5000-character value, a value of wide characters);
/// an integer beyond 64 bits (kept as a double by the reader) is said to be one.
std::string shown_value(const nlohmann::json& value);

/// The most bytes a free-text field read from a file may hold (a host name, a CPU model,
/// a label, a note, a message): a longer one refuses the file, naming the field's JSON
/// path and this limit. Results files come from other people, and every writer (gnuplot,
/// the report's page, a terminal) would carry a 100 MB host name whole.
inline constexpr size_t kMaxFreeTextBytes = 4096;

/// What a text field may hold: at most `max_bytes`, no control characters, and,
/// when `valid` is set, only what it accepts (`allowed` says what that is).
struct TextRule {
  size_t max_bytes = kMaxFreeTextBytes;
  bool (*valid)(const std::string&) = nullptr;
  const char* allowed = "";
  /// Control characters allowed: text kept as another program wrote it (a host name, a
  /// CPU model), which every writer escapes for its own medium.
  bool controls = false;
};

/// How one_or_list() writes a list of one value: as a list, or as the value itself.
enum class Listed { always, when_many };

/// `form` with one JSON value more: `token` (a word such as "none", or null) stands for
/// `value` both ways (a chunk of "none" is 0, a distance of null is none). T may be a
/// std::optional of what `form` reads and writes.
template <class T, class Form>
struct OrToken {
  nlohmann::json token;
  T value;
  Form form;
  T read(const nlohmann::json& x, const std::string& at) const { return x == token ? value : T(form.read(x, at)); }
  nlohmann::json write(const T& v) const {
    if (v == value) return token;
    if constexpr (requires { v.value(); }) return form.write(*v);
    else return form.write(v);
  }
};
template <class T, class Form>
OrToken(nlohmann::json, T, Form) -> OrToken<T, Form>;

/// Writes a record's fields into a JSON object (the rules are for readers): a
/// nlohmann::json (keys sorted) or an ordered_json (keys in the mapping's order).
template <class Json>
class BasicFieldWriter {
 public:
  explicit BasicFieldWriter(Json& out) : out_(out) { out_ = Json::object(); }
  /// A mapping that must do something only one way (turn a read text into a record) asks this.
  static constexpr bool reading = false;
  /// The fields a tolerant reader cannot do without (a writer writes them anyway).
  void required(std::initializer_list<const char*>) const {}
  /// Whether a field written only sometimes is written: `present`.
  bool has(const char*, bool present) const { return present; }
  template <class T>
  bool has(const char*, const std::optional<T>& v) const { return v.has_value(); }
  /// Whether a field of a Keys::partial record is written: `written`.
  bool when(bool written) const { return written; }
  void text(const char* key, const std::string& v, const TextRule& = {}) { out_[key] = v; }
  /// A value in its form: form.write(v).
  template <class T, class Form>
  void value(const char* key, const T& v, const Form& form) { out_[key] = Json(form.write(v)); }
  /// A list of form.write(e) for each value of `v`; with Listed::when_many a single value
  /// is written as itself.
  template <class T, class Form>
  void one_or_list(const char* key, const std::vector<T>& v, const Form& form, Listed listed = Listed::always) {
    if (listed == Listed::when_many && v.size() == 1) return value(key, T(v.front()), form);
    Json a = Json::array();
    for (const T& e : v) a.push_back(Json(form.write(e)));
    out_[key] = std::move(a);
  }
  void flag(const char* key, bool v) { out_[key] = v; }
  template <class T>
  void whole(const char* key, const T& v, std::type_identity_t<T>, std::type_identity_t<T>) {
    out_[key] = v;
  }
  void real(const char* key, double v, double, double) { out_[key] = v; }
  void texts(const char* key, const std::vector<std::string>& v, size_t, const TextRule& = {}) { out_[key] = v; }
  template <class T>
  void wholes(const char* key, const std::vector<T>& v, size_t, std::type_identity_t<T>, std::type_identity_t<T>) {
    out_[key] = v;
  }
  void reals(const char* key, const std::vector<double>& v, size_t, double, double) { out_[key] = v; }
  /// An object of texts by name ({"xbyak": "7.07", ...}), in the order of `v`.
  void named_texts(const char* key, const std::vector<std::pair<std::string, std::string>>& v, size_t,
                   const TextRule& = {}) {
    Json o = Json::object();
    for (const auto& [name, text] : v) o[name] = text;
    out_[key] = std::move(o);
  }
  void named_reals(const char* key, const std::vector<std::pair<std::string, double>>& v, size_t, double, double,
                   const TextRule& = {}) {
    Json o = Json::object();
    for (const auto& [name, x] : v) o[name] = x;
    out_[key] = std::move(o);
  }
  /// A text or JSON null (none), always written.
  void nullable_text(const char* key, const std::optional<std::string>& v, const TextRule& = {}) {
    out_[key] = v ? Json(*v) : Json(nullptr);
  }
  /// An object of texts or nulls by name ({"ldt": "0x0f", "gdt": null}), in the order of `v`.
  void named_nullable_texts(const char* key, const std::vector<std::pair<std::string, std::optional<std::string>>>& v,
                            size_t, const TextRule& = {}) {
    Json o = Json::object();
    for (const auto& [name, text] : v) o[name] = text ? Json(*text) : Json(nullptr);
    out_[key] = std::move(o);
  }
  /// A JSON object or list kept as it is (a config: its own reader checks it).
  template <class V>
  void object_value(const char* key, const V& v) { out_[key] = v; }
  template <class V>
  void array_value(const char* key, const V& v, size_t) { out_[key] = v; }
  template <class E, class Parse, class Name>
  void choice(const char* key, const E& v, Parse, Name name, const char*) {
    out_[key] = std::string(name(v));
  }
  template <class F>
  void object(const char* key, F&& map) {
    BasicFieldWriter w(out_[key]);
    map(w);
  }
  template <class T, class F>
  void list(const char* key, const std::vector<T>& v, size_t, size_t, F&& map) {
    Json a = Json::array();
    for (const T& e : v) {
      Json o;
      BasicFieldWriter w(o);
      map(w, e);
      a.push_back(std::move(o));
    }
    out_[key] = std::move(a);
  }
  /// An object of records by name ({"cycles": {"per_op": 2.5}, ...}): each record's
  /// `name` member is its key, the rest its fields, in the order of `v`.
  template <class T, class F>
  void named_list(const char* key, const std::vector<T>& v, size_t, std::string T::*name, const TextRule&, F&& map) {
    Json o = Json::object();
    for (const T& e : v) {
      Json item;
      BasicFieldWriter w(item);
      map(w, e);
      o[e.*name] = std::move(item);
    }
    out_[key] = std::move(o);
  }
  /// The keys a reader kept with others(), after the named ones (a named key wins).
  template <class V>
  void others(const V& kept) {
    if (kept.is_object())
      for (auto it = kept.begin(); it != kept.end(); ++it)
        if (!out_.contains(it.key())) out_[it.key()] = it.value();
  }

 private:
  Json& out_;
};

using FieldWriter = BasicFieldWriter<nlohmann::json>;
using OrderedFieldWriter = BasicFieldWriter<nlohmann::ordered_json>;

/// What a FieldReader does with a key a record lacks and with one it does not name.
enum class Keys {
  exact,     ///< a missing field is refused, and so (at finish()) is a key no field names
  tolerant,  ///< a missing or null field keeps its value; a key no field names is passed over
  /// a missing field keeps its value (a request that sets some fields of a record); a key
  /// no field names is refused at finish(), and so is null
  partial,
};

/// Reads a record's fields from the JSON object `j`, found at `where` (e.g.
/// "run.journal:1: /header"). With Keys::exact every field named is required; call
/// finish() after the mapping to refuse the keys no field named. Nested objects and
/// lists are read under the same Keys.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& j, std::string where, Keys keys = Keys::exact);
  void finish() const;
  static constexpr bool reading = true;
  /// Refuses a record that lacks (or has null for) one of `keys`: "<where>/<key>: missing".
  /// For Keys::tolerant records, whose other fields keep their defaults.
  void required(std::initializer_list<const char*> keys) const;
  /// Whether a field written only sometimes is there (not null); an optional is
  /// emplaced when it is and reset when it is not.
  bool has(const char* key, bool);
  template <class T>
  bool has(const char* key, std::optional<T>& v) {
    const bool there = has(key, true);
    if (!there) v.reset();
    else if (!v) v.emplace();
    return there;
  }
  /// A field of a Keys::partial record is read whenever it is there (null included: its
  /// form then says what it allows); a missing one keeps its value.
  bool when(bool) const { return true; }
  void text(const char* key, std::string& v, const TextRule& rule = {});
  void flag(const char* key, bool& v);
  /// A value in its form: v = form.read(json, its path).
  template <class T, class Form>
  void value(const char* key, T& v, const Form& form) {
    if (const nlohmann::json* x = find(key)) v = form.read(*x, path(key));
  }
  /// A value or a non-empty list of values (its elements at "<key>/<index>"), each read by
  /// `form`; a form that reads a std::vector<T> (a range of sizes) adds all of it.
  template <class T, class Form>
  void one_or_list(const char* key, std::vector<T>& v, const Form& form, Listed = Listed::always) {
    const nlohmann::json* x = find(key);
    if (!x) return;
    if (x->is_array() && x->empty()) fail(key, *x, "an empty list gives no points");
    const bool list = x->is_array();
    std::vector<T> out;
    for (size_t i = 0; i < (list ? x->size() : 1); ++i) {
      auto e = form.read(list ? (*x)[i] : *x, list ? path(key) + "/" + std::to_string(i) : path(key));
      if constexpr (std::is_same_v<decltype(e), std::vector<T>>) out.insert(out.end(), e.begin(), e.end());
      else out.push_back(std::move(e));
    }
    v = std::move(out);
  }
  template <class T>
  void whole(const char* key, T& v, std::type_identity_t<T> lo, std::type_identity_t<T> hi) {
    if (const nlohmann::json* x = find(key)) v = whole_of<T>(*x, path(key), lo, hi);
  }
  void real(const char* key, double& v, double lo, double hi);
  void texts(const char* key, std::vector<std::string>& v, size_t max_items, const TextRule& rule = {});
  template <class T>
  void wholes(const char* key, std::vector<T>& v, size_t max_items, std::type_identity_t<T> lo,
              std::type_identity_t<T> hi) {
    const nlohmann::json* a = list_at(key, 0, max_items);
    if (!a) return;
    v.clear();
    for (size_t i = 0; i < a->size(); ++i) v.push_back(whole_of<T>((*a)[i], path(key) + "/" + std::to_string(i), lo, hi));
  }
  void reals(const char* key, std::vector<double>& v, size_t max_items, double lo, double hi);
  /// An object of at most `max_items` texts by name (names and texts under `rule`).
  void named_texts(const char* key, std::vector<std::pair<std::string, std::string>>& v, size_t max_items,
                   const TextRule& rule = {});
  /// An object of at most `max_items` numbers in [lo, hi] by name (each name under `rule`), in the file's order.
  void named_reals(const char* key, std::vector<std::pair<std::string, double>>& v, size_t max_items, double lo,
                   double hi, const TextRule& rule = {});
  /// A text or null (none); a missing key is none too, with any Keys.
  void nullable_text(const char* key, std::optional<std::string>& v, const TextRule& rule = {});
  /// An object of at most `max_items` texts or nulls by name: each text as `rule` allows,
  /// each name a text of the default rule (no control character).
  void named_nullable_texts(const char* key, std::vector<std::pair<std::string, std::optional<std::string>>>& v,
                            size_t max_items, const TextRule& rule = {});
  template <class V>
  void object_value(const char* key, V& v) {
    const nlohmann::json* x = find(key);
    if (!x) return;
    if (!x->is_object()) fail(key, *x, "expected an object");
    v = V(*x);
  }
  template <class V>
  void array_value(const char* key, V& v, size_t max_items) {
    if (const nlohmann::json* a = list_at(key, 0, max_items)) v = V(*a);
  }
  template <class E, class Parse, class Name>
  void choice(const char* key, E& v, Parse parse, Name, const char* allowed) {
    const nlohmann::json* x = find(key);
    if (!x) return;
    std::optional<E> e;
    if (x->is_string()) e = parse(x->template get<std::string>());
    if (!e) fail(key, *x, std::string("allowed: ") + allowed);
    v = *e;
  }
  template <class F>
  void object(const char* key, F&& map) {
    const nlohmann::json* x = find(key);
    if (!x) return;
    FieldReader r(*x, path(key), keys_);
    map(r);
    r.finish();
  }
  template <class T, class F>
  void list(const char* key, std::vector<T>& v, size_t min_items, size_t max_items, F&& map) {
    const nlohmann::json* a = list_at(key, min_items, max_items);
    if (!a) return;
    v.assign(a->size(), T{});
    for (size_t i = 0; i < a->size(); ++i) {
      FieldReader r((*a)[i], path(key) + "/" + std::to_string(i), keys_);
      map(r, v[i]);
      r.finish();
    }
  }
  /// An object of at most `max_items` records by name: each key (under `rule`) becomes
  /// the record's `name` member, its value the record's fields.
  template <class T, class F>
  void named_list(const char* key, std::vector<T>& v, size_t max_items, std::string T::*name, const TextRule& rule,
                  F&& map) {
    const nlohmann::json* o = find(key);
    if (!o) return;
    if (!o->is_object() || o->size() > max_items)
      fail(key, *o, "expected an object of at most " + std::to_string(max_items) + " records by name");
    v.clear();
    for (auto it = o->begin(); it != o->end(); ++it) {
      const std::string at = path(key) + "/" + it.key();
      T e{};
      e.*name = checked_name(it.key(), at, rule);
      FieldReader r(it.value(), at, keys_);
      map(r, e);
      r.finish();
      v.push_back(std::move(e));
    }
  }
  /// Keeps the keys no field named so far in `kept` (an object): what a newer kex
  /// wrote survives a read and a write (Keys::tolerant).
  template <class V>
  void others(V& kept) {
    kept = V::object();
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!named_.count(it.key())) kept[it.key()] = it.value();
  }
  /// "<where>/<key>": the place of a field, for errors a caller makes about it.
  std::string path(const std::string& key) const { return where_ + "/" + key; }
  /// The field's JSON as written (nullptr: absent), for checks and errors a caller makes about it.
  const nlohmann::json* raw(const char* key) const;
  /// Refuses, before any field is read, a key that `map` does not name (as finish() does):
  /// `map` runs over an empty object, so it must read into a scratch record.
  template <class F>
  void check_keys(F&& map) const {
    const nlohmann::json none = nlohmann::json::object();
    FieldReader names(none, where_, Keys::tolerant);
    map(names);
    refuse_keys_beyond(names.named_);
  }
  [[noreturn]] void fail(const std::string& key, const nlohmann::json& value, const std::string& allowed) const;

 private:
  friend class FieldChecker;  // the same checks of a whole number
  /// The field's value: nullptr when a tolerant reader finds none (or null); an
  /// exact reader refuses that.
  const nlohmann::json* find(const char* key);
  const nlohmann::json* list_at(const char* key, size_t min_items, size_t max_items);
  /// Refuses the first key of the object that `named` lacks, listing `named`.
  void refuse_keys_beyond(const std::set<std::string>& named) const;
  static std::string checked_name(const std::string& name, const std::string& at, const TextRule& rule);
  template <class T>
  static T whole_of(const nlohmann::json& x, const std::string& at, std::type_identity_t<T> lo,
                    std::type_identity_t<T> hi) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    if constexpr (std::is_signed_v<T>) return static_cast<T>(signed_in(x, at, int64_t(lo), int64_t(hi)));
    else return static_cast<T>(unsigned_in(x, at, uint64_t(lo), uint64_t(hi)));
  }
  static int64_t signed_in(const nlohmann::json& x, const std::string& at, int64_t lo, int64_t hi);
  static uint64_t unsigned_in(const nlohmann::json& x, const std::string& at, uint64_t lo, uint64_t hi);
  const nlohmann::json& j_;
  std::string where_;
  Keys keys_;
  std::set<std::string> named_;
};

/// Runs a reader's checks over a record's typed values, with no JSON document to read:
/// each field a writer would write (has, when) is checked by the rule or form the reader
/// applies to it, and named at the path the reader would name ("<where>/<key>", a list's
/// elements at "<key>/<index>"). A form's check is its `check(v, at)` when it has one, else
/// its `read` of the value's own JSON (`write(v)`): the same message as for a file. Used
/// for records kex makes itself (make_config, src/model/config_json.hpp).
class FieldChecker {
 public:
  explicit FieldChecker(std::string where) : where_(std::move(where)) {}
  static constexpr bool reading = true;  ///< a field table's reader's ranges apply
  bool has(const char*, bool present) const { return present; }
  template <class T>
  bool has(const char*, const std::optional<T>& v) const { return v.has_value(); }
  bool when(bool written) const { return written; }
  void text(const char* key, const std::string& v, const TextRule& rule = {}) const;
  void flag(const char*, bool) const {}
  template <class T, class Form>
  void value(const char* key, const T& v, const Form& form) const {
    check(v, form, path(key));
  }
  /// Each value by `form` (an empty list is refused as a reader refuses it).
  template <class T, class Form>
  void one_or_list(const char* key, const std::vector<T>& v, const Form& form, Listed listed = Listed::always) const {
    if (v.empty()) throw_at(path(key), "an empty list gives no points");
    const bool list = v.size() > 1 || listed == Listed::always;
    for (size_t i = 0; i < v.size(); ++i) check(v[i], form, list ? path(key) + "/" + std::to_string(i) : path(key));
  }
  template <class T>
  void whole(const char* key, const T& v, std::type_identity_t<T> lo, std::type_identity_t<T> hi) const {
    (void)FieldReader::whole_of<T>(nlohmann::json(v), path(key), lo, hi);
  }
  void real(const char* key, double v, double lo, double hi) const;
  template <class E, class Parse, class Name>
  void choice(const char* key, const E& v, Parse parse, Name name, const char* allowed) const {
    if (!parse(std::string(name(v)))) throw_at(path(key), std::string("allowed: ") + allowed);
  }
  template <class V>
  void object_value(const char*, const V&) const {}
  template <class F>
  void object(const char* key, F&& map) const {
    FieldChecker c(path(key));
    map(c);
  }
  template <class T, class F>
  void list(const char* key, const std::vector<T>& v, size_t min_items, size_t max_items, F&& map) const {
    if (v.size() < min_items || v.size() > max_items)
      throw_at(path(key), "expected a list of " + std::to_string(min_items) + " to " + std::to_string(max_items) +
                              " entries");
    for (size_t i = 0; i < v.size(); ++i) {
      FieldChecker c(path(key) + "/" + std::to_string(i));
      map(c, const_cast<T&>(v[i]));  // the field tables take a record by reference; nothing is written
    }
  }
  /// "<where>/<key>", as FieldReader::path.
  std::string path(const std::string& key) const { return where_ + "/" + key; }

 private:
  template <class T, class Form>
  static void check(const T& v, const Form& form, const std::string& at) {
    if constexpr (requires { form.check(v, at); }) form.check(v, at);
    else (void)form.read(nlohmann::json(form.write(v)), at);
  }
  [[noreturn]] static void throw_at(const std::string& at, const std::string& what);
  std::string where_;
};

/// Whether `s` holds no control characters (bytes below 0x20, and 0x7f): the rule
/// of every text a FieldReader reads.
bool printable(std::string_view s);

}  // namespace kex
