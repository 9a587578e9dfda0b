// tests/cli/cli_runner.hpp: running `signaltty <args>` in-process with a
// chosen environment and stdin, and a fake broker that answers from a
// script; shared by the CLI tests that drive whole commands.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/app.hpp"
#include "common/unique_fd.hpp"
#include "common/protocol/codec.hpp"
#include "tests/cli/fake_broker.hpp"

namespace signaltty::cli::testing {

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

// An environment holding `vars` only.
inline EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// `signaltty <args>` as the current uid with `env` only, `in_fd` as stdin
// (/dev/null when negative) and /dev/null as the terminal output.
inline Outcome run(std::vector<std::string> args, std::map<std::string, std::string> env = {},
                   int in_fd = -1) {
  args.insert(args.begin(), "signaltty");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  UniqueFd null_fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  std::ostringstream out, err;
  CliIo io{out, err, env_of(std::move(env)), ::getuid(), in_fd >= 0 ? in_fd : null_fd.get(),
           null_fd.get()};
  Outcome r;
  r.status = run_cli(static_cast<int>(argv.size()), argv.data(), io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A broker answering every request with `answer(request)` until the client
// hangs up; the requests it saw are kept in order.
struct ScriptBroker {
  std::vector<protocol::Json> requests;
  FakeBroker broker;
  explicit ScriptBroker(std::function<std::string(const protocol::Json&)> answer)
      : broker([this, answer](FakeConnection& conn) {
          while (auto line = conn.read_line()) {
            requests.push_back(protocol::Json::parse(*line));
            conn.write(answer(requests.back()));
          }
        }) {}
  std::vector<std::string> methods() const {
    std::vector<std::string> out;
    for (const auto& r : requests) out.push_back(r.value("method", ""));
    return out;
  }
};

}  // namespace signaltty::cli::testing
