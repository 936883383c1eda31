#include "src/model/json_fields.hpp"

#include <cmath>
#include <sstream>

#include "src/core/error.hpp"
#include "src/core/terminal_text.hpp"

namespace kex {

using nlohmann::json;

bool printable(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

std::string shown_value(const nlohmann::json& value) {
  // A long string's head is enough for 60 columns (a 100 MB host name is not dumped whole).
  const bool long_text = value.is_string() && value.get_ref<const std::string&>().size() > 256;
  std::string text = clip(long_text ? json(value.get_ref<const std::string&>().substr(0, 256)).dump(
                                          -1, ' ', false, json::error_handler_t::replace)
                                    : value.dump(),
                          60);  // JSON text: a control character in it is escaped
  // The reader keeps an integer beyond 64 bits as a double (18446744073709551616 comes
  // back as 1.8446744073709552e+19): say so, as the file does not show that text.
  if (value.is_number_float() && std::fabs(value.get<double>()) >= 0x1p63 &&
      value.get<double>() == std::floor(value.get<double>()))
    text += " (an integer beyond 64 bits, read as a floating-point number)";
  return text;
}

namespace {

std::string shown(const json& value) { return shown_value(value); }

/// The text `x` at `at` under `rule`, or an InputError naming `at` and the value.
std::string checked_text(const json& x, const std::string& at, const TextRule& rule) {
  if (!x.is_string()) throw InputError(at, shown(x) + ": expected a string");
  const std::string& s = x.get_ref<const std::string&>();
  if (s.size() > rule.max_bytes)
    throw InputError(at, shown(x) + ": longer than " + std::to_string(rule.max_bytes) + " bytes");
  if (!rule.controls && !printable(s)) throw InputError(at, shown(x) + ": a control character: not allowed in a text");
  if (rule.valid && !rule.valid(s)) throw InputError(at, shown(x) + ": allowed: " + rule.allowed);
  return s;
}

}  // namespace

FieldReader::FieldReader(const json& j, std::string where, Keys keys) : j_(j), where_(std::move(where)), keys_(keys) {
  if (!j_.is_object()) throw InputError(where_, shown(j_) + ": expected an object");
}

void FieldReader::fail(const std::string& key, const json& value, const std::string& allowed) const {
  throw InputError(path(key), shown(value) + ": " + allowed);
}

void FieldReader::finish() const {
  if (keys_ != Keys::tolerant) refuse_keys_beyond(named_);
}

const json* FieldReader::raw(const char* key) const {
  const auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

void FieldReader::refuse_keys_beyond(const std::set<std::string>& named) const {
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!named.count(it.key())) {
      std::string list;
      for (const auto& k : named) list += (list.empty() ? "" : ", ") + k;
      throw InputError(path(printable(it.key()) ? it.key() : json(it.key()).dump()),
                       "unknown key (allowed: " + list + ")");
    }
}

void FieldReader::required(std::initializer_list<const char*> keys) const {
  for (const char* key : keys)
    if (!j_.contains(key)) throw InputError(path(key), "missing");
    else if (j_[key].is_null()) throw InputError(path(key), "null: a value is required");
}

std::string FieldReader::checked_name(const std::string& name, const std::string& at, const TextRule& rule) {
  return checked_text(json(name), at, rule);
}

bool FieldReader::has(const char* key, bool) {
  named_.insert(key);
  return j_.contains(key) && !j_[key].is_null();
}

const json* FieldReader::find(const char* key) {
  // exact and partial: null is refused by type
  if (has(key, true) || (keys_ != Keys::tolerant && j_.contains(key))) return &j_[key];
  if (keys_ == Keys::exact) throw InputError(path(key), "missing");
  return nullptr;
}

const json* FieldReader::list_at(const char* key, size_t min_items, size_t max_items) {
  const json* a = find(key);
  if (a && (!a->is_array() || a->size() < min_items || a->size() > max_items))
    fail(key, *a,
         "expected a list of " + std::to_string(min_items) + " to " + std::to_string(max_items) + " entries");
  return a;
}

void FieldReader::text(const char* key, std::string& v, const TextRule& rule) {
  if (const json* x = find(key)) v = checked_text(*x, path(key), rule);
}

void FieldReader::flag(const char* key, bool& v) {
  const json* x = find(key);
  if (!x) return;
  if (!x->is_boolean()) fail(key, *x, "expected true or false");
  v = x->get<bool>();
}

int64_t FieldReader::signed_in(const json& x, const std::string& at, int64_t lo, int64_t hi) {
  const std::string range = "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!x.is_number_integer() || (x.is_number_unsigned() && x.get<uint64_t>() > uint64_t(INT64_MAX)))
    throw InputError(at, shown(x) + ": " + range);
  const int64_t v = x.get<int64_t>();
  if (v < lo || v > hi) throw InputError(at, shown(x) + ": " + range);
  return v;
}

uint64_t FieldReader::unsigned_in(const json& x, const std::string& at, uint64_t lo, uint64_t hi) {
  const std::string range = "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!x.is_number_unsigned() && !(x.is_number_integer() && x.get<int64_t>() >= 0))
    throw InputError(at, shown(x) + ": " + range);
  const uint64_t v = x.get<uint64_t>();
  if (v < lo || v > hi) throw InputError(at, shown(x) + ": " + range);
  return v;
}

namespace {

/// The finite number `x` at `at` in lo..hi (an infinite bound: none on that side).
double checked_real(const json& x, const std::string& at, double lo, double hi) {
  std::ostringstream range;
  if (std::isinf(lo) && std::isinf(hi)) range << "expected a number";
  else if (std::isinf(hi)) range << "expected a number >= " << lo;
  else range << "expected a number in " << lo << ".." << hi;
  if (!x.is_number()) throw InputError(at, shown(x) + ": " + range.str());
  const double d = x.get<double>();
  if (!(std::isfinite(d) && d >= lo && d <= hi)) throw InputError(at, shown(x) + ": " + range.str());
  return d;
}

}  // namespace

void FieldReader::real(const char* key, double& v, double lo, double hi) {
  if (const json* x = find(key)) v = checked_real(*x, path(key), lo, hi);
}

void FieldReader::reals(const char* key, std::vector<double>& v, size_t max_items, double lo, double hi) {
  const json* a = list_at(key, 0, max_items);
  if (!a) return;
  v.clear();
  for (size_t i = 0; i < a->size(); ++i) v.push_back(checked_real((*a)[i], path(key) + "/" + std::to_string(i), lo, hi));
}

void FieldReader::texts(const char* key, std::vector<std::string>& v, size_t max_items, const TextRule& rule) {
  const json* a = list_at(key, 0, max_items);
  if (!a) return;
  v.clear();
  for (size_t i = 0; i < a->size(); ++i) v.push_back(checked_text((*a)[i], path(key) + "/" + std::to_string(i), rule));
}

void FieldReader::named_texts(const char* key, std::vector<std::pair<std::string, std::string>>& v, size_t max_items,
                              const TextRule& rule) {
  const json* o = find(key);
  if (!o) return;
  if (!o->is_object() || o->size() > max_items)
    fail(key, *o, "expected an object of at most " + std::to_string(max_items) + " texts by name");
  v.clear();
  for (auto it = o->begin(); it != o->end(); ++it) {
    const std::string at = path(key) + "/" + (printable(it.key()) ? it.key() : json(it.key()).dump());
    v.emplace_back(checked_text(json(it.key()), at, rule), checked_text(it.value(), at, rule));
  }
}

void FieldReader::named_reals(const char* key, std::vector<std::pair<std::string, double>>& v, size_t max_items,
                              double lo, double hi, const TextRule& rule) {
  const json* o = find(key);
  if (!o) return;
  if (!o->is_object() || o->size() > max_items)
    fail(key, *o, "expected an object of at most " + std::to_string(max_items) + " numbers by name");
  v.clear();
  for (auto it = o->begin(); it != o->end(); ++it) {
    const std::string at = path(key) + "/" + (printable(it.key()) ? it.key() : json(it.key()).dump());
    v.emplace_back(checked_text(json(it.key()), at, rule), checked_real(it.value(), at, lo, hi));
  }
}

void FieldReader::nullable_text(const char* key, std::optional<std::string>& v, const TextRule& rule) {
  if (!has(key, true)) {
    v.reset();
    return;
  }
  v = checked_text(j_[key], path(key), rule);
}

void FieldReader::named_nullable_texts(const char* key,
                                       std::vector<std::pair<std::string, std::optional<std::string>>>& v,
                                       size_t max_items, const TextRule& rule) {
  const json* o = find(key);
  if (!o) return;
  if (!o->is_object() || o->size() > max_items)
    fail(key, *o, "expected an object of at most " + std::to_string(max_items) + " texts or nulls by name");
  v.clear();
  for (auto it = o->begin(); it != o->end(); ++it) {
    const std::string at = path(key) + "/" + (printable(it.key()) ? it.key() : json(it.key()).dump());
    std::optional<std::string> text;
    if (!it.value().is_null()) text = checked_text(it.value(), at, rule);
    v.emplace_back(checked_text(json(it.key()), at, TextRule{}), std::move(text));
  }
}

void FieldChecker::text(const char* key, const std::string& v, const TextRule& rule) const {
  (void)checked_text(json(v), path(key), rule);
}

void FieldChecker::real(const char* key, double v, double lo, double hi) const {
  (void)checked_real(json(v), path(key), lo, hi);
}

void FieldChecker::throw_at(const std::string& at, const std::string& what) { throw InputError(at, what); }

}  // namespace kex
