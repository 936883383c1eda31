// Output files: never overwrite without --force, always written atomically, and
// a write that fails leaves neither a partial file nor a temporary behind.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kex {

/// Writes `text` to `path` through a temporary file in the same directory, then
/// moves it into place: readers never see a partial file. Without `force` the move
/// refuses atomically when `path` exists, even when another process created it
/// after the checks (install_file). Throws InputError (one line: path and reason)
/// for everything check_output_path refuses, when `path` appears meanwhile (after
/// an earlier check_output_path of this process found it free, or during the
/// write: the new text is then kept as PATH.N and the line names it, so a run's
/// results are not lost to another run's file), or on any I/O error (a
/// full disk, a file size limit): the existing file is then untouched and no
/// temporary is left. Creates no directories.
void write_file_atomic(const std::string& path, const std::string& text, bool force);

/// InputError naming `option`, `out` and the input when the output path `out` is the
/// same file (device and inode, so through another name or a link too) as one of
/// `inputs`: replacing it, even with --force, would destroy what the command reads.
/// An `out` that does not exist yet, "-" (standard output) and inputs that cannot be
/// stat'ed pass.
void check_not_an_input(const std::string& option, const std::string& out, const std::vector<std::string>& inputs);

/// The checks write_file_atomic makes, without writing: InputError when `path` is
/// empty or names a directory; exists and !force; exists and is not a regular file
/// (a device, a directory, a symlink: never replaced, even with force); its name
/// is longer than the file system allows (NAME_MAX, usually 255 bytes); or its
/// directory is missing or a temporary cannot be created in it (probed by creating
/// and removing one). Also removes stale temporaries there (remove_stale_temps),
/// and remembers a free `path` (without force) so that write_file_atomic knows a
/// file there later was made by someone else. Call it before long work so a bad
/// path fails first. `reserve` > 0: the probe also allocates that many bytes
/// (posix_fallocate), so a full disk, quota or file-size limit fails now, not after the
/// work ("PATH: no room for 12.0 MiB of output (REASON); nothing was done").
void check_output_path(const std::string& path, bool force, uint64_t reserve = 0);

/// A temporary file created (mode 0600) in an existing directory: `path` is
/// "DIR/.kex-PID-HOST-XXXXXX" (PID the creating process, HOST 8 hex digits of a
/// hash of the host name), `fd` is open for writing. The caller closes and either
/// installs or unlinks it.
struct TempFile {
  std::string path;
  int fd = -1;
};

/// Creates a TempFile in `dir` (after remove_stale_temps(dir)); `for_path` names
/// the output in errors. Throws InputError with the reason (e.g. a read-only file
/// system, a missing directory).
TempFile make_temp_file(const std::string& dir, const std::string& for_path);

/// Moves the finished temporary `tmp` to `path` in the same directory. Without
/// `force`: atomically refuses when `path` exists (renameat2 RENAME_NOREPLACE; on a
/// file system without it, link + unlink; without hard links either, a check then
/// rename), keeping `tmp`'s content as PATH.N (the first free N < 100) and naming
/// it in the error. With `force`: replaces a regular file, never anything else. On
/// failure `tmp` is gone (moved aside or removed) and InputError is thrown; on
/// success the directory is synced.
void install_file(const std::string& tmp, const std::string& path, bool force);

/// Removes the temporaries (make_temp_file names) in `dir` whose owner process
/// is no longer alive on this host: a kill during a write leaves one behind.
/// Temporaries of live processes and of other hosts (a shared file system) are
/// kept. Returns how many were removed; errors are ignored (nothing to report).
size_t remove_stale_temps(const std::string& dir);

/// The directory part of `path` ("." when it has none, "/" for "/x").
std::string parent_dir(const std::string& path);

}  // namespace kex
