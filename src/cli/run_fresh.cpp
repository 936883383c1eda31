// kex run's fresh runs: the configs, protocol and outputs its command line names.
#include <unistd.h>
#include <algorithm>
#include <ctime>
#include <iostream>
#include <tuple>

#include "src/cli/run_setup.hpp"
#include "src/cli/selection.hpp"
#include "src/model/config_json.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/error.hpp"
#include "src/core/numbers.hpp"
#include "src/core/version.hpp"
#include "src/run/context.hpp"
#include "src/run/harness.hpp"

namespace kex {


namespace {

std::pair<size_t, size_t> parse_shard(const std::string& s) {
  size_t slash = s.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used1 = 0, used2 = 0;
    unsigned long i = std::stoul(s.substr(0, slash), &used1);
    unsigned long n = std::stoul(s.substr(slash + 1), &used2);
    if (used1 != slash || used2 != s.size() - slash - 1 || n == 0 || i >= n || n > 100000)
      throw std::invalid_argument("");
    return {i, n};
  } catch (const std::exception&) {
    throw InputError("--shard: '" + s + "': expected I/N with 0 <= I < N, e.g. 0/4");
  }
}

/// --seed S: a whole number 0..2^64-1 as typed ("-1" and "1e23" are refused, not wrapped).
uint64_t seed_option(const std::string& text) {
  try {
    return parse_unsigned(text, 0, UINT64_MAX);
  } catch (const NumberError& e) {
    throw InputError(std::string("--seed: ") + e.what());
  }
}

/// Repetitions when neither a config nor the command line gives a count: 20 paired rounds
/// of each group (the README's "How kex measures"), or 3 separate repetitions of each point
/// (each one adaptive, up to max_time_per_point long).
constexpr uint32_t kDefaultRounds = 20, kDefaultSeparate = 3;

/// The run-wide protocol: built-in defaults, then the first config that sets a
/// field, then the command line.
Protocol make_protocol(const std::vector<Config>& configs, const RunArgs& a, const CLI::App& cmd) {
  Protocol p;
  for (auto it = configs.rbegin(); it != configs.rend(); ++it) it->protocol.apply(p);  // the first config's knob wins
  if (a.separate) p.paired = false;
  if (cmd.count("--repetitions")) p.repetitions = a.repetitions;
  if (cmd.count("--seed")) p.seed = seed_option(a.seed);
  if (a.no_shuffle) p.shuffle = false;
  if (a.no_sentinel) p.sentinel.enabled = false;
  if (cmd.count("--cpu")) p.cpu = a.cpu;
  if (cmd.count("--placement")) {
    p.placement = parse_placement(a.placement, "--placement");
    if (p.placement.mode == PlacementMode::list && cmd.count("--cpu") && a.cpu != p.placement.cpus.front())
      throw InputError("--placement: '" + a.placement + "': its first CPU runs worker 0, the measuring thread; --cpu " +
                       std::to_string(a.cpu) + " says another (give one of them)");
  }
  if (!a.counters.empty()) p.counters.clear();  // the command line's list, not added to a config's
  for (size_t i = 0; !a.counters.empty() && i <= a.counters.size();) {
    const size_t j = std::min(a.counters.find(',', i), a.counters.size());
    if (j == i) throw InputError("--counters: '" + a.counters + "': an empty name; give NAME[,NAME...] (kex info lists them)");
    p.counters.push_back(a.counters.substr(i, j - i));
    i = j + 1;
  }
  if (!p.counters.empty()) p.paired = false;  // counters count one point's own samples: each alone
  const bool counted = cmd.count("--repetitions") > 0 ||
                       std::any_of(configs.begin(), configs.end(), [](const Config& c) { return c.protocol.sets("repetitions"); });
  if (!counted) p.repetitions = p.paired ? kDefaultRounds : kDefaultSeparate;
  // Without a seed, a fresh one per run (recorded: the order can be replayed).
  if (!cmd.count("--seed") && std::none_of(configs.begin(), configs.end(), [](const Config& c) { return c.protocol.sets("seed"); }))
    p.seed = (uint64_t(time(nullptr)) << 20) ^ uint64_t(getpid());
  return p;
}

/// --repeat N: a whole number 1..1000, for a seed harness only.
uint32_t repeat_count(const std::string& text, Harness harness) {
  if (harness == Harness::kex)
    throw InputError("--repeat: applies to a seed harness: give --harness fastc|xmm64|hahn|mem_cp (or a seed set)");
  try {
    return static_cast<uint32_t>(parse_integer(text, 1, 1000));
  } catch (const NumberError&) {
    throw InputError("--repeat: '" + text + "': expected a whole number of runs, 1..1000");
  }
}

/// A config on stdin, read to at most kMaxConfigBytes (`kex run - < /dev/zero` must end).
std::string read_stdin_config() {
  std::string text;
  char buf[1 << 16];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, size_t(std::cin.gcount()));
    if (text.size() > kMaxConfigBytes)
      throw InputError("-: the config on stdin is longer than " + std::to_string(kMaxConfigBytes >> 20) +
                       " MiB (a config is at most that); not read further");
  }
  if (std::cin.bad()) throw InputError("-: cannot read a config from stdin");
  return text;
}

