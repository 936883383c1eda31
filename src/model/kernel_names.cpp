#include "src/model/kernel_names.hpp"

#include <algorithm>

namespace kex {

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"memcpy", "memset", "rep_movsb", "rep_stosb"};
  return names;
}

std::optional<BaselineName> parse_baseline_name(std::string_view name) {
  const size_t slash = name.find('/');
  const std::string_view base = name.substr(0, slash);
  const auto& names = baseline_names();
  if (std::find(names.begin(), names.end(), base) == names.end()) return std::nullopt;
  if (slash == std::string_view::npos) return BaselineName{std::string(base), 0};
  const std::string_view rest = name.substr(slash + 1);
  auto hex = [](char c) { return (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1; };
  if ((base != "memset" && base != "rep_stosb") || rest.size() != 9 || rest.substr(0, 7) != "fill:0x" ||
      hex(rest[7]) < 0 || hex(rest[8]) < 0)
    return std::nullopt;
  const auto fill = static_cast<uint8_t>(hex(rest[7]) * 16 + hex(rest[8]));
  if (fill == 0) return std::nullopt;  // the zero fill has no token, as in spec names
  return BaselineName{std::string(base), fill};
}

std::string baseline_name(const std::string& base, uint8_t fill) {
  if (!fill) return base;
  static const char* hex = "0123456789abcdef";
  return base + "/fill:0x" + hex[fill >> 4] + hex[fill & 15];
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
  }
  return "unknown kind";
}

bool is_kernel_name(std::string_view kernel) {
  for (auto kind : {KernelKind::generated, KernelKind::baseline, KernelKind::preset})
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
