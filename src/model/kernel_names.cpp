#include "src/model/kernel_names.hpp"

#include <algorithm>

namespace kex {

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"memcpy", "memset", "rep_movsb", "rep_stosb"};
  return names;
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
      for (const auto& b : baseline_names())
        if (kernel == b) return std::nullopt;
      return "not a baseline name (allowed: memcpy, memset, rep_movsb, rep_stosb)";
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

}  // namespace kex
