// tests/bench/bench_screen_rules.cpp: what the screen-classification tick
// costs per pane: evaluate() with every bundled rule of a kind on one
// 120x40 screen, cycling through the real Claude Code and Codex captures
// in tests/fixtures/agents, and the generic rules on a screen filled to
// the last column. Goal: under 200 µs per pane per tick.
// Runs in: `ctest -L bench` / packaging/dev.sh bench. Never: part of the
// default test run; figures depend on the machine.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "broker/agents/manifests.hpp"
#include "broker/agents/screen_rules.hpp"

namespace {

using signaltty::broker::agents::evaluate;
using signaltty::broker::agents::ManifestSet;
using signaltty::broker::agents::RuleSelection;
using signaltty::broker::agents::RuleTrace;
using signaltty::broker::agents::ScreenText;
using signaltty::protocol::AgentKind;

constexpr double kGoalMicros = 200;
constexpr int kCols = 120;
constexpr int kRows = 40;

// Every NAME.txt capture of one agent, one row per line.
std::vector<ScreenText> captures(const std::string& agent) {
  std::vector<ScreenText> screens;
  const std::filesystem::path dir = std::filesystem::path(SIGNALTTY_AGENT_FIXTURES) / agent;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path());
    ScreenText screen;
    for (std::string row; std::getline(in, row);) screen.rows.push_back(row);
    screens.push_back(std::move(screen));
  }
  return screens;
}

// Every row full: prose, a numbered list and box drawing, no footer.
std::vector<ScreenText> dense_screen() {
  ScreenText screen;
  for (int r = 0; r < kRows; ++r) {
    std::string row = r % 7 == 0 ? std::to_string(r) + ". Would you like to run it? " : "│ ● ";
    while (static_cast<int>(row.size()) < kCols) row += "lorem ipsum esc dolor ";
    screen.rows.push_back(row.substr(0, kCols));
  }
  return {screen};
}

void BM_Evaluate(benchmark::State& state, AgentKind kind, std::string program,
                 std::vector<ScreenText> screens) {
  const auto set = ManifestSet::bundled_only();
  const RuleSelection selection = set->rules_for(kind, program);
  if (screens.empty() || selection.rules.empty()) {
    state.SkipWithError("no screens or no rules");
    return;
  }
  std::size_t next = 0;
  for (auto _ : state) {
    RuleTrace trace = evaluate(selection.rules, screens[next]);
    benchmark::DoNotOptimize(trace);
    next = (next + 1) % screens.size();
  }
  state.counters["rules"] = static_cast<double>(selection.rules.size());
  state.counters["screens"] = static_cast<double>(screens.size());
}

BENCHMARK_CAPTURE(BM_Evaluate, claude, AgentKind::Claude, "claude", captures("claude-code-2.1.332"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Evaluate, codex, AgentKind::Codex, "codex", captures("codex-0.171.0"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Evaluate, gemini_dense, AgentKind::Generic, "gemini", dense_screen())
    ->Unit(benchmark::kMicrosecond);

// Console output, then each case's µs per evaluation against the goal.
class GoalReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs)
      if (!run.error_occurred) micros_[run.benchmark_name()] = run.GetAdjustedRealTime();
  }
  // False when a case missed the goal (or none ran).
  bool print_summary() const {
    std::printf("\nscreen rules: one evaluate() per pane per tick, %dx%d (goal < %.0f us)\n", kCols,
                kRows, kGoalMicros);
    bool met = !micros_.empty();
    for (const auto& [name, micros] : micros_) {
      std::printf("  %-28s %8.1f us  %s\n", name.c_str(), micros,
                  micros < kGoalMicros ? "ok" : "OVER GOAL");
      met = met && micros < kGoalMicros;
    }
    return met;
  }

 private:
  std::map<std::string, double> micros_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  GoalReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.print_summary();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
