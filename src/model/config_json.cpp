#include "src/model/config_json.hpp"


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
  Config c = draft;
  c.source = source;
  c.raw = config_json(draft);  // what the results and a journal keep of it
  c.grids.clear();  // one grid per spec, as the JSON lists them and a reader gives them back
  for (const Grid& g : draft.grids)
    for (const KernelSpec& s : g.specs) c.grids.push_back(spec_grid_of(s, g.axes));
  check_config(c);
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
