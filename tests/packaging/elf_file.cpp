// tests/packaging/elf_file.cpp: a bounds-checked ELF64 reader for the
// hardening test. Runs in: tests only.
#include "tests/packaging/elf_file.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace signaltty::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

// Notes are padded to 4 bytes, x86-64 property entries to 8.
constexpr std::uint64_t kNoteAlign = 4;
constexpr std::uint64_t kPropertyAlign = 8;

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace

std::optional<ElfFile> ElfFile::load(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return std::nullopt;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  ElfFile file(bytes.str());
  if (file.bytes_.size() < sizeof(Elf64_Ehdr) ||
      std::memcmp(file.bytes_.data(), ELFMAG, SELFMAG) != 0 ||
      file.bytes_[EI_CLASS] != ELFCLASS64) {
    error = path + " is not an ELF64 file";
    return std::nullopt;
  }
  return file;
}

bool ElfFile::in_file(std::uint64_t offset, std::uint64_t size) const {
  return offset <= bytes_.size() && size <= bytes_.size() - offset;
}

template <class T>
T ElfFile::read_at(std::uint64_t offset) const {
  T value{};
  if (in_file(offset, sizeof(T))) std::memcpy(&value, bytes_.data() + offset, sizeof(T));
  return value;
}

const Elf64_Ehdr& ElfFile::header() const {
  return *reinterpret_cast<const Elf64_Ehdr*>(bytes_.data());
}

std::vector<Elf64_Phdr> ElfFile::segments() const {
  std::vector<Elf64_Phdr> out;
  for (std::uint16_t i = 0; i < header().e_phnum; ++i)
    out.push_back(read_at<Elf64_Phdr>(header().e_phoff + i * std::uint64_t{header().e_phentsize}));
  return out;
}

std::vector<Elf64_Shdr> ElfFile::sections() const {
  std::vector<Elf64_Shdr> out;
  for (std::uint16_t i = 0; i < header().e_shnum; ++i)
    out.push_back(read_at<Elf64_Shdr>(header().e_shoff + i * std::uint64_t{header().e_shentsize}));
  return out;
}

std::optional<Elf64_Shdr> ElfFile::section_named(const std::string& name) const {
  const auto all = sections();
  if (header().e_shstrndx >= all.size()) return std::nullopt;
  const Elf64_Shdr& names = all[header().e_shstrndx];
  for (const auto& section : all) {
    const std::uint64_t at = names.sh_offset + section.sh_name;
    if (!in_file(at, name.size() + 1)) continue;
    if (bytes_.compare(at, name.size() + 1, name.c_str(), name.size() + 1) == 0) return section;
  }
  return std::nullopt;
}

bool ElfFile::has_segment(std::uint32_t type) const { return segment_flags(type).has_value(); }

std::optional<std::uint32_t> ElfFile::segment_flags(std::uint32_t type) const {
  for (const auto& segment : segments())
    if (segment.p_type == type) return segment.p_flags;
  return std::nullopt;
}

std::optional<std::uint64_t> ElfFile::dynamic_tag(std::int64_t tag) const {
  for (const auto& segment : segments()) {
    if (segment.p_type != PT_DYNAMIC) continue;
    for (std::uint64_t at = segment.p_offset; at + sizeof(Elf64_Dyn) <= segment.p_offset + segment.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      const auto entry = read_at<Elf64_Dyn>(at);
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag == tag) return entry.d_un.d_val;
    }
  }
  return std::nullopt;
}

std::set<std::string> ElfFile::undefined_symbols(std::uint32_t symtab_type) const {
  std::set<std::string> out;
  const auto all = sections();
  for (const auto& table : all) {
    if (table.sh_type != symtab_type || table.sh_link >= all.size() || table.sh_entsize == 0) continue;
    const Elf64_Shdr& strings = all[table.sh_link];
    for (std::uint64_t at = table.sh_offset; at + sizeof(Elf64_Sym) <= table.sh_offset + table.sh_size;
         at += table.sh_entsize) {
      const auto symbol = read_at<Elf64_Sym>(at);
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name == 0) continue;
      const std::uint64_t name_at = strings.sh_offset + symbol.st_name;
      if (!in_file(name_at, 1)) continue;
      out.insert(std::string(bytes_.c_str() + name_at,
                             ::strnlen(bytes_.c_str() + name_at, bytes_.size() - name_at)));
    }
  }
  return out;
}

std::set<std::string> ElfFile::imported_symbols() const { return undefined_symbols(SHT_DYNSYM); }
std::set<std::string> ElfFile::needed_symbols() const { return undefined_symbols(SHT_SYMTAB); }

std::optional<std::uint32_t> ElfFile::x86_features() const {
  const auto note = section_named(".note.gnu.property");
  if (!note) return std::nullopt;
  std::uint64_t at = note->sh_offset;
  const std::uint64_t end = note->sh_offset + note->sh_size;
  while (at + sizeof(Elf64_Nhdr) <= end) {
    const auto header = read_at<Elf64_Nhdr>(at);
    const std::uint64_t desc = at + sizeof(Elf64_Nhdr) + align_up(header.n_namesz, kNoteAlign);
    const std::uint64_t desc_end = desc + header.n_descsz;
    if (header.n_type == NT_GNU_PROPERTY_TYPE_0) {
      for (std::uint64_t p = desc; p + 2 * sizeof(std::uint32_t) <= desc_end;) {
        const auto pr_type = read_at<std::uint32_t>(p);
        const auto pr_size = read_at<std::uint32_t>(p + sizeof(std::uint32_t));
        const std::uint64_t data = p + 2 * sizeof(std::uint32_t);
        if (pr_type == GNU_PROPERTY_X86_FEATURE_1_AND) return read_at<std::uint32_t>(data);
        p = data + align_up(pr_size, kPropertyAlign);
      }
    }
    at = desc + align_up(header.n_descsz, kPropertyAlign);
  }
  return std::nullopt;
}

}  // namespace signaltty::testing
