// tests/ptyhost/utf8_test.cpp: is_valid_utf8 agrees with decode_utf8's
// table (a string is valid when no character decodes as an ill-formed
// U+FFFD) on every string of up to three bytes, every four-byte character
// shape, and seeded random strings placed at every alignment of the
// eight-byte ASCII skip.
#include "ptyhost/utf8.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

bool valid_by_decoding(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    if (decode_utf8(s, i) == kReplacementChar && s.substr(start, i - start) != "\xEF\xBF\xBD")
      return false;
  }
  return true;
}

std::string bytes(std::initializer_list<unsigned> list) {
  std::string s;
  for (unsigned b : list) s += static_cast<char>(b);
  return s;
}

TEST(Utf8, EveryStringOfUpToThreeBytesAgreesWithTheDecoder) {
  std::size_t mismatches = 0;
  std::string s;
  for (unsigned a = 0; a < 256; ++a) {
    s = bytes({a});
    mismatches += is_valid_utf8(s) != valid_by_decoding(s);
    for (unsigned b = 0; b < 256; ++b) {
      s = bytes({a, b});
      mismatches += is_valid_utf8(s) != valid_by_decoding(s);
      // Leads below 0xC2 are ASCII or invalid whatever follows; the third
      // byte matters after a lead of two or more bytes.
      if (a < 0xC2) continue;
      for (unsigned c = 0; c < 256; ++c) {
        s = bytes({a, b, c});
        mismatches += is_valid_utf8(s) != valid_by_decoding(s);
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Utf8, FourByteCharactersAgreeWithTheDecoderAtEveryBoundary) {
  // Every lead from 0xF0, every second byte, third and fourth from the
  // bytes either side of each continuation boundary.
  const unsigned edges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xF4, 0xFF};
  std::size_t mismatches = 0;
  std::size_t valid = 0;
  for (unsigned a = 0xF0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned c : edges)
        for (unsigned d : edges) {
          const std::string s = bytes({a, b, c, d});
          const bool expected = valid_by_decoding(s);
          valid += expected;
          mismatches += is_valid_utf8(s) != expected;
        }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(valid, 0u);  // the shapes include well-formed characters
}

TEST(Utf8, SeededStringsAgreeWithTheDecoderAtEveryAlignment) {
  std::mt19937 rng(20261204);
  const std::string pieces[] = {"a", "ok ", "\xC3\xA9", "\xE4\xB8\x96", "\xF0\x9F\x98\x80",
                                "\xEF\xBF\xBD", "\xED\xA0\x80", "\xC0\xAF", "\xE0\x80\xAF",
                                "\xF4\x90\x80\x80", "\x80", "\xFF", "\xE2\x94"};
  std::size_t mismatches = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 9, 'x');  // moves the pieces across the 8-byte ASCII skip
    const int count = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < count; ++k) {
      s += pieces[rng() % std::size(pieces)];
      s.append(rng() % 10, 'y');
    }
    mismatches += is_valid_utf8(s) != valid_by_decoding(s);
    // Cut anywhere: a character cut short is ill-formed.
    const std::string cut = s.substr(0, rng() % (s.size() + 1));
    mismatches += is_valid_utf8(cut) != valid_by_decoding(cut);
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Utf8, KnownStrings) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii text, longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x98\x80"));
  EXPECT_TRUE(is_valid_utf8("\xEF\xBF\xBD"));           // U+FFFD itself
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));          // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));              // overlong
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));      // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("abcdefgh\xE4\xB8"));      // cut short after the ASCII skip
  EXPECT_FALSE(is_valid_utf8("\xE4\xB8" "abcdefgh"));   // cut short before it
}

// The word-at-a-time scans against byte-at-a-time ones: every byte value
// at every position of a 19-byte string (so in each of the three eight-byte
// steps and the tail), from every start, and seeded strings of the bytes
// that matter (C0 controls, DEL, ASCII, 0x80 and above).
std::size_t ascii_run_end_bytewise(std::string_view s, std::size_t from) {
  while (from < s.size() && static_cast<unsigned char>(s[from]) < 0x80) ++from;
  return from;
}
std::size_t control_or_end_bytewise(std::string_view s, std::size_t from, bool& high) {
  for (; from < s.size(); ++from) {
    const auto b = static_cast<unsigned char>(s[from]);
    if (b < 0x20 || b == 0x7F) break;
    high = high || b >= 0x80;
  }
  return from;
}
void expect_scans_agree(std::string_view s) {
  for (std::size_t from = 0; from <= s.size(); ++from) {
    ASSERT_EQ(ascii_run_end(s, from), ascii_run_end_bytewise(s, from)) << from;
    for (bool start_high : {false, true}) {
      bool high = start_high;
      bool want_high = start_high;
      ASSERT_EQ(control_or_end(s, from, high), control_or_end_bytewise(s, from, want_high)) << from;
      ASSERT_EQ(high, want_high) << from;
    }
  }
}

TEST(ByteScans, AgreeWithByteByByteScansForEveryByteAtEveryPosition) {
  const std::string base = "text with no ctl!!";  // 18 printable bytes
  for (std::size_t at = 0; at <= base.size(); ++at) {
    for (int b = 0; b < 256; ++b) {
      std::string s = base;
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(b));
      expect_scans_agree(s);
      if (::testing::Test::HasFatalFailure()) FAIL() << "byte " << b << " at " << at;
    }
  }
}

TEST(ByteScans, AgreeWithByteByByteScansOnSeededStrings) {
  const char kinds[] = {'\0', '\x1b', '\n', '\x1f', '\x20', '\x7e', '\x7f', '\x80', '\xc3', '\xff', 'a'};
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 40, 'x');
    for (char& c : s)
      if (rng() % 6 == 0) c = kinds[rng() % sizeof kinds];
    expect_scans_agree(s);
    if (::testing::Test::HasFatalFailure()) FAIL() << "round " << round;
  }
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::ptyhost
