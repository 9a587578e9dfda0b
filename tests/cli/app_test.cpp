// tests/cli/app_test.cpp: the command tree generated from the method table:
// every method has a command, options and positionals map onto params, and
// usage errors and help get their exit statuses.
#include "cli/app.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/exit_codes.hpp"
#include "common/protocol/schema.hpp"
#include "common/version.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;

struct Parsed {
  std::optional<int> status;  // nullopt: a command is ready to run
  std::string method;         // the chosen generated command's method
  Json params;
  std::string out;
  std::string err;
};

// Parses `args` (without the program name) on a fresh tree.
Parsed parse(std::vector<std::string> args, Cli& cli) {
  args.insert(args.begin(), "signaltty");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Parsed p;
  p.status = cli.parse(static_cast<int>(argv.size()), argv.data(), out, err);
  if (!p.status)
    if (const CommandBinding* command = cli.chosen_command()) {
      p.method = command->spec().method;
      p.params = command->params();
    }
  p.out = out.str();
  p.err = err.str();
  return p;
}

Parsed parse(std::vector<std::string> args) {
  Cli cli;
  return parse(std::move(args), cli);
}

// A value each kind accepts, for filling required positionals.
std::string sample_value(ParamKind kind) {
  switch (kind) {
    case ParamKind::Integer: return "1";
    case ParamKind::Number: return "0.5";
    case ParamKind::JsonArray: return "[]";
    case ParamKind::JsonValue: return "{}";
    default: return "x";
  }
}

TEST(Cli, EveryMethodInTheTableHasAGeneratedCommand) {
  const auto specs = command_specs(protocol::build_schema().methods);
  std::size_t checked = 0;
  protocol::for_each_type<protocol::AllMethods>([&]<class M>() {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [](const CommandSpec& s) { return s.method == M::name; });
    ASSERT_NE(spec, specs.end()) << M::name;
    std::vector<std::string> args = command_words(M::name);
    for (const auto& p : spec->params)
      if (p.required && p.positional >= 0 && p.kind != ParamKind::Boolean)
        args.push_back(sample_value(p.kind));
    Parsed parsed = parse(args);
    EXPECT_FALSE(parsed.status) << M::name << ": " << parsed.err;
    EXPECT_EQ(parsed.method, M::name);
    ++checked;
  });
  EXPECT_EQ(checked, protocol::AllMethods::size);
}

TEST(Cli, PlannedMethodsGetACommandMarkedNotImplemented) {
  Cli cli;
  for (const auto& command : cli.commands()) {
    if (command.spec().implemented) continue;
    EXPECT_NE(command.app().get_description().find("not implemented yet"), std::string::npos)
        << command.spec().method;
  }
}

TEST(Cli, ShortcutsRunTheServerMethods) {
  EXPECT_EQ(parse({"status"}).method, protocol::ServerStatus::name);
  EXPECT_EQ(parse({"schema"}).method, protocol::ServerSchema::name);
  Parsed shutdown = parse({"shutdown", "--force"});
  EXPECT_EQ(shutdown.method, protocol::ServerShutdown::name);
  EXPECT_EQ(shutdown.params, Json({{"force", true}}));
  EXPECT_EQ(parse({"server", "status"}).method, protocol::ServerStatus::name);
}

TEST(Cli, PositionalsFillFieldsInSlotOrder) {
  Parsed p = parse({"workspace", "rename", "ws_1", "New name"});
  ASSERT_FALSE(p.status) << p.err;
  EXPECT_EQ(p.method, protocol::WorkspaceRename::name);
  EXPECT_EQ(p.params, Json({{"workspace_id", "ws_1"}, {"name", "New name"}}));
}

TEST(Cli, PositionalFieldsAlsoTakeDashedAndUnderscoredOptions) {
  EXPECT_EQ(parse({"workspace", "get", "--workspace-id", "api"}).params,
            Json({{"workspace_id", "api"}}));
  EXPECT_EQ(parse({"workspace", "get", "--workspace_id", "api"}).params,
            Json({{"workspace_id", "api"}}));
}

TEST(Cli, UnderscoredMethodWordsAreAcceptedToo) {
  const std::string layout = R"({"type":"pane","pane_id":"p1"})";
  EXPECT_EQ(parse({"tab", "set-layout", "t1", layout}).method, protocol::TabSetLayout::name);
  Parsed p = parse({"tab", "set_layout", "t1", layout});
  EXPECT_EQ(p.method, protocol::TabSetLayout::name);
  EXPECT_EQ(p.params, Json({{"tab_id", "t1"}, {"layout", Json::parse(layout)}}));
}

TEST(Cli, AbsentOptionsAreOmittedFromParams) {
  EXPECT_EQ(parse({"workspace", "create"}).params, Json::object());
  EXPECT_EQ(parse({"workspace", "create", "--name", "api", "--cwd", "/tmp"}).params,
            Json({{"name", "api"}, {"cwd", "/tmp"}}));
}

