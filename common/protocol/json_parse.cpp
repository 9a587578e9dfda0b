// common/protocol/json_parse.cpp: the depth pre-scan and the non-throwing
// parse of every peer's JSON text. Runs in: every process.
#include "common/protocol/json_parse.hpp"

#include "common/limits.hpp"

namespace signaltty::protocol {

std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > stop_after) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<Json> parse_json(std::string_view text) {
  if (json_nesting_depth(text, limits::kJsonMaxDepth) > limits::kJsonMaxDepth)
    return Error{ErrorCode::BadProtocol, "JSON nests deeper than " +
                                             std::to_string(limits::kJsonMaxDepth) + " levels"};
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error{ErrorCode::BadProtocol, "not valid JSON"};
  return doc;
}

}  // namespace signaltty::protocol
