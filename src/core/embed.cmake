# Turns each input file into a raw string literal in one generated C++ file:
#   const char* kex::embedded_file(std::string_view name)  ->  contents or nullptr
set(body "#include <string_view>\nnamespace kex {\nstruct EmbeddedFile { const char* name; const char* text; };\nstatic const EmbeddedFile kFiles[] = {\n")
string(REPLACE "|" ";" INPUTS "${INPUTS}")
foreach(f ${INPUTS})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND body "  {\"${name}\", R\"kexembed(${text})kexembed\"},\n")
endforeach()
string(APPEND body "};\nconst char* embedded_file(std::string_view name) {\n  for (const auto& f : kFiles) if (name == f.name) return f.text;\n  return nullptr;\n}\n}  // namespace kex\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
