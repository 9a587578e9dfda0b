// cli/main.cpp: the `signaltty` program: the process environment handed to
// run_cli(). Runs in: CLI. Never: holds logic of its own.
#include <unistd.h>

#include <exception>
#include <iostream>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace signaltty::cli;
  try {
    return run_cli(argc, argv, CliIo{std::cout, std::cerr, process_env, ::getuid()});
  } catch (const std::exception& e) {
    std::cerr << error_line(signaltty::Error{signaltty::ErrorCode::Internal, e.what()}) << '\n';
    return kExitError;
  }
}
