// A whole record through its field table (src/model/json_fields.hpp): the JSON of a
// record, and a record read back. For the model's readers and writers.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "src/model/json_fields.hpp"

namespace kex {

/// `r` written by its field table `map`: an ordered_json keeps the table's order, a
/// nlohmann::json sorts the keys.
template <class Json = nlohmann::ordered_json, class R, class Map>
Json record_json(const R& r, Map map) {
  Json j;
  BasicFieldWriter<Json> w(j);
  map(w, r);
  return j;
}

/// A record read from `j` (found at `where`) by its field table `map` under `keys`, over
/// `r`'s values (what a tolerant reader keeps for a field the JSON lacks). InputError
/// naming the field, as FieldReader says.
template <class R, class Map>
R record_from(const nlohmann::json& j, const std::string& where, Keys keys, Map map, R r = R{}) {
  FieldReader in(j, where, keys);
  map(in, r);
  in.finish();
  return r;
}

}  // namespace kex
