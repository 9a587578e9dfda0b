// tests/packaging/elf_file.hpp: reads what the hardening test asks of an
// ELF64 file: its type, program headers, dynamic tags, the symbols it
// defines or needs, and its x86 feature property (CET).
// Runs in: tests only. Never: trusts an offset without checking it lies
// inside the file (a bad file is an error, not a crash).
#pragma once

#include <elf.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace signaltty::testing {

class ElfFile {
 public:
  // nullopt (with `error` set) when `path` is not a readable ELF64 file.
  static std::optional<ElfFile> load(const std::string& path, std::string& error);

  std::uint16_t type() const { return header().e_type; }
  bool has_segment(std::uint32_t type) const;
  // The flags of the first segment of `type`; nullopt when there is none.
  std::optional<std::uint32_t> segment_flags(std::uint32_t type) const;
  // The value of a dynamic tag; nullopt when absent (or no dynamic section).
  std::optional<std::uint64_t> dynamic_tag(std::int64_t tag) const;
  // Names of undefined symbols in .dynsym (what the program imports).
  std::set<std::string> imported_symbols() const;
  // Names of undefined symbols in .symtab (what an object file needs).
  std::set<std::string> needed_symbols() const;
  // GNU_PROPERTY_X86_FEATURE_1_AND from .note.gnu.property; nullopt when
  // the file carries none.
  std::optional<std::uint32_t> x86_features() const;

 private:
  explicit ElfFile(std::string bytes) : bytes_(std::move(bytes)) {}
  const Elf64_Ehdr& header() const;
  std::vector<Elf64_Phdr> segments() const;
  std::vector<Elf64_Shdr> sections() const;
  std::optional<Elf64_Shdr> section_named(const std::string& name) const;
  std::set<std::string> undefined_symbols(std::uint32_t symtab_type) const;
  bool in_file(std::uint64_t offset, std::uint64_t size) const;
  template <class T>
  T read_at(std::uint64_t offset) const;

  std::string bytes_;
};

}  // namespace signaltty::testing
