// common/seccomp_filter.hpp: what the broker's and the ptyhost's seccomp
// allowlists share: the default action (kill; log in sanitizer builds,
// whose LeakSanitizer forks and ptraces at exit), a filter that starts
// with it and kills any call through another ABI, and the rule for calls
// allowed with any arguments.
// Runs in: broker (broker/confinement.cpp), ptyhost (ptyhost/sandbox.cpp);
// each links libseccomp. Header-only so common/ does not link it.
#pragma once

#include <seccomp.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::seccomp {

#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE)
inline constexpr std::uint32_t kDefaultAction = SCMP_ACT_LOG;
#else
inline constexpr std::uint32_t kDefaultAction = SCMP_ACT_KILL_PROCESS;
#endif

// A call allowed with any arguments, and why.
struct AllowedCall {
  std::string_view name;
  std::string_view reason;
};

using FilterPtr = std::unique_ptr<void, decltype(&seccomp_release)>;

inline Error failed(std::string_view what, int rc) {
  return Error::from_errno(ErrorCode::Internal, what, -rc, "seccomp");
}

// A filter with kDefaultAction whose arch check kills whatever the number.
inline Result<FilterPtr> new_filter() {
  FilterPtr filter(seccomp_init(kDefaultAction), &seccomp_release);
  if (!filter) return Error{ErrorCode::Internal, "seccomp_init failed"};
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS); rc != 0)
    return failed("badarch", rc);
  return filter;
}

// Allows each call; names the running arch lacks are skipped.
inline Status allow_calls(scmp_filter_ctx ctx, std::span<const AllowedCall> calls) {
  for (const auto& call : calls) {
    const int nr = seccomp_syscall_resolve_name(std::string(call.name).c_str());
    if (nr == __NR_SCMP_ERROR) continue;
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); rc != 0) return failed(call.name, rc);
  }
  return {};
}

}  // namespace signaltty::seccomp