TEST(Cli, BooleanFieldIsAFlagThatCanBeSetFalse) {
  EXPECT_EQ(parse({"shutdown"}).params, Json::object());
  EXPECT_EQ(parse({"shutdown", "--force"}).params, Json({{"force", true}}));
  EXPECT_EQ(parse({"shutdown", "--force=false"}).params, Json({{"force", false}}));
}

TEST(Cli, StringListIsARepeatableOption) {
  Parsed p = parse({"subscribe", "--events", "agent.*", "--events", "tab.*", "--from-seq", "5"});
  ASSERT_FALSE(p.status) << p.err;
  EXPECT_EQ(p.params, Json({{"events", {"agent.*", "tab.*"}}, {"from_seq", 5}}));
}

TEST(Cli, JsonArrayAcceptsJsonOrBareItems) {
  EXPECT_EQ(parse({"tab", "set-ratio", "t1", "[0,1]", "0.3"}).params,
            Json({{"tab_id", "t1"}, {"path", {0, 1}}, {"ratio", 0.3}}));
  EXPECT_EQ(parse({"tab", "set-ratio", "t1", "0,1", "0.3"}).params["path"], Json({0, 1}));
  EXPECT_EQ(parse({"tab", "set-ratio", "t1", "[]", "0.3"}).params["path"], Json::array());
}

TEST(Cli, InvalidJsonTextIsAUsageError) {
  Parsed p = parse({"tab", "set-layout", "t1", "{not json"});
  EXPECT_EQ(p.status, kExitUsage);
  EXPECT_NE(p.err.find("not valid JSON"), std::string::npos);
}

TEST(Cli, NonNumericIntegerIsAUsageError) {
  EXPECT_EQ(parse({"subscribe", "--from-seq", "soon"}).status, kExitUsage);
}

TEST(Cli, MissingRequiredPositionalIsAUsageError) {
  EXPECT_EQ(parse({"workspace", "get"}).status, kExitUsage);
  EXPECT_EQ(parse({"workspace", "rename", "ws_1"}).status, kExitUsage);
}

TEST(Cli, UnknownCommandOrNoCommandIsAUsageError) {
  EXPECT_EQ(parse({}).status, kExitUsage);
  EXPECT_EQ(parse({"workspace"}).status, kExitUsage);
  EXPECT_EQ(parse({"frobnicate"}).status, kExitUsage);
}

TEST(Cli, HelpExitsZeroAndDocumentsTheExitStatuses) {
  Parsed p = parse({"--help"});
  EXPECT_EQ(p.status, kExitOk);
  EXPECT_NE(p.out.find("Exit status"), std::string::npos);
  EXPECT_NE(p.out.find(std::to_string(kExitBrokerNotRunning) + "  broker not running"),
            std::string::npos);
  EXPECT_NE(p.out.find("workspace"), std::string::npos);
  EXPECT_NE(p.out.find("events"), std::string::npos);
}

TEST(Cli, GlobalOptionsMayFollowTheCommand) {
  Parsed p = parse({"workspace", "list", "--json", "--socket", "/tmp/x.sock"});
  EXPECT_FALSE(p.status) << p.err;
  EXPECT_EQ(p.method, protocol::WorkspaceList::name);
  EXPECT_EQ(p.params, Json::object());
}

TEST(Cli, NoParamsFieldShadowsAGlobalOption) {
  for (const auto& spec : command_specs(protocol::build_schema().methods))
    for (const auto& param : spec.params)
      for (const char* global : {"socket", "json", "pretty", "help", "version"})
        EXPECT_NE(dashed(param.field), global) << spec.method;
}

TEST(Cli, EventsCommandBuildsSubscribeParams) {
  Cli cli;
  Parsed p = parse({"events", "--from-seq", "3", "--events", "tab.*", "--events", "agent.*",
                    "--task-id", "task_1"},
                   cli);
  ASSERT_FALSE(p.status) << p.err;
  EXPECT_TRUE(cli.events_chosen());
  EXPECT_EQ(cli.chosen_command(), nullptr);
  const auto params = protocol::encode(cli.events_params());
  EXPECT_EQ(params, Json({{"from_seq", 3}, {"events", {"tab.*", "agent.*"}},
                          {"task_ids", {"task_1"}}}));
}

TEST(Cli, VersionPrintsTheProgramAndProjectVersionAndExitsZero) {
  Parsed p = parse({"--version"});
  EXPECT_EQ(p.status, kExitOk) << p.err;
  EXPECT_EQ(p.out, "signaltty " + std::string(kReleaseVersion) + "\n");
  EXPECT_EQ(p.err, "");
}

TEST(Cli, EventsWithoutOptionsSubscribesToEverythingLive) {
  Cli cli;
  Parsed p = parse({"events"}, cli);
  ASSERT_FALSE(p.status) << p.err;
  EXPECT_EQ(protocol::encode(cli.events_params()), Json::object());
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
