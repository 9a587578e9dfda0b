// ptyhost/vt_guard.cpp: libvterm 0.1.4's parser states, mirrored to cut
// pieces and hold back incomplete tails (see vt_guard.hpp).
// Runs in: ptyhost, once per output chunk. Never: copies ground text; only
// a sequence cut by a chunk boundary or rewritten is buffered.
#include "ptyhost/vt_guard.hpp"

#include <cstring>

#include "ptyhost/terminal_limits.hpp"

namespace signaltty::ptyhost {
namespace {

constexpr unsigned char kEsc = 0x1b;
constexpr unsigned char kBel = 0x07;
constexpr unsigned char kCan = 0x18;
constexpr unsigned char kSub = 0x1a;
constexpr unsigned char kDel = 0x7f;
constexpr std::size_t kMaxUtf8Bytes = 6;  // libvterm decodes the old 5- and 6-byte forms

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

std::size_t utf8_length(unsigned char lead) {
  if (lead >= 0xC0 && lead < 0xE0) return 2;
  if (lead >= 0xE0 && lead < 0xF0) return 3;
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xF8 && lead < 0xFC) return 5;
  if (lead >= 0xFC && lead < 0xFE) return 6;
  return 1;
}

// Length of a trailing character that is still missing bytes, else 0.
std::size_t incomplete_utf8_suffix(std::string_view text) {
  const std::size_t floor = text.size() > kMaxUtf8Bytes ? text.size() - kMaxUtf8Bytes : 0;
  for (std::size_t p = text.size(); p-- > floor;) {
    const auto c = static_cast<unsigned char>(text[p]);
    if (is_continuation(c)) continue;
    const std::size_t have = text.size() - p;
    return utf8_length(c) > have ? have : 0;
  }
  return 0;
}

}  // namespace

void VtGuard::filter(std::string_view in, VtSink& sink) {
  std::size_t i = 0;
  if (phase_ == Phase::Ground && !utf8_tail_.empty()) flush_utf8_tail(in, i, sink);
  while (i < in.size())
    i = phase_ == Phase::Ground ? take_ground(in, i, sink) : take_sequence(in, i, sink);
  if (phase_ != Phase::Ground) hold_back(in);
}

void VtGuard::flush_utf8_tail(std::string_view in, std::size_t& i, VtSink& sink) {
  const std::size_t need =
      utf8_length(static_cast<unsigned char>(utf8_tail_[0])) - utf8_tail_.size();
  std::size_t taken = 0;
  while (taken < need && taken < in.size() && is_continuation(static_cast<unsigned char>(in[taken])))
    ++taken;
  utf8_tail_.append(in.substr(0, taken));
  i = taken;
  if (taken == need || taken < in.size()) {
    sink.vt_text(utf8_tail_);
    utf8_tail_.clear();
  }
}

std::size_t VtGuard::take_ground(std::string_view in, std::size_t i, VtSink& sink) {
  const void* found = std::memchr(in.data() + i, kEsc, in.size() - i);
  if (found == nullptr) {
    const std::size_t end = in.size() - incomplete_utf8_suffix(in.substr(i));
    if (end > i) sink.vt_text(in.substr(i, end - i));
    utf8_tail_.assign(in.substr(end));
    return in.size();
  }
  const auto esc = static_cast<std::size_t>(static_cast<const char*>(found) - in.data());
  if (esc > i) sink.vt_text(in.substr(i, esc - i));
  begin_sequence(esc);
  return esc + 1;
}

void VtGuard::begin_sequence(std::size_t start) {
  phase_ = Phase::Escape;
  buffered_ = false;
  dropping_ = false;
  csi_leader_ = false;
  csi_intermed_ = false;
  csi_args_dropped_ = false;
  repeat_ = false;
  esc_intermediates_ = 0;
  csi_separators_ = 0;
  sequence_bytes_ = 0;
  seq_start_ = start;
  seq_.clear();
}

