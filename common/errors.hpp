// common/errors.hpp: the closed set of signaltty/1 error codes, their one
// wire-string table, and Result<T> (a value or an Error).
// Runs in: every process. Never: carries free-form codes; an error that is
// not in ErrorCode does not exist on the wire.
//
// Usage:
//   Result<Workspace> find(std::string_view key) {
//     if (...) return Error{ErrorCode::NoSuchWorkspace, "no workspace 'x'"};
//     return ws;
//   }
//   SIGNALTTY_TRY(auto ws, find(key));   // returns the error upward
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

namespace signaltty {

// docs/rules.md "Error codes", in the protocol's order. Pick the most specific
// code: a caller's bad input is never INTERNAL.
enum class ErrorCode {
  BadProtocol,
  UnknownMethod,
  BadParams,
  NoSuchServer,
  NoSuchWorkspace,
  NoSuchTab,
  NoSuchPane,
  NoSuchTask,
  NoSuchDecision,
  AgentBusy,
  AgentNotReady,
  MergeConflict,
  PaneExited,
  PanesAlive,
  SpawnFailed,
  IoError,
  Timeout,
  IdentityChanged,
  RateLimited,
  Forbidden,
  Internal,
};

inline constexpr std::array<std::pair<ErrorCode, std::string_view>, 21> kErrorCodeNames{{
    {ErrorCode::BadProtocol, "BAD_PROTOCOL"},
    {ErrorCode::UnknownMethod, "UNKNOWN_METHOD"},
    {ErrorCode::BadParams, "BAD_PARAMS"},
    {ErrorCode::NoSuchServer, "NO_SUCH_SERVER"},
    {ErrorCode::NoSuchWorkspace, "NO_SUCH_WORKSPACE"},
    {ErrorCode::NoSuchTab, "NO_SUCH_TAB"},
    {ErrorCode::NoSuchPane, "NO_SUCH_PANE"},
    {ErrorCode::NoSuchTask, "NO_SUCH_TASK"},
    {ErrorCode::NoSuchDecision, "NO_SUCH_DECISION"},
    {ErrorCode::AgentBusy, "AGENT_BUSY"},
    {ErrorCode::AgentNotReady, "AGENT_NOT_READY"},
    {ErrorCode::MergeConflict, "MERGE_CONFLICT"},
    {ErrorCode::PaneExited, "PANE_EXITED"},
    {ErrorCode::PanesAlive, "PANES_ALIVE"},
    {ErrorCode::SpawnFailed, "SPAWN_FAILED"},
    {ErrorCode::IoError, "IO_ERROR"},
    {ErrorCode::Timeout, "TIMEOUT"},
    {ErrorCode::IdentityChanged, "IDENTITY_CHANGED"},
    {ErrorCode::RateLimited, "RATE_LIMITED"},
    {ErrorCode::Forbidden, "FORBIDDEN"},
    {ErrorCode::Internal, "INTERNAL"},
}};

std::string_view wire_name(ErrorCode code);
std::optional<ErrorCode> error_code_from_wire(std::string_view name);

struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;
  nlohmann::json details = nlohmann::json::object();

  // A system call failure keeps the call's name and errno in the message.
  static Error from_errno(ErrorCode code, std::string_view syscall, int err,
                          std::string_view context = {});
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

inline Error bad_params(std::string message) {
  return Error{ErrorCode::BadParams, std::move(message)};
}

}  // namespace signaltty

#define SIGNALTTY_CONCAT_INNER(a, b) a##b
#define SIGNALTTY_CONCAT(a, b) SIGNALTTY_CONCAT_INNER(a, b)

// Returns the error of a failed Result<void> from the enclosing function.
#define SIGNALTTY_RETURN_IF_ERROR(expr)                     \
  do {                                                      \
    auto signaltty_status_ = (expr);                        \
    if (!signaltty_status_.ok())                            \
      return std::move(signaltty_status_).error();          \
  } while (0)

// `SIGNALTTY_TRY(auto x, f());` binds the value or returns the error.
#define SIGNALTTY_TRY(lhs, expr) \
  SIGNALTTY_TRY_IMPL(SIGNALTTY_CONCAT(signaltty_result_, __LINE__), lhs, expr)
#define SIGNALTTY_TRY_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                       \
  if (!tmp.ok()) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()
