// tests/packaging/elf_hardening_test.cpp: every executable in build/bin
// carries the hardening the top-level CMakeLists.txt asks for, read back
// from its ELF headers rather than trusted from the flags:
//   - a position-independent executable (ET_DYN with DF_1_PIE), the static
//     signaltty-ptyhost included (-static-pie);
//   - full RELRO: a PT_GNU_RELRO segment and BIND_NOW (DT_FLAGS or
//     DT_FLAGS_1), so the GOT is read-only once the program runs;
//   - a PT_GNU_STACK segment without PF_X, and no text relocations.
// What the linked file cannot prove is checked on the programs' own object
// files (the list CMake built them from):
//   - -fstack-protector-strong: their objects call __stack_chk_fail (in a
//     static binary libc defines it, so its presence there proves nothing);
//     a dynamic program must also import it;
//   - _FORTIFY_SOURCE (optimised, non-sanitizer builds): their objects call
//     at least one checked __*_chk function; a dynamic program imports one;
//   - -fcf-protection: every object is marked IBT and SHSTK. The linked
//     programs are not required to be: the linker keeps the marking only if
//     every input has it, and Debian 12's C start files (crt1.o, crti.o)
//     carry none.
// Runs in: tests only (ctest label `packaging`).
#include <dirent.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "tests/packaging/elf_file.hpp"

namespace signaltty::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

const std::vector<std::string> kPrograms = {"signaltty", "signaltty-broker", "signaltty-ptyhost",
                                            "signaltty-hookrelay"};
constexpr std::string_view kStackGuardFailure = "__stack_chk_fail";
constexpr std::string_view kFortifiedSuffix = "_chk";

#if defined(SIGNALTTY_EXPECT_FORTIFY) && SIGNALTTY_EXPECT_FORTIFY
constexpr bool kExpectFortify = true;
#else
constexpr bool kExpectFortify = false;
#endif

std::string bin_dir() { return SIGNALTTY_BIN_DIR; }

std::vector<std::string> executables_in(const std::string& dir) {
  std::vector<std::string> out;
  std::unique_ptr<DIR, int (*)(DIR*)> listing(::opendir(dir.c_str()), ::closedir);
  if (!listing) return out;
  while (const dirent* entry = ::readdir(listing.get())) {
    const std::string path = dir + "/" + entry->d_name;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR))
      out.push_back(path);
  }
  return out;
}

ElfFile load_or_fail(const std::string& path) {
  std::string error;
  auto file = ElfFile::load(path, error);
  if (!file) throw std::runtime_error(error);
  return *file;
}

// program name → the object files CMake linked it from.
std::map<std::string, std::vector<std::string>> program_objects() {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(SIGNALTTY_PROGRAM_OBJECTS);
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    if (space == std::string::npos || !line.ends_with(".o")) continue;  // not .gch
    out[line.substr(0, space)].push_back(line.substr(space + 1));
  }
  return out;
}

bool calls_fortified_function(const std::set<std::string>& symbols) {
  for (const auto& name : symbols)
    if (name.starts_with("__") && name.ends_with(kFortifiedSuffix) &&
        name != kStackGuardFailure)
      return true;
  return false;
}

TEST(ElfHardening, EveryProgramIsBuilt) {
  for (const auto& program : kPrograms) {
    struct stat st {};
    EXPECT_EQ(::stat((bin_dir() + "/" + program).c_str(), &st), 0) << program;
  }
}

TEST(ElfHardening, EveryExecutableIsAPositionIndependentExecutable) {
  for (const auto& path : executables_in(bin_dir())) {
    const ElfFile elf = load_or_fail(path);
    EXPECT_EQ(elf.type(), ET_DYN) << path;
    EXPECT_TRUE(elf.dynamic_tag(DT_FLAGS_1).value_or(0) & DF_1_PIE) << path;
  }
}

TEST(ElfHardening, EveryExecutableHasFullRelro) {
  for (const auto& path : executables_in(bin_dir())) {
    const ElfFile elf = load_or_fail(path);
    EXPECT_TRUE(elf.has_segment(PT_GNU_RELRO)) << path;
    const bool bind_now = (elf.dynamic_tag(DT_FLAGS).value_or(0) & DF_BIND_NOW) ||
                          (elf.dynamic_tag(DT_FLAGS_1).value_or(0) & DF_1_NOW);
    EXPECT_TRUE(bind_now) << path;
    EXPECT_FALSE(elf.dynamic_tag(DT_TEXTREL).has_value()) << path;
  }
}

// The hardening flags must not undo the static links: the ptyhost (one
// runs per pane; a dynamic one costs about 2 MiB more resident) and the
// hook relay (every agent hook starts one).
TEST(ElfHardening, ThePtyhostAndTheRelayStayStaticPiesWhenBuiltStatic) {
  if (!SIGNALTTY_EXPECT_STATIC_PTYHOST) GTEST_SKIP() << "built with SIGNALTTY_STATIC_PTYHOST=OFF";
  for (const char* program : {"signaltty-ptyhost", "signaltty-hookrelay"}) {
    const ElfFile elf = load_or_fail(bin_dir() + "/" + program);
    EXPECT_FALSE(elf.has_segment(PT_INTERP)) << program << " is linked dynamically";
    EXPECT_EQ(elf.type(), ET_DYN) << program;
  }
}

TEST(ElfHardening, NoExecutableHasAnExecutableStack) {
  for (const auto& path : executables_in(bin_dir())) {
    const ElfFile elf = load_or_fail(path);
    const auto stack = elf.segment_flags(PT_GNU_STACK);
    ASSERT_TRUE(stack.has_value()) << path << " has no PT_GNU_STACK (the stack would be executable)";
    EXPECT_FALSE(*stack & PF_X) << path;
  }
}

TEST(ElfHardening, TheDynamicProgramsImportTheStackGuardAndFortifiedCalls) {
  for (const auto& program : kPrograms) {
    const ElfFile elf = load_or_fail(bin_dir() + "/" + program);
    if (!elf.has_segment(PT_INTERP)) continue;  // static: see the objects test
    const auto imports = elf.imported_symbols();
    EXPECT_TRUE(imports.contains(std::string(kStackGuardFailure))) << program;
    if (kExpectFortify) {
      EXPECT_TRUE(calls_fortified_function(imports)) << program;
    }
  }
}

TEST(ElfHardening, TheProgramsObjectsUseCanariesFortifyAndCet) {
  const auto objects = program_objects();
  for (const auto& program : kPrograms) {
    const auto it = objects.find(program);
    ASSERT_NE(it, objects.end()) << "no object list for " << program;
    std::set<std::string> needed;
    for (const auto& path : it->second) {
      const ElfFile object = load_or_fail(path);
      const auto more = object.needed_symbols();
      needed.insert(more.begin(), more.end());
      const std::uint32_t cet = GNU_PROPERTY_X86_FEATURE_1_IBT | GNU_PROPERTY_X86_FEATURE_1_SHSTK;
      EXPECT_EQ(object.x86_features().value_or(0) & cet, cet) << path << " lacks IBT/SHSTK";
    }
    EXPECT_TRUE(needed.contains(std::string(kStackGuardFailure))) << program;
    if (kExpectFortify) {
      EXPECT_TRUE(calls_fortified_function(needed)) << program;
    }
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::testing