/// The configs the arguments name, in order: files (- for stdin), then the kernel
/// names as one more config, then --preset; the built-in default without any.
/// The axes the command line gives the kernels named as arguments (--sizes, --cache,
/// --layout, --threads, --stream, --footprint); InputError for one given without such a
/// kernel (`no_names`), and for --footprint without --stream.
AxesOptions axes_of_names(const RunArgs& a, const CLI::App& cmd, bool no_names) {
  AxesOptions axes;
  if (!a.sizes.empty() || cmd.count("--sizes")) axes.sizes = sizes_option(a.sizes);
  if (!a.cache.empty() || cmd.count("--cache")) axes.caches = cache_option(a.cache);
  if (!a.layout.empty()) axes.layout = layout_option(a.layout);
  if (cmd.count("--threads")) axes.threads = threads_option(a.threads);
  if (cmd.count("--stream")) axes.streams = stream_option(a.stream);
  if (cmd.count("--footprint")) axes.footprints = footprint_option(a.footprint);
  if (cmd.count("--footprint") && !cmd.count("--stream"))
    throw InputError("--footprint: the bytes a stream's calls walk: give --stream NAME too");
  if (no_names)
    for (const char* opt : {"--sizes", "--cache", "--layout", "--threads", "--stream", "--footprint"})
      if (cmd.count(opt))
        throw InputError(std::string(opt) + ": applies to kernels named as arguments (e.g. kex run "
                         "copy/avx/unroll:256 memcpy " + opt + " ...)" +
                         (a.presets.empty() ? "; a config file sets its own axes"
                                            : std::string("; --preset runs presets on one page as their programs did "
                                                          "(name a preset as an argument instead: kex run "
                                                          "linux/clear_page_erms ") + opt + " ...)"));
  return axes;
}

