#include "src/run/journal.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "src/core/error.hpp"
#include "src/model/result_json.hpp"

namespace kex {

namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

nlohmann::ordered_json seed_header_json(const SeedHeader& h) {
  return {{"harness", to_string(h.harness)}, {"tsc_mhz", h.tsc_mhz},       {"tsc_source", h.tsc_source},
          {"pmu_available", h.pmu_available}, {"cpu_model", h.cpu_model}, {"pinned_cpu", h.pinned_cpu},
          {"fsave", h.fsave},                {"buffer_address", h.buffer_address}, {"hahn_mhz", h.hahn_mhz}};
}

SeedHeader seed_header_from(const nlohmann::json& j) {
  SeedHeader h;
  h.harness = parse_harness(j.value("harness", "fastc")).value_or(Harness::fastc);
  h.tsc_mhz = j.value("tsc_mhz", 0.0);
  h.tsc_source = j.value("tsc_source", "");
  h.pmu_available = j.value("pmu_available", false);
  h.cpu_model = j.value("cpu_model", "");
  h.pinned_cpu = j.value("pinned_cpu", -1);
  h.fsave = j.value("fsave", true);
  h.buffer_address = j.value("buffer_address", uint64_t(0));
  h.hahn_mhz = j.value("hahn_mhz", 0.0);
  return h;
}

}  // namespace

std::string journal_path(const std::string& output) {
  if (output == "-" || output.empty()) return "kex-run.journal";
  return output + ".journal";
}

Journal::Journal(const std::string& path, const nlohmann::json& header) : path_(path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(path + ": cannot create the run's journal (" + std::strerror(errno) +
                     (errno == EEXIST ? "; an earlier run left it: resume it with kex run --resume " + path +
                                            ", or remove it"
                                      : "") +
                     ")");
  f_ = fdopen(fd, "w");
  line(nlohmann::json{{"kex_journal", 1}, {"header", header}});
  sync();
}

Journal::Journal(const std::string& path) : path_(path) {
  // A line torn by a kill mid-write has no newline: cut it off first, or the next
  // line would be appended to it and the journal could not be read again.
  if (FILE* in = std::fopen(path.c_str(), "r")) {
    long keep = 0, pos = 0;
    for (int c; (c = std::fgetc(in)) != EOF;)
      if (++pos, c == '\n') keep = pos;
    std::fclose(in);
    if (keep < pos && truncate(path.c_str(), keep) != 0)
      throw InputError(path + ": cannot cut the journal's torn last line (" + std::strerror(errno) + ")");
  }
  f_ = std::fopen(path.c_str(), "a");
  if (!f_) throw InputError(path + ": cannot append to the journal (" + std::strerror(errno) + ")");
}

Journal::~Journal() {
  if (f_) std::fclose(f_);
}

void Journal::line(const nlohmann::json& j) {
  if (!f_) return;
  const std::string s = j.dump() + "\n";
  if (std::fwrite(s.data(), 1, s.size(), f_) != s.size() || std::fflush(f_) != 0) return fail();
  if (now_s() - last_sync_ >= 1.0) sync();
}

void Journal::sync() {
  if (!f_) return;
  if (std::fflush(f_) != 0 || (fsync(fileno(f_)) != 0 && errno != EINVAL)) return fail();
  last_sync_ = now_s();
}

void Journal::fail() {
  // A journal that cannot be written (a full disk) must not end the run: the points
  // are still in memory and the final write is tried; say it once.
  std::fprintf(stderr, "kex: warning: %s: cannot write the journal (%s); measuring on without it\n", path_.c_str(),
               std::strerror(errno));
  std::fclose(f_);
  f_ = nullptr;
  failed_ = true;
}

void Journal::repetition(const std::string& point, const Repetition& r) {
  line(nlohmann::json{{"rep", {{"point", point}, {"data", to_json(r)}}}});
}

void Journal::result(const Result& r) { line(nlohmann::json{{"result", to_json(r)}}); }

