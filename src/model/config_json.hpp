// A config from typed fields: the one writer of config JSON. kex's own configs (the
// kernels named on a command line, kex tune's stages and space, kex explain's
// neighbours, the ceilings probe, --preset) are typed Configs checked by the reader's
// checks on the typed record (check_config), so they pass every check a user's config
// passes, and written here, so the results store them as JSON like any other.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/config.hpp"

namespace kex {

/// A config's JSON in the canonical form: the top level's axes where they differ from
/// Axes{} (each a list), one kernel grid per spec carrying the axes where its grid's
/// differ from the top level's, the presets and their harness, the baselines (a list,
/// or false for none), loads, policy (where it differs from Policy{}), protocol knobs,
/// segments and outputs. parse_config of it reads back the same fields.
nlohmann::json config_json(const Config& c);

/// The config as its file wrote it (`raw`), as the results' context.configs keep it.
nlohmann::ordered_json config_as_written(const Config& c);

/// A Config kex makes itself from the typed fields of `draft` (its `raw` and `source`
/// ignored): `draft` under `source`, one grid per spec (as a reader gives its JSON back),
/// `raw` its config_json, checked by check_config (src/model/config.hpp) on the typed
/// values, never written to text and read back. Throws InputError as for a file (buffers
/// too large for this machine, nothing to run); std::logic_error for axes no reader gives
/// back (sizes out of order, a value twice: a bug in the caller).
Config make_config(const Config& draft, const std::string& source);

/// A grid of the one kernel `spec` at `axes` (a config kex makes names each kernel once).
Grid spec_grid_of(const KernelSpec& spec, const Axes& axes);

}  // namespace kex
