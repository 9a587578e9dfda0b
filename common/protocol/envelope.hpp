// common/protocol/envelope.hpp: the signaltty/1 envelope: decoding one
// request line's object, and encoding responses and events as lines.
// Runs in: every process. Never: looks inside params (the method's own
// Codec does, in the router).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::protocol {

inline constexpr std::string_view kProtocol = "signaltty/1";

struct Request {
  Json id;  // string, number or null: echoed back verbatim
  std::string method;
  Json params;  // always an object; decoded by the method's Codec
  // A pane's SIGNALTTY_TOKEN: the connection then acts as that pane
  // (common/protocol/permits.hpp). Checked by the router, never echoed,
  // logged or journaled.
  std::optional<std::string> token;
};

// What decode_request could salvage when it fails: the id to answer with.
struct RequestError {
  Json id;
  Error error;
};

// Parses one line (without its '\n'). Malformed JSON → BAD_PROTOCOL with a
// null id; protocol mismatch → BAD_PROTOCOL; bad id/method/params types →
// BAD_PARAMS naming the field.
std::variant<Request, RequestError> decode_request(std::string_view line);

// Each returns one line, '\n' included.
std::string encode_ok(const Json& id, const Json& result);
std::string encode_error(const Json& id, const Error& error);
std::string encode_event(std::string_view event, std::uint64_t seq, const Json& payload);
// The `pty.data` event line for `bytes`, written straight into the line
// (base64 and decimal need no escaping) rather than through a JSON tree:
// it is the line the broker writes most. As JSON it equals encode_event()
// of the same PtyDataPayload; a pane id that would need escaping takes
// that path.
std::string encode_pty_data_line(std::string_view pane_id, std::uint64_t seq,
                                 std::uint64_t output_offset, std::string_view bytes);
// `token`: the caller's SIGNALTTY_TOKEN, sent as the envelope's "token"
// when not empty.
std::string encode_request(const Json& id, std::string_view method, const Json& params,
                           std::string_view token = {});

// Client side: one response or event line, decoded.
struct Response {
  Json id;
  bool ok = false;
  Json result;  // when ok
  Error error;  // when !ok
};
struct EventMessage {
  std::string event;
  std::uint64_t seq = 0;
  Json payload;
};
Result<std::variant<Response, EventMessage>> decode_server_line(std::string_view line);

}  // namespace signaltty::protocol