std::size_t VtGuard::take_sequence(std::string_view in, std::size_t i, VtSink& sink) {
  while (i < in.size()) {
    const auto c = static_cast<unsigned char>(in[i]);
    switch (step(c)) {
      case Step::Keep:
        if (buffered_) seq_ += static_cast<char>(c);
        ++i;
        break;
      case Step::Skip:
        if (!buffered_ && !dropping_) {
          seq_.assign(in.substr(seq_start_, i - seq_start_));
          buffered_ = true;
        }
        ++i;
        break;
      case Step::Complete:
        if (buffered_) seq_ += static_cast<char>(c);
        emit_sequence(in, i + 1, sink);
        phase_ = Phase::Ground;
        return i + 1;
      case Step::Restart:
        emit_aborted(in, i, sink);
        begin_sequence(i);
        return i + 1;
      case Step::Reopen:  // `c` is processed again as the byte after ESC
        // The ESC before `c` starts the next sequence (in seq_ when buffered,
        // else at in[i - 1]).
        if (buffered_) seq_.pop_back();
        emit_aborted(in, buffered_ ? i : i - 1, sink);
        begin_sequence(i);
        buffered_ = true;
        seq_.assign(1, static_cast<char>(kEsc));
        break;
    }
  }
  return i;
}

void VtGuard::emit_sequence(std::string_view in, std::size_t end, VtSink& sink) {
  if (!dropping_) {
    const std::string_view bytes =
        buffered_ ? std::string_view(seq_) : in.substr(seq_start_, end - seq_start_);
    if (repeat_)
      sink.vt_repeat(bytes);
    else
      sink.vt_sequence(bytes);
  }
  buffered_ = false;
  dropping_ = false;
  repeat_ = false;
  seq_.clear();
}

// The sequence ends at in[end] without its final byte (an ESC starts the
// next one). libvterm would drop it there, but it would also wait, mid-
// sequence, for that ESC: if the next sequence is a string VtGuard drops
// whole, the text after it would complete this one instead. So a CAN follows
// it: libvterm (having run any control inside it) drops it as that ESC would
// have, and rests in ground after every piece. An over-long string
// being dropped never reached libvterm, so nothing is owed for it.
void VtGuard::emit_aborted(std::string_view in, std::size_t end, VtSink& sink) {
  if (!dropping_) {
    if (!buffered_) seq_.assign(in.substr(seq_start_, end - seq_start_));
    seq_ += static_cast<char>(kCan);
    sink.vt_sequence(seq_);
  }
  buffered_ = false;
  dropping_ = false;
  repeat_ = false;
  seq_.clear();
}

void VtGuard::hold_back(std::string_view in) {
  if (buffered_ || dropping_) return;
  seq_.assign(in.substr(seq_start_));
  buffered_ = true;
}

VtGuard::Step VtGuard::step(unsigned char c) {
  if (c == kCan || c == kSub) return Step::Complete;
  if (c == kEsc) {
    if (phase_ != Phase::String) return Step::Restart;
    phase_ = Phase::StringEscape;
    return Step::Keep;
  }
  if (c == 0x00 || c == kDel) return Step::Skip;  // libvterm ignores both everywhere
  if (phase_ == Phase::String || phase_ == Phase::StringEscape) return step_string(c);
  if (c < 0x20) return limit_csi_byte();  // a control runs inside the sequence
  if (phase_ == Phase::Escape) return step_escape(c);
  return step_csi(c);
}

VtGuard::Step VtGuard::limit_csi_byte() {
  return ++sequence_bytes_ > limits::kVtCsiMaxBytes ? Step::Skip : Step::Keep;
}

VtGuard::Step VtGuard::step_escape(unsigned char c) {
  if (c >= 0x20 && c <= 0x2f) {
    ++esc_intermediates_;
    return limit_csi_byte();
  }
  if (c == '[') {
    phase_ = Phase::CsiLeader;
    return Step::Keep;
  }
  if (c == ']' || c == 'P') {
    phase_ = Phase::String;
    string_opener_ = static_cast<char>(c);
    sequence_bytes_ = 0;
    return Step::Keep;
  }
  if (esc_intermediates_ == 0 && c >= 0x40 && c <= 0x5f) return Step::Complete;  // 7-bit C1
  if (c >= 0x30 && c <= 0x7e) return Step::Complete;
  return Step::Skip;  // libvterm ignores the byte and stays after ESC
}

