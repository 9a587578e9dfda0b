// ptyhost/vt_guard.hpp: VtGuard, the byte filter between a pane's output and
// libvterm 0.1.4's parser.
// Runs in: ptyhost, on every output chunk before the VT model sees it.
// Never: interprets what a sequence means; drawing and modes stay libvterm's.
//
// VtGuard follows libvterm 0.1.4's parser state byte for byte (ground, ESC,
// CSI leader/args/intermediates, OSC/DCS string, ESC inside a string) and
// hands bytes on in pieces: ground text, one escape sequence at a time, or a
// REP sequence. Two guarantees follow:
//  - After every piece libvterm's parser rests in ground: a sequence or
//    UTF-8 character cut by the end of a chunk is held back (pending())
//    until it completes, and a sequence cut short by the ESC of the next
//    one is handed on with a CAN after it. Terminal relies on this to query
//    libvterm between chunks and to draw text itself, and puts pending() at
//    the end of the attach snapshot.
//  - Known libvterm 0.1.4 faults never see their input: a CSI's separators
//    beyond kVtCsiMaxSeparators are dropped (libvterm writes past its
//    16-argument array), parameter bytes beyond kVtCsiMaxBytes are dropped,
//    an OSC/DCS string over kVtStringMaxBytes is dropped whole (libvterm
//    copies it onto its stack), a C0 control after an ESC inside a string
//    ends the string there (libvterm keeps it and then reads past the input
//    at ST), and REP comes as its own piece so the caller can drop it when
//    no glyph precedes it (libvterm then loops forever).
// Every decision depends only on the bytes, never on how they were chunked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ptyhost/byte_codec.hpp"

namespace signaltty::ptyhost {

// Receives VtGuard's pieces in stream order. A view is valid only during
// the call that passes it.
class VtSink {
 public:
  // Ground-state bytes without ESC: text and C0 controls.
  virtual void vt_text(std::string_view bytes) = 0;
  // One escape sequence: complete, ended by CAN or SUB, or cut short by the
  // next ESC and then ended by a CAN that VtGuard adds.
  virtual void vt_sequence(std::string_view bytes) = 0;
  // One REP sequence (CSI Ps b).
  virtual void vt_repeat(std::string_view bytes) = 0;

 protected:
  ~VtSink() = default;
};

class VtGuard {
 public:
  void filter(std::string_view in, VtSink& sink);

  // Bytes that would put a fresh parser where libvterm will be once the held
  // tail reaches it: the incomplete sequence or character, or for a string
  // being dropped, its opener.
  std::string pending() const;

  void encode(ByteWriter& out) const;
  bool decode(ByteReader& in);

 private:
  enum class Phase : std::uint8_t {
    Ground,
    Escape,
    CsiLeader,
    CsiArgs,
    CsiIntermed,
    String,
    StringEscape,
  };
  enum class Step : std::uint8_t {
    Keep,      // the byte belongs to the sequence
    Skip,      // the byte is dropped
    Complete,  // the byte ends the sequence
    Restart,   // the byte is an ESC that aborts the sequence and starts one
    Reopen,    // the string ended at the ESC before this byte; ESC + byte start anew
  };

  std::size_t take_ground(std::string_view in, std::size_t i, VtSink& sink);
  std::size_t take_sequence(std::string_view in, std::size_t i, VtSink& sink);
  void flush_utf8_tail(std::string_view in, std::size_t& i, VtSink& sink);
  void begin_sequence(std::size_t start);
  void emit_sequence(std::string_view in, std::size_t end, VtSink& sink);
  void emit_aborted(std::string_view in, std::size_t end, VtSink& sink);
  void hold_back(std::string_view in);

  Step step(unsigned char c);
  Step step_escape(unsigned char c);
  Step step_csi(unsigned char c);
  Step step_string(unsigned char c);
  Step limit_csi_byte();

  Phase phase_ = Phase::Ground;
  bool buffered_ = false;  // the sequence so far is in seq_ (else in the input)
  bool dropping_ = false;  // an over-long string: none of it reaches libvterm
  bool csi_leader_ = false;
  bool csi_intermed_ = false;
  bool csi_args_dropped_ = false;
  bool repeat_ = false;  // the completed CSI is REP
  char string_opener_ = 0;
  std::uint16_t esc_intermediates_ = 0;
  std::uint16_t csi_separators_ = 0;
  std::uint32_t sequence_bytes_ = 0;
  std::size_t seq_start_ = 0;  // start of the current sequence in the input
  std::string seq_;            // the sequence so far when buffered_
  std::string utf8_tail_;      // an incomplete character held in ground
};

}  // namespace signaltty::ptyhost
