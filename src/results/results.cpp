#include "src/results/results.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "src/core/error.hpp"
#include "src/model/noise.hpp"
#include "src/model/result_json.hpp"

namespace kex {

std::vector<RunDoc> load_results(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file: a results file from `kex run` is needed");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open: a results file from `kex run` is needed");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not JSON: " + e.what());
  }
  std::vector<RunDoc> docs = docs_from_json(doc, path);
  for (const RunDoc& d : docs) {
    try {  // the noise record is read on demand later: check it here, where the file's name is known
      (void)run_noise(d.context);
      (void)run_sentinel_threshold(d.context);
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
  }
  return docs;
}

RunDoc load_one_run(const std::string& path) {
  auto docs = load_results(path);
  if (docs.size() != 1)
    throw InputError(path + ": holds " + std::to_string(docs.size()) +
                     " machines (a kex merge of several); give one run per side");
  return std::move(docs.front());
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  if (std::fabs(b - std::round(b)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f %s", b, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", b, units[u]);
  return buf;
}

std::optional<std::regex> filter_regex(const std::string& filter) {
  if (filter.empty()) return std::nullopt;
  try {
    return std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    throw InputError("--filter: " + filter + ": not a valid regular expression (ECMAScript syntax)");
  }
}

Coords condition(const Coords& c) {
  Coords x = c;
  x.size = 0;
  return x;
}

std::string condition_label(const Coords& cond) {
  Coords c = cond;
  c.size = 0;
  const std::string n = point_name({"k", c});  // "k/0[/tokens]"
  return n.size() > 4 ? n.substr(4) : "";
}

}  // namespace kex