VtGuard::Step VtGuard::step_csi(unsigned char c) {
  if (phase_ == Phase::CsiLeader) {
    if (c >= 0x3c && c <= 0x3f) {
      csi_leader_ = true;
      return limit_csi_byte();
    }
    phase_ = Phase::CsiArgs;
  }
  if (phase_ == Phase::CsiArgs) {
    if (c >= '0' && c <= '9') return csi_args_dropped_ ? Step::Skip : limit_csi_byte();
    if (c == ':' || c == ';') {
      if (csi_args_dropped_ || ++csi_separators_ > limits::kVtCsiMaxSeparators) {
        csi_args_dropped_ = true;
        return Step::Skip;
      }
      return limit_csi_byte();
    }
    phase_ = Phase::CsiIntermed;
  }
  if (c >= 0x20 && c <= 0x2f) {
    csi_intermed_ = true;
    return limit_csi_byte();
  }
  // A final byte, or an invalid one that libvterm swallows on its way to ground.
  repeat_ = c == 'b' && !csi_leader_ && !csi_intermed_;
  return Step::Complete;
}

// In a string, ESC then anything but a backslash ends the string unfinished,
// and that byte is the one after a new ESC. A C0 control there too: libvterm
// 0.1.4 runs the control, keeps the string, and at a later backslash passes
// on a string fragment of length -1 (strncpy far past the input buffer).
VtGuard::Step VtGuard::step_string(unsigned char c) {
  if (phase_ == Phase::StringEscape) {
    if (c == '\\') return Step::Complete;
    return Step::Reopen;
  }
  if (phase_ == Phase::String && c == kBel) return Step::Complete;
  if (++sequence_bytes_ > limits::kVtStringMaxBytes && !dropping_) {
    dropping_ = true;
    buffered_ = false;
    seq_.clear();
    seq_.shrink_to_fit();
  }
  return dropping_ ? Step::Skip : Step::Keep;
}

std::string VtGuard::pending() const {
  if (phase_ == Phase::Ground) return utf8_tail_;
  if (!dropping_) return seq_;
  std::string opener{static_cast<char>(kEsc), string_opener_};
  if (phase_ == Phase::StringEscape) opener += static_cast<char>(kEsc);
  return opener;
}

void VtGuard::encode(ByteWriter& out) const {
  out.put(static_cast<std::uint8_t>(phase_));
  out.put_bool(buffered_);
  out.put_bool(dropping_);
  out.put_bool(csi_leader_);
  out.put_bool(csi_intermed_);
  out.put_bool(csi_args_dropped_);
  out.put_bool(repeat_);
  out.put(string_opener_);
  out.put(esc_intermediates_);
  out.put(csi_separators_);
  out.put(sequence_bytes_);
  out.put_bytes(seq_);
  out.put_bytes(utf8_tail_);
}

bool VtGuard::decode(ByteReader& in) {
  std::uint8_t phase = 0;
  in.get(phase);
  in.get_bool(buffered_);
  in.get_bool(dropping_);
  in.get_bool(csi_leader_);
  in.get_bool(csi_intermed_);
  in.get_bool(csi_args_dropped_);
  in.get_bool(repeat_);
  in.get(string_opener_);
  in.get(esc_intermediates_);
  in.get(csi_separators_);
  in.get(sequence_bytes_);
  in.get_bytes(seq_, limits::kVtStringMaxBytes + limits::kVtCsiMaxBytes);
  in.get_bytes(utf8_tail_, kMaxUtf8Bytes);
  if (phase > static_cast<std::uint8_t>(Phase::StringEscape)) return in.fail();
  phase_ = static_cast<Phase>(phase);
  if (phase_ != Phase::Ground && !buffered_ && !dropping_) return in.fail();
  return in.ok();
}

}  // namespace signaltty::ptyhost
