// libFuzzer target: an object file or an archive (any bytes) through the object-code
// loader's ELF reader and layout (src/run/object_elf.hpp, object_link.hpp), as `--load`
// reads a .o or lib.a(member) (tests/fuzz/run.sh). A refusal is an InputError; any other
// exception, a crash, a hang or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "src/core/error.hpp"
#include "src/run/object_elf.hpp"
#include "src/run/object_link.hpp"

namespace {

/// Lays out the first function or label `o` defines (the symbol a user would name).
void link_first_symbol(kex::ElfObject o, const kex::ObjectArchive* archive) {
  std::string name;
  for (const auto& s : o.symbols)
    if (!s.name.empty() && s.section != 0) {
      name = s.name;
      break;
    }
  if (!name.empty()) (void)kex::link_object_symbol(std::move(o), name, archive);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    if (bytes.rfind("!<arch>\n", 0) == 0) {
      kex::ObjectArchive archive("fuzz.a", bytes);
      for (const char* symbol : {"f", "memmove", "memcpy"})
        if (auto member = archive.definer(symbol)) link_first_symbol(archive.member(*member), &archive);
      link_first_symbol(archive.member("a.o"), &archive);
    } else {
      link_first_symbol(kex::read_elf_object("fuzz.o", "fuzz.o", bytes), nullptr);
    }
  } catch (const kex::InputError&) {
  }
  return 0;
}
