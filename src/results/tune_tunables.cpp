#include "src/results/tune_tunables.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "src/core/terminal_text.hpp"
#include "src/results/crossover.hpp"
#include "src/results/validation.hpp"

namespace kex {

namespace {

/// The path of a kernel the dispatch names: a spec name, or a baseline's.
GlibcPath path_of(const std::string& kernel) {
  try {
    const KernelSpec spec = parse_spec_name(kernel);
    return glibc_path(kernel, &spec);
  } catch (const std::invalid_argument&) {
    return glibc_path(kernel, nullptr);
  }
}

}  // namespace

std::vector<Tunable> tune_suggestions(const TuneRecord& t) {
  std::vector<double> sizes;
  std::vector<bool> nt, rep;
  for (const TuneVerdict& v : t.verdicts) {
    const GlibcPath p = path_of(v.dispatched);
    sizes.push_back(double(v.size));
    nt.push_back(p == GlibcPath::nontemporal);
    rep.push_back(p == GlibcPath::rep);
  }
  PathWins w;
  const std::vector<SizeRange> nts = runs_of(sizes, nt);
  // Up to the largest size; glibc 2.36's memset has no non-temporal path (the threshold is memcpy's).
  if (t.op == Op::copy && !nts.empty() && !nts.back().above) w.nt = nts.back();
  (t.op == Op::copy ? w.rep_movsb : w.rep_stosb) = runs_of(sizes, rep);
  return suggested(w);
}

TuneValidation validate_suggestions(const std::vector<Tunable>& tunables, const TuneValidateOptions& o) {
  TuneValidation out;
  out.rounds = o.run.rounds;
  out.budget_ms = o.budget_ms;
  out.margin = o.margin;
  out.not_measured = o.skip;
  const auto t0 = std::chrono::steady_clock::now();
  auto spent = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto stopped = [&] { return o.run.stop && *o.run.stop; };
  for (size_t i = 0; i < tunables.size(); ++i)
    for (std::optional<Tunable> t = tunables[i]; t;) {  // a suggestion, then its refinement if any
      TunableCheck c{*t, {}};
      c.measured.tunables = tunables_string({*t});
      if (out.not_measured.empty() && stopped()) out.not_measured = "stopped";
      if (out.not_measured.empty()) {
        ValidateOptions run = o.run;
        run.seconds = std::max(1e-3, (o.seconds - spent()) / double(tunables.size() - i));  // 3 rounds at least
        try {
          c.measured = validate_tunables(validation_job(*t, o.budget_ms), c.measured.tunables, run);
        } catch (const std::runtime_error& e) {  // the race stays: the failure is recorded, not thrown
          out.not_measured = terminal_text(e.what());
        }
        if (stopped()) out.not_measured = "stopped";
      }
      t = out.not_measured.empty() ? refined_tunable(*t, c.measured, o.margin) : std::nullopt;
      out.checks.push_back(std::move(c));
    }
  out.seconds = spent();
  return out;
}

}  // namespace kex
