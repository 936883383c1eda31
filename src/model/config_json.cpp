#include "src/model/config_json.hpp"

#include <stdexcept>

#include "src/model/config_fields.hpp"
#include "src/model/json_fields.hpp"

namespace kex {

using nlohmann::json;

json config_json(const Config& c) {
  json out;
  FieldWriter w(out);
  config_fields::map_config(w, c);
  return out;
}

Config make_config(const Config& draft, const std::string& source) {
  const json written = config_json(draft);
  Config c = parse_config(written.dump(), source);
  if (config_json(c) != written)
    throw std::logic_error(source + ": a config kex made reads back as another: " + config_json(c).dump().substr(0, 200));
  c.filter = draft.filter;
  return c;
}

Grid spec_grid_of(const KernelSpec& spec, const Axes& axes) {
  Grid g;
  g.specs = {spec};
  g.axes = axes;
  return g;
}

nlohmann::ordered_json config_as_written(const Config& c) { return nlohmann::ordered_json(c.raw); }

}  // namespace kex
