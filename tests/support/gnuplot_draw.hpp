// Drawing one figure in a test: its .dat and .gp written to a folder, gnuplot run there for SVG.
#pragma once
#include <cstdlib>
#include <string>

#include "src/core/atomic_write.hpp"
#include "src/results/plot.hpp"
#include "tests/support/tmpdir.hpp"

/// The SVG gnuplot draws of `f` in `dir` (its files written there; none may exist), or
/// "gnuplot: <its stderr>" when it fails or warns.
inline std::string drawn_svg(const std::string& dir, const kex::PlotFigure& f) {
  kex::write_file_atomic(dir + "/" + f.base + ".dat", f.dat, false);
  kex::write_file_atomic(dir + "/" + f.base + ".gp", f.gp, false);
  const int status = std::system(("cd " + dir + " && gnuplot -e 'fmt=\"svg\"' " + f.base + ".gp 2>err").c_str());
  const std::string err = slurp(dir + "/err");
  if (status != 0 || !err.empty()) return "gnuplot: " + err;
  return slurp(dir + "/" + f.base + ".svg");
}
