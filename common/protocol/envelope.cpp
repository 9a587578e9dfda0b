// common/protocol/envelope.cpp: envelope decode/encode (docs/rules.md,
// Envelope and rules). Runs in: every process.
#include "common/protocol/envelope.hpp"

#include <algorithm>

#include "common/base64.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::protocol {
namespace {

constexpr auto kDumpErrors = Json::error_handler_t::replace;

std::string dump_line(const Json& j) {
  std::string out = j.dump(-1, ' ', false, kDumpErrors);
  out.push_back('\n');
  return out;
}

// The member `key` of `doc` when it has the JSON type `is`, else `fallback`;
// nlohmann's value() would throw on a wrong type.
Json member(const Json& doc, std::string_view key, bool (Json::*is)() const noexcept,
            Json fallback) {
  auto it = doc.find(key);
  return it != doc.end() && ((*it).*is)() ? *it : fallback;
}

std::string string_member(const Json& doc, std::string_view key, std::string fallback) {
  return member(doc, key, &Json::is_string, fallback).get<std::string>();
}

Error field_error(ErrorCode code, std::string message, std::string_view field) {
  Error e{code, std::move(message)};
  e.details = {{"field", std::string(field)}};
  return e;
}

}  // namespace

std::variant<Request, RequestError> decode_request(std::string_view line) {
  auto parsed = parse_json(line);
  if (!parsed.ok())
    return RequestError{nullptr, Error{ErrorCode::BadProtocol,
                                       "request is not valid JSON: " + parsed.error().message}};
  Json doc = std::move(parsed).value();
  if (!doc.is_object())
    return RequestError{nullptr, Error{ErrorCode::BadProtocol, "request must be a JSON object"}};

  Json id = nullptr;
  if (auto it = doc.find("id"); it != doc.end()) {
    if (!it->is_string() && !it->is_number() && !it->is_null())
      return RequestError{nullptr, field_error(ErrorCode::BadParams,
                                               "id: expected string or number", "id")};
    id = *it;
  }
  auto proto = doc.find("protocol");
  if (proto == doc.end() || !proto->is_string() || proto->get_ref<const std::string&>() != kProtocol)
    return RequestError{id, field_error(ErrorCode::BadProtocol,
                                        "protocol: expected \"signaltty/1\"", "protocol")};
  auto method = doc.find("method");
  if (method == doc.end() || !method->is_string())
    return RequestError{id, field_error(ErrorCode::BadParams, "method: expected string", "method")};

  Request req{id, method->get<std::string>(), Json::object()};
  if (auto params = doc.find("params"); params != doc.end() && !params->is_null()) {
    if (!params->is_object())
      return RequestError{id, field_error(ErrorCode::BadParams, "params: expected object", "params")};
    req.params = std::move(*params);
  }
  if (auto token = doc.find("token"); token != doc.end() && !token->is_null()) {
    if (!token->is_string())
      return RequestError{id, field_error(ErrorCode::BadParams, "token: expected string", "token")};
    req.token = token->get<std::string>();
  }
  return req;
}

std::string encode_ok(const Json& id, const Json& result) {
  return dump_line({{"protocol", kProtocol}, {"id", id}, {"ok", true}, {"result", result}});
}

std::string encode_error(const Json& id, const Error& error) {
  Json err = {{"code", wire_name(error.code)},
              {"message", error.message},
              {"details", error.details.is_object() ? error.details : Json::object()}};
  return dump_line({{"protocol", kProtocol}, {"id", id}, {"ok", false}, {"error", std::move(err)}});
}

std::string encode_event(std::string_view event, std::uint64_t seq, const Json& payload) {
  return dump_line(
      {{"protocol", kProtocol}, {"type", "event"}, {"event", event}, {"seq", seq}, {"payload", payload}});
}

std::string encode_pty_data_line(std::string_view pane_id, std::uint64_t seq,
                                 std::uint64_t output_offset, std::string_view bytes) {
  const bool plain = std::all_of(pane_id.begin(), pane_id.end(), [](char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    PtyDataPayload payload{std::string(pane_id), base64_encode(bytes), output_offset};
    return encode_event(ev::PtyData::name, seq, encode(payload));
  }
  constexpr std::string_view kHead = R"({"event":"pty.data","payload":{"data_b64":")";
  std::string line;
  line.reserve(kHead.size() + 4 * ((bytes.size() + 2) / 3) + pane_id.size() + 128);
  line += kHead;
  base64_append(line, bytes);
  line += R"(","output_offset":)";
  line += std::to_string(output_offset);
  line += R"(,"pane_id":")";
  line += pane_id;
  line += R"("},"protocol":")";
  line += kProtocol;
  line += R"(","seq":)";
  line += std::to_string(seq);
  line += R"(,"type":"event"})";
  line += '\n';
  return line;
}

std::string encode_request(const Json& id, std::string_view method, const Json& params,
                           std::string_view token) {
  Json doc{{"protocol", kProtocol}, {"id", id}, {"method", method}, {"params", params}};
  if (!token.empty()) doc["token"] = token;
  return dump_line(doc);
}

Result<std::variant<Response, EventMessage>> decode_server_line(std::string_view line) {
  auto parsed = parse_json(line);
  if (!parsed.ok() || !parsed->is_object())
    return Error{ErrorCode::BadProtocol, "server sent a line that is not a JSON object"};
  const Json& doc = *parsed;
  if (string_member(doc, "type", "") == "event") {
    EventMessage ev;
    ev.event = string_member(doc, "event", "");
    ev.seq = member(doc, "seq", &Json::is_number_unsigned, 0).get<std::uint64_t>();
    ev.payload = member(doc, "payload", &Json::is_object, Json::object());
    return std::variant<Response, EventMessage>(std::move(ev));
  }
  Response r;
  const Json id = member(doc, "id", &Json::is_primitive, nullptr);
  r.id = id.is_boolean() ? Json(nullptr) : id;
  r.ok = member(doc, "ok", &Json::is_boolean, false).get<bool>();
  if (r.ok) {
    r.result = member(doc, "result", &Json::is_structured, Json::object());
  } else {
    const Json err = member(doc, "error", &Json::is_object, Json::object());
    auto code = error_code_from_wire(string_member(err, "code", "INTERNAL"));
    r.error = Error{code.value_or(ErrorCode::Internal), string_member(err, "message", ""),
                    member(err, "details", &Json::is_object, Json::object())};
  }
  return std::variant<Response, EventMessage>(std::move(r));
}

}  // namespace signaltty::protocol
