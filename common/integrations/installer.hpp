// common/integrations/installer.hpp: install, uninstall and status of one
// provider's hook integration in its config file (docs/rules.md "Agent
// integrations"). The CLI's `signaltty integration` and the broker's
// launch setup both call these.
// Runs in: CLI and broker. Never: touches a value that is not ours, writes
// a file whose value would not change, or writes a malformed, oversized or
// non-regular file (those are refused with nothing written).
//
// Usage:
//   PathContext where{process_env, {}, home_flag, cwd};
//   SIGNALTTY_TRY(std::string file, config_file_path(Provider::Claude, where));
//   SIGNALTTY_TRY(std::string relay, find_reporter(process_env));
//   SIGNALTTY_TRY(InstallOutcome done, install(Provider::Claude, file, relay));
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/integrations/provider.hpp"

namespace signaltty::integrations {

struct InstallOutcome {
  Provider provider = Provider::Claude;
  std::string file;  // the file written or inspected (a symlink's target)
  bool changed = false;
};

// Writes managed hooks that run `reporter` (absolute path of
// signaltty-hookrelay) into `file`.
Result<InstallOutcome> install(Provider provider, const std::string& file, const std::string& reporter);

// Removes our hooks (OpenCode: our plugin file) from `file`; a missing
// file, or an OpenCode plugin that is not ours, is left alone.
Result<InstallOutcome> uninstall(Provider provider, const std::string& file);

struct ProviderStatus {
  Provider provider = Provider::Claude;
  std::string file;
  bool exists = false;
  bool installed = false;  // a managed hook for every managed event (OpenCode: our plugin)
  bool stale = false;      // some managed hook differs from what install writes now
  std::vector<std::string> missing_events;
  bool foreign_plugin = false;  // OpenCode: the file is someone else's
};

// What `file` holds of ours. Without `reporter` (no relay found), stale
// means a managed hook in a legacy form.
Result<ProviderStatus> status(Provider provider, const std::string& file,
                              const std::optional<std::string>& reporter);

}  // namespace signaltty::integrations
