// common/audit_chain.cpp: SHA-256 links, chain heads and the retention
// evidence text of the audit journal.
// Runs in: broker and CLI.
#include "common/audit_chain.hpp"

#include <openssl/evp.h>

#include <charconv>

#include "common/hex.hpp"
#include "common/openssl_init.hpp"

namespace signaltty::audit {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // One-shot digest; EVP_Digest only fails on allocation failure.
  if (!openssl_ready() || EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr) != 1) len = 0;
  return to_hex(digest, len);
}

std::string genesis_hash() { return std::string(kHashHexChars, '0'); }

bool is_hash_hex(std::string_view text) {
  if (text.size() != kHashHexChars) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string format_head(const ChainHead& head) {
  return std::to_string(head.seq) + ":" + head.hash;
}

std::optional<ChainHead> parse_head(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  ChainHead head;
  auto [end, ec] = std::from_chars(text.data(), text.data() + colon, head.seq);
  if (ec != std::errc() || end != text.data() + colon) return std::nullopt;
  head.hash = std::string(text.substr(colon + 1));
  if (!is_hash_hex(head.hash)) return std::nullopt;
  return head;
}

std::string link_record(std::string_view record, std::string_view prev_hash) {
  std::string line(record.substr(0, record.size() - 1));  // without the closing '}'
  line += ",\"prev\":\"";
  line += prev_hash;
  line += "\"}";
  return line;
}

std::optional<RecordLine> parse_record_line(std::string_view line) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto seq = j.find("seq");
  auto event = j.find("event");
  auto payload = j.find("payload");
  if (seq == j.end() || !seq->is_number_unsigned()) return std::nullopt;
  if (event == j.end() || !event->is_string() || payload == j.end()) return std::nullopt;
  RecordLine rec;
  rec.seq = seq->get<std::uint64_t>();
  rec.event = event->get<std::string>();
  rec.payload = std::move(*payload);
  if (auto at = j.find("at"); at != j.end() && at->is_string()) rec.at = at->get<std::string>();
  if (auto prev = j.find("prev"); prev != j.end()) {
    if (!prev->is_string() || !is_hash_hex(prev->get_ref<const std::string&>()))
      return std::nullopt;
    rec.prev = prev->get<std::string>();
  }
  return rec;
}

void Retention::set_head(const ChainHead& h) {
  if (h.empty()) {
    head_seq.reset();
    head_hash.reset();
    return;
  }
  head_seq = h.seq;
  head_hash = h.hash;
}

std::string retention_text(const Retention& retention) {
  std::string text = protocol::encode(retention).dump();
  if (text.size() + 1 > kRetentionSlotBytes) return text + "\n";
  text.resize(kRetentionSlotBytes - 1, ' ');
  text += '\n';
  return text;
}

std::optional<Retention> parse_retention(std::string_view text) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  auto r = protocol::decode<Retention>(j);
  if (!r.ok()) return std::nullopt;
  return *r;
}

}  // namespace signaltty::audit
