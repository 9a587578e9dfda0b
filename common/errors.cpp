// common/errors.cpp: the wire-string table lookups for ErrorCode.
// Runs in: every process.
#include "common/errors.hpp"

#include <cstring>

namespace signaltty {

std::string_view wire_name(ErrorCode code) {
  for (const auto& [c, name] : kErrorCodeNames)
    if (c == code) return name;
  return "INTERNAL";
}

std::optional<ErrorCode> error_code_from_wire(std::string_view name) {
  for (const auto& [c, n] : kErrorCodeNames)
    if (n == name) return c;
  return std::nullopt;
}

Error Error::from_errno(ErrorCode code, std::string_view syscall, int err,
                        std::string_view context) {
  std::string msg(syscall);
  if (!context.empty()) msg.append("(").append(context).append(")");
  msg.append(": ").append(std::strerror(err));
  return Error{code, std::move(msg), {{"errno", err}}};
}

}  // namespace signaltty
