#include "src/results/results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "src/core/error.hpp"
#include "src/core/fd_io.hpp"
#include "src/core/limits.hpp"
#include "src/core/terminal_text.hpp"
#include "src/model/noise.hpp"
#include "src/model/result_check.hpp"
#include "src/model/json_text.hpp"
#include "src/model/result_json.hpp"
#include "src/run/journal.hpp"

namespace kex {

namespace {
/// JSON nesting allowed in a results file (kex's own nest fewer than 16 levels).
constexpr int kMaxResultsDepth = 64;
}  // namespace

nlohmann::json read_results_json(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(path + ": not a regular file: a results file from `kex run` is needed");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open: a results file from `kex run` is needed");
  std::string text;
  const bool read = read_all(fd, text);
  close(fd);
  if (!read) throw InputError(path + ": cannot read: a results file from `kex run` is needed");  // /proc/self/mem, a failing disk
  try {
    return parse_json_text(text, path, kMaxResultsDepth, "not a results file kex writes");
  } catch (const nlohmann::json::parse_error& e) {  // a syntax error, or a number beyond a double (1e400)
    if (is_journal_file(path))
      throw InputError(path + ": a kex journal, not a results file: `kex run --resume " + path +
                       "` finishes the run and writes its results file");
    throw InputError(path + ": not JSON: syntax error at byte " + std::to_string(e.byte) +
                     ": a results file from `kex run` is needed");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not JSON: " + e.what());
  }
}

std::vector<RunDoc> results_from_json(const nlohmann::json& doc, const std::string& path) {
  std::vector<RunDoc> docs;
  try {
    docs = docs_from_json(doc, path);
    for (const RunDoc& d : docs) {  // what is read on demand later is checked here, where the file's name is known
      check_measured(d);
    }
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type that no typed reader checks
    throw InputError(path + ": a field of the wrong type: " + e.what());
  } catch (const InputError& e) {  // the readers of the context name the JSON path, not the file
    const std::string what = e.what();
    if (what.rfind(path + ":", 0) == 0) throw;
    throw InputError(path + ": " + what);
  }
  return docs;
}

std::vector<RunDoc> load_results(const std::string& path) {
  try {
    return results_from_json(read_results_json(path), path);
  } catch (const std::bad_alloc&) {
    throw out_of_memory_reading(path);
  }
}

void check_measured(const RunDoc& d) {
  for (const Result& r : d.results) {
    if (!r.ok()) continue;
    const std::string at = "benchmarks/" + r.name();
    check_tsc_rate(r.tsc_hz, at);
    for (size_t i = 0; i < r.reps.size(); ++i) check_repetition(r.reps[i], at + "/reps/" + std::to_string(i));
  }
}

RunDoc load_one_run(const std::string& path, const std::string& advice) {
  return one_run(load_results(path), path, advice);
}

RunDoc one_run(std::vector<RunDoc> docs, const std::string& path, const std::string& advice) {
  if (docs.size() != 1) {
    std::string machines;
    for (size_t i = 0; i < docs.size() && i < 8; ++i)
      machines += (i ? ", M" : "M") + std::to_string(i + 1) + " " + clip(terminal_text(run_label(docs[i].context)), 60);
    if (docs.size() > 8) machines += ", ...";
    throw InputError(path + ": holds " + std::to_string(docs.size()) + " machines (a kex merge of several: " +
                     machines + "); " + advice);
  }
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

std::string layout_label(const Layout& l) {
  Coords c;
  c.layout = l;
  std::string s = condition_label(c);
  return s.empty() ? "src:0/dst:0" : s;  // the default layout: both buffers at offset 0 (a word would name no value)
}

}  // namespace kex
