// `kex libc-child` (hidden): the child process of `kex crossovers --validate`. It
// times libc's memcpy or memset at the sizes given and prints the protocol of
// src/run/libc_child.hpp on stdout; it is started fresh so that GLIBC_TUNABLES,
// which glibc reads only at start-up, takes effect.
#include "src/cli/cli.hpp"
#include "src/core/enum_words.hpp"
#include "src/core/output.hpp"
#include "src/model/point.hpp"
#include "src/model/spec.hpp"
#include "src/run/libc_child.hpp"

namespace kex {

Action add_libc_child_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("libc-child", "Child of kex crossovers --validate: time libc memcpy/memset");
  cmd->group("");  // hidden from --help: not for users
  struct Args {
    std::string op = "copy";
    unsigned fill = 0;
    std::vector<uint64_t> sizes;
    double budget_ms = 20;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--op", a->op, "copy (memcpy) or clear (memset)")->check(one_of(enum_words(kLibcOps)));
  cmd->add_option("--fill", a->fill, "memset's byte")->check(CLI::Range(0u, 255u));
  cmd->add_option("--sizes", a->sizes, "Sizes in bytes, comma-separated, in the order measured")
      ->required()
      ->delimiter(',')
      ->check(CLI::Range(uint64_t(1), kMaxLibcChildSize));
  cmd->add_option("--budget-ms", a->budget_ms, "Sampling time per size in ms")->check(number_in(0.001, 10000.0));
  return [a]() {
    LibcJob job;
    job.op = *parse_op(a->op);
    job.fill = uint8_t(a->fill);
    job.sizes = a->sizes;
    job.budget_ms = a->budget_ms;
    write_stdout(format_libc_report(run_libc_job(job)));
    return 0;
  };
}

}  // namespace kex
