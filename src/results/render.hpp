// Rendering one figure: gnuplot runs on a `.gp` script into a temporary file that
// is checked and then moved into place, so a failed render (a full disk, a file
// size limit, a gnuplot error) never leaves an empty or truncated image.
#pragma once
#include <string>

namespace kex {

/// The images gnuplot draws a figure as (its `fmt` variable, and the file's extension).
enum class ImageFormat { png, svg };
/// "png", "svg".
inline const char* to_string(ImageFormat f) { return f == ImageFormat::png ? "png" : "svg"; }

/// The path of `gnuplot` in the first absolute PATH entry holding one, else "" (empty
/// and relative entries are skipped: gnuplot runs in the figure folder).
std::string find_gnuplot();

/// Runs `gnuplot` (an executable path) in `dir` on the script `gp` (a file name in
/// `dir`) with the variables fmt=`fmt` and out=<a temporary in
/// `dir`>, checks the result and moves it to `dir`/`out_name` (install_file: no
/// replacing without `force`). Returns gnuplot's warnings (its stderr, "" when
/// quiet). Throws InputError "DIR/OUT_NAME: gnuplot failed: <why, on one line>"
/// when gnuplot exits non-zero or by a signal, prints an error ("cannot ...",
/// "... error ..."), or leaves an output that is missing, empty or not a complete
/// PNG/SVG (no IEND chunk, no closing </svg>); the temporary is then removed and
/// nothing changes in `dir`.
std::string render_figure(const std::string& gnuplot, const std::string& dir, const std::string& gp,
                          ImageFormat fmt, const std::string& out_name, bool force);

/// Whether `bytes` is a complete image of format `fmt`: a PNG with its signature
/// and a final IEND chunk, an SVG ending in </svg>.
bool image_complete(const std::string& bytes, ImageFormat fmt);

}  // namespace kex
