#include "src/model/kernel_names.hpp"

#include <algorithm>

namespace kex {

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"memcpy", "memset", "rep_movsb", "rep_stosb"};
  return names;
}

namespace {

/// The byte of a "fill:0xNN" token (lower-case hex, not 00: the zero fill has no token,
/// as in spec names), or nullopt.
std::optional<uint8_t> parse_fill_token(std::string_view t) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1; };
  if (t.size() != 9 || t.substr(0, 7) != "fill:0x" || hex(t[7]) < 0 || hex(t[8]) < 0) return std::nullopt;
  const auto fill = static_cast<uint8_t>(hex(t[7]) * 16 + hex(t[8]));
  if (fill == 0) return std::nullopt;
  return fill;
}

std::string with_fill(std::string name, uint8_t fill) {
  if (!fill) return name;
  static const char* hex = "0123456789abcdef";
  return name + "/fill:0x" + hex[fill >> 4] + hex[fill & 15];
}

bool is_c_identifier(std::string_view s) {
  if (s.empty() || s.size() > 128 || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

bool is_load_label(std::string_view s) {
  if (s.empty() || s.size() > 64 || s[0] == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::optional<BaselineName> parse_baseline_name(std::string_view name) {
  const size_t slash = name.find('/');
  const std::string_view base = name.substr(0, slash);
  const auto& names = baseline_names();
  if (std::find(names.begin(), names.end(), base) == names.end()) return std::nullopt;
  if (slash == std::string_view::npos) return BaselineName{std::string(base), 0};
  if (base != "memset" && base != "rep_stosb") return std::nullopt;
  const auto fill = parse_fill_token(name.substr(slash + 1));
  if (!fill) return std::nullopt;
  return BaselineName{std::string(base), *fill};
}

std::string baseline_name(const std::string& base, uint8_t fill) { return with_fill(base, fill); }

std::optional<ImplName> parse_impl_name(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto source = parse_impl_source(name.substr(0, slash));
  if (!source) return std::nullopt;
  const std::string_view rest = name.substr(slash + 1);
  const size_t slash2 = rest.find('/');
  ImplName n{*source, std::string(rest.substr(0, slash2)), 0};
  if (source_row(*source).name == NameForm::symbol ? !is_c_identifier(n.symbol) : !is_load_label(n.symbol))
    return std::nullopt;
  if (slash2 != std::string_view::npos) {
    const auto fill = parse_fill_token(rest.substr(slash2 + 1));
    if (!fill) return std::nullopt;
    n.fill = *fill;
  }
  return n;
}

std::string impl_name(const ImplName& n) { return with_fill(std::string(to_string(n.source)) + "/" + n.symbol, n.fill); }

const std::vector<ImplSet>& impl_sets() {
  static const std::vector<ImplSet> sets = {{"glibc-copy", Source::glibc, Function::memcpy},
                                            {"glibc-move", Source::glibc, Function::memmove},
                                            {"glibc-clear", Source::glibc, Function::memset}};
  return sets;
}

const ImplSet* find_impl_set(std::string_view name) {
  for (const ImplSet& s : impl_sets())
    if (s.name == name) return &s;
  return nullptr;
}

bool is_preset_id(std::string_view id) {
  if (id.size() > 128) return false;
  size_t tokens = 0;
  for (size_t pos = 0; pos <= id.size(); ++tokens) {
    const size_t end = std::min(id.find('/', pos), id.size());
    const std::string_view t = id.substr(pos, end - pos);
    if (t.empty()) return false;
    for (char c : t) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      (tokens > 0 && ((c >= 'A' && c <= 'Z') || std::string_view("_.:+-").find(c) != std::string_view::npos));
      if (!ok) return false;
    }
    pos = end + 1;
  }
  return tokens >= 2;
}

std::optional<std::string> kernel_name_error(KernelKind kind, std::string_view kernel) {
  switch (kind) {
    case KernelKind::generated:
      try {
        parse_spec_name(kernel);
        return std::nullopt;
      } catch (const std::exception& e) {
        return std::string("not a kernel spec name (") + e.what() + ")";
      }
    case KernelKind::baseline:
      if (parse_baseline_name(kernel)) return std::nullopt;
      return "not a baseline name (allowed: memcpy, memset, rep_movsb, rep_stosb, and memset/fill:0xNN, "
             "rep_stosb/fill:0xNN)";
    case KernelKind::preset:
      if (is_preset_id(kernel)) return std::nullopt;
      return "not a preset id (FAMILY/NAME of letters, digits and _ . : + -, e.g. fastc/faster_copy)";
    case KernelKind::implementation:
      if (parse_impl_name(kernel)) return std::nullopt;
      return "not an implementation name (glibc/SYMBOL, a C identifier of at most 128 bytes, lib/NAME or asm/NAME, "
             "NAME of at most 64 letters, digits, _ and -; then /fill:0xNN for a clear, e.g. "
             "glibc/__memmove_avx_unaligned_erms, lib/new)";
    case KernelKind::dispatch:
      try {
        parse_dispatch_kernel(kernel);
        return std::nullopt;
      } catch (const std::exception& e) {
        return std::string("not a dispatch name (") + e.what() + ")";
      }
  }
  return "unknown kind";
}

bool is_kernel_name(std::string_view kernel) {
  for (auto kind : kKernelKinds)
    if (!kernel_name_error(kind, kernel)) return true;
  return false;
}

std::string kernel_symbol(std::string_view name) {
  std::string s = "kex_";
  for (char c : name) {
    const char l = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) s += l;
    else if (s.back() != '_') s += '_';
  }
  while (s.size() > 4 && s.back() == '_') s.pop_back();
  return s;
}

}  // namespace kex
