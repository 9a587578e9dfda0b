// ptyhost/text_modes.hpp: TextModes, the modes libvterm 0.1.4 keeps but
// cannot report without side effects (see vt_modes.hpp): character sets
// (G0..G3, the GL shift, a pending single shift), insert mode (IRM), origin
// mode (DECOM), autowrap (DECAWM), left/right margin mode (DECLRMM) and
// DECSCA protection.
// Runs in: ptyhost, shown every piece VtGuard hands to libvterm, in order.
// Never: changes what libvterm does; it only watches, so that Terminal knows
// when printable ASCII may skip libvterm's text path, and so that a snapshot
// can restore these modes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ptyhost/byte_codec.hpp"

namespace signaltty::ptyhost {

class TextModes {
 public:
  // Printable ASCII would land in the grid as is: GL holds ASCII, no single
  // shift waits, no insert mode, no margins, no protection.
  bool plain_ascii() const;
  bool origin() const { return origin_; }
  bool autowrap() const { return autowrap_; }
  bool lr_margins() const { return lr_margins_; }
  bool protect() const { return protected_; }
  // A C0 control met in ground text (SO and SI shift GL).
  void note_control(unsigned char c);
  // A character reached libvterm's text path; it used up a single shift.
  void note_text() { single_shift_ = false; }
  // One sequence as handed to libvterm (controls inside it included).
  void note_sequence(std::string_view seq);
  // The sequence fills libvterm's saved-cursor slot (DECSC, SCOSC, DECSET
  // 1049), given the modes before it.
  bool saves_cursor(std::string_view seq) const;
  // Whether `seq` puts a saved cursor back (DECRC, SCORC, leaving 1049).
  bool restores_cursor(std::string_view seq) const;
  // Bytes that set IRM and the charsets on a terminal fresh from RIS;
  // painting text must be done before they are sent. (DECSCA, DECOM, DECAWM
  // and DECLRMM are the snapshot's to order around the cursor.)
  std::string restore_sequence() const;

  void encode(ByteWriter& out) const;
  bool decode(ByteReader& in);
  bool operator==(const TextModes&) const = default;

 private:
  void note_csi(std::string_view body);
  void note_escape(std::string_view body);
  void reset() { *this = TextModes{}; }

  std::array<char, 4> charset_{'B', 'B', 'B', 'B'};  // final byte of each designation
  std::uint8_t gl_ = 0;                              // which G set GL holds
  bool single_shift_ = false;
  bool insert_ = false;
  bool lr_margins_ = false;
  bool protected_ = false;
  bool origin_ = false;
  bool autowrap_ = true;
};

}  // namespace signaltty::ptyhost