void Journal::disturbed(const std::vector<std::pair<std::string, uint64_t>>& po) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [p, o] : po) a.push_back({p, o});
  line(nlohmann::json{{"disturbed", a}});
}

void Journal::seed_run(const std::string& source, const SeedRun& run) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : run.results) results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_run", {{"source", source}, {"header", seed_header_json(run.header)}, {"results", results}}}});
}

void Journal::seed_pass(const std::string& source, uint32_t pass, const SeedRun& run) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : run.results) results.push_back(nlohmann::json(to_json(r)));
  line(nlohmann::json{{"seed_pass", {{"source", source}, {"pass", pass}, {"header", seed_header_json(run.header)},
                                     {"results", results}}}});
}

void Journal::segments(const nlohmann::ordered_json& section) { line(nlohmann::json{{"segments", section}}); }

void Journal::remove() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  ::unlink(path_.c_str());
}

JournalState read_journal(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the journal (" + std::strerror(errno) + ")");
  JournalState s;
  std::string text;
  std::vector<std::string> lines;
  while (std::getline(in, text)) lines.push_back(text);
  // A line the kill cut off has no newline at its end: the file does not end in '\n'.
  in.clear();
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  bool ends_with_newline = true;
  if (size > 0) {
    in.seekg(-1, std::ios::end);
    ends_with_newline = in.get() == '\n';
  }
  if (lines.empty()) throw InputError(path + ": empty: not a kex journal");
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(lines[i]);
    } catch (const nlohmann::json::parse_error&) {
      if (i + 1 == lines.size() && !ends_with_newline) {
        s.torn_tail = true;  // cut off by the kill: the repetition in flight
        break;
      }
      throw InputError(where + ": not a journal line (malformed JSON)");
    }
    ++s.lines;
    try {
      if (i == 0) {
        if (!j.is_object() || !j.contains("kex_journal") || !j.contains("header"))
          throw InputError(path + ": not a kex journal (its first line has no kex_journal header)");
        s.header = j["header"];
        continue;
      }
      if (j.contains("rep")) {
        const auto& r = j["rep"];
        s.reps[r.at("point").get<std::string>()].push_back(repetition_from_json(r.at("data"), where));
      } else if (j.contains("result")) {
        const double hz = s.header.value("context", nlohmann::json::object())
                              .value("machine", nlohmann::json::object())
                              .value("tsc_hz", 1e9);
        Result r = result_from_json(j["result"], hz, where);
        s.results[r.name()] = r;
      } else if (j.contains("disturbed")) {
        for (const auto& e : j["disturbed"]) {
          auto it = s.reps.find(e.at(0).get<std::string>());
          if (it == s.reps.end()) continue;
          for (auto& rep : it->second)
            if (rep.order == e.at(1).get<uint64_t>()) rep.disturbed = true;
        }
      } else if (j.contains("seed_run")) {
        const auto& sr = j["seed_run"];
        SeedRun run;
        run.header = seed_header_from(sr.at("header"));
        const double hz = run.header.tsc_mhz * 1e6;
        for (const auto& r : sr.at("results")) run.results.push_back(result_from_json(r, hz, where));
        s.seed_runs.emplace_back(sr.at("source").get<std::string>(), std::move(run));
      } else if (j.contains("seed_pass")) {
        const auto& sp = j["seed_pass"];
        SeedRun run;
        run.header = seed_header_from(sp.at("header"));
        for (const auto& r : sp.at("results")) run.results.push_back(result_from_json(r, run.header.tsc_mhz * 1e6, where));
        s.seed_passes.emplace_back(sp.at("source").get<std::string>(), sp.at("pass").get<uint32_t>(), std::move(run));
      } else if (j.contains("segments")) {
        s.segments = nlohmann::ordered_json(j["segments"]);
      } else {
        throw InputError(where + ": unknown journal line");
      }
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + ": not a journal line (" + e.what() + ")");
    }
  }
  return s;
}

}  // namespace kex
