// Validating JSON files against a schema of configs/schema/ with python3-jsonschema
// (Draft 2020-12), many files in one python3 process: starting python3 and importing
// jsonschema costs about 0.7 s of CPU, the validation of one file a few milliseconds.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/shell.hpp"

/// One verdict per file of `files`, in order: "valid", or "invalid: " and the error
/// jsonschema.validate would raise (its best match), on one line. The schema is checked
/// first, as jsonschema.validate does. When python3 fails (jsonschema missing, a file
/// unreadable), every verdict is its whole output, so a check on it fails with the reason.
inline std::vector<std::string> schema_verdicts(const std::vector<std::string>& files, const std::string& schema) {
  std::string cmd =
      "python3 -c \"import json,sys,jsonschema as j; V=j.Draft202012Validator; s=json.load(open(sys.argv[1])); "
      "V.check_schema(s); v=V(s); "
      "[print('valid' if e is None else 'invalid: '+e.message.replace(chr(10),' ')) "
      "for e in (j.exceptions.best_match(v.iter_errors(json.load(open(f)))) for f in sys.argv[2:])]\" " +
      schema;
  for (const std::string& f : files) cmd += " " + f;
  const ShellOut out = shell(cmd);
  std::vector<std::string> verdicts;
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) verdicts.push_back(line);
  if (out.status != 0 || verdicts.size() != files.size()) return std::vector<std::string>(files.size(), out.text);
  return verdicts;
}