std::vector<Config> configs_from_arguments(RunArgs& a, const CLI::App& cmd) {
  std::vector<Config> configs;
  // Each argument is a config or a kernel name (selection.hpp: is_config_argument); the
  // names become one more config, after the files.
  NamedKernels names;
  for (const std::string& l : a.loads) names.loads.push_back(parse_load_option(l, "--load"));
  check_load_names(names.loads, "--load");
  for (size_t i = 0; i < a.configs.size(); ++i) {
    const std::string& arg = a.configs[i];
    if (!is_config_argument(arg)) {
      add_kernel_name(names, arg);
      continue;
    }
    for (size_t j = 0; j < i; ++j)
      if (a.configs[j] == arg) throw InputError(arg + ": config given twice");
    configs.push_back(arg == "-" ? parse_config(read_stdin_config(), "stdin") : load_config(arg));
  }
  const AxesOptions axes = axes_of_names(a, cmd, names.empty());
  if (!names.empty()) configs.push_back(names_config(names, axes));
  if (a.presets.empty() && a.no_fsave) throw InputError("--no-fsave: applies to --preset kernels; give --preset NAME...");
  if (a.presets.empty() && a.harness != Harness::kex)
    throw InputError("--harness " + std::string(to_string(a.harness)) + ": applies to --preset kernels; give --preset NAME...");
  if (!a.repeat.empty() && a.presets.empty())
    throw InputError("--repeat: applies to --preset kernels under a seed harness; give --preset NAME...");
  if ((a.seed_exact || !a.repeat.empty()) && !cmd.count("--harness"))
    if (auto own = preset_sets_harness(a.presets)) a.harness = *own;
  if (!a.presets.empty()) {
    // libc's page copy and clear (memcpy, memset, rep movsb/stosb) at one page under kex's
    // protocol beside them, so every preset table and figure has its baselines from this run.
    Config c;
    c.presets = a.presets;
    c.harness = a.harness;
    c.axes.sizes = a.harness == Harness::mem_cp ? mem_cp_sizes() : std::vector<uint64_t>{4096};  // Asami's runtests sizes
    c.baselines = baseline_names();
    c.preset_fsave = !a.no_fsave;
    if (!a.repeat.empty()) c.repeat = repeat_count(a.repeat, a.harness);
    configs.push_back(make_config(c, "--preset"));
  }
  if (configs.empty()) {  // the built-in default sweep, and memcpy as programs call it (a stream)
    configs.push_back(load_config("built-in:default.json"));
    configs.push_back(load_config("built-in:default-stream.json"));
  }
  return configs;
}

}  // namespace

/// A fresh run from its arguments: configs, protocol, where the results and figures go.
void fresh_setup(RunArgs& a, const CLI::App& cmd, RunSetup& s) {
  if (a.resume_any_build) throw InputError("--resume-any-build: applies to --resume JOURNAL");
  s.request.configs = configs_from_arguments(a, cmd);
  s.request.protocol = make_protocol(s.request.configs, a, cmd);
  const auto with_counters =
      std::find_if(s.request.configs.begin(), s.request.configs.end(), [](const Config& c) { return c.protocol.sets("counters"); });
  if (a.counters.empty() && with_counters != s.request.configs.end()) s.counters_where = with_counters->source + ": /protocol/counters";
  s.request.format = a.format;
  s.request.filter = a.filter;
  if (!a.shard.empty()) std::tie(s.request.shard_index, s.request.shard_count) = parse_shard(a.shard);
  s.request.run_id = new_run_id();
  s.out = a.out.empty() ? s.request.configs.front().out_json : a.out;
  s.plot_dir = a.plot_dir.empty() ? s.request.configs.front().plot_dir : a.plot_dir;
  s.in_folder = s.out.empty();  // a folder of kex's own, made once the run is known to go ahead
  if (a.no_plot) s.plot_dir.clear();
  if (!s.in_folder && !a.no_report) s.report = report_beside(s.out);
  s.graph_dir = a.graph_dir.empty() ? s.request.configs.front().graph_dir : a.graph_dir;
  s.replace = s.replace_figures = a.force;
}

/// The journal header of a fresh run (it must not be written with --no-journal or -o -).
JournalHeader journal_header(const RunSetup& s) {
  JournalHeader h;
  h.kex_version = std::string(kex_version());
  h.git_commit = std::string(kex_git_commit());
  h.machine = machine_key(this_machine());
  h.request = s.request;
  h.drew_figures = !s.plot_dir.empty();
  h.wrote_report = !s.report.empty();
  h.output_name = s.out.substr(s.out.rfind('/') + 1);
  return h;
}

}  // namespace kex
