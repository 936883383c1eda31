// CPU lists as the kernel writes them ("0-3,6": sysfs *_cpu_list files, --cpu lists).
#pragma once
#include <string>
#include <vector>

namespace kex {

/// "0-3,6": an ascending CPU list as the kernel's *_cpu_list files write it.
std::string cpu_list_text(const std::vector<int>& cpus);

/// Parses a kernel CPU list ("0-3,6", "" -> {}); InputError naming `where` on bad text.
std::vector<int> parse_cpu_list(const std::string& text, const std::string& where);

}  // namespace kex
