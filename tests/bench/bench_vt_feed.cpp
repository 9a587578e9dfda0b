// tests/bench/bench_vt_feed.cpp: feed throughput of the ptyhost's terminal
// model against libvterm's own VTermScreen on the same realistic output
// (coloured log lines, UTF-8 with wide characters, CR progress bars, line
// rewrites), 120x40, fed in 8 KiB chunks as the output pump reads them.
// Runs in: `ctest -L bench` / packaging/dev.sh bench. Never: part of the
// default test run; figures depend on the machine.
#include <benchmark/benchmark.h>
#include <vterm.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "ptyhost/terminal.hpp"
#include "tests/ptyhost/vt_test_support.hpp"

namespace {

using signaltty::ptyhost::Terminal;
using signaltty::ptyhost::TerminalSize;

constexpr TerminalSize kSize{120, 40};
constexpr std::size_t kStreamBytes = 32u << 20;
constexpr std::size_t kChunkBytes = 8192;

const std::string& stream() {
  static const std::string bytes = [] {
    std::mt19937 rng(20240601);
    return signaltty::ptyhost::testing::realistic_log_stream(rng, kStreamBytes);
  }();
  return bytes;
}

template <class Feed>
void feed_chunks(Feed&& feed) {
  const std::string& bytes = stream();
  for (std::size_t off = 0; off < bytes.size(); off += kChunkBytes)
    feed(std::string_view(bytes).substr(off, kChunkBytes));
}

struct VTermFree {
  void operator()(VTerm* vt) const { vterm_free(vt); }
};

void BM_TerminalFeed(benchmark::State& state) {
  for (auto _ : state) {
    Terminal terminal(kSize);
    feed_chunks([&](std::string_view chunk) { terminal.feed(chunk); });
    benchmark::DoNotOptimize(terminal.head_seq());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream().size()));
}

void BM_VTermScreenFeed(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<VTerm, VTermFree> vt(vterm_new(kSize.rows, kSize.cols));
    vterm_set_utf8(vt.get(), 1);
    VTermScreen* screen = vterm_obtain_screen(vt.get());
    vterm_screen_enable_altscreen(screen, 1);
    vterm_screen_reset(screen, 1);
    feed_chunks([&](std::string_view chunk) { vterm_input_write(vt.get(), chunk.data(), chunk.size()); });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream().size()));
}

// libvterm's parser and state with callbacks that do nothing: what any
// model built on VTermState can at best reach on this machine.
int ignore_glyph(VTermGlyphInfo*, VTermPos, void*) { return 1; }
int ignore_move(VTermPos, VTermPos, int, void*) { return 1; }
int ignore_scroll(VTermRect, int, int, void*) { return 1; }
int ignore_erase(VTermRect, int, void*) { return 1; }
int ignore_pen(void*) { return 1; }
int ignore_attr(VTermAttr, VTermValue*, void*) { return 1; }
int ignore_prop(VTermProp, VTermValue*, void*) { return 1; }
int ignore_resize(int, int, VTermPos*, void*) { return 1; }
int ignore_line(int, const VTermLineInfo*, const VTermLineInfo*, void*) { return 1; }
constexpr VTermStateCallbacks kIgnore = {ignore_glyph, ignore_move, ignore_scroll, nullptr,
                                         ignore_erase, ignore_pen,  ignore_attr,   ignore_prop,
                                         ignore_pen,   ignore_resize, ignore_line};

void BM_VTermStateOnlyFeed(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<VTerm, VTermFree> vt(vterm_new(kSize.rows, kSize.cols));
    vterm_set_utf8(vt.get(), 1);
    VTermState* vstate = vterm_obtain_state(vt.get());
    vterm_state_set_callbacks(vstate, &kIgnore, nullptr);
    vterm_state_reset(vstate, 1);
    feed_chunks([&](std::string_view chunk) { vterm_input_write(vt.get(), chunk.data(), chunk.size()); });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream().size()));
}

BENCHMARK(BM_TerminalFeed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_VTermScreenFeed)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_VTermStateOnlyFeed)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Console output plus the MB/s table with Terminal's ratio to VTermScreen.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto it = run.counters.find("bytes_per_second");
      if (it != run.counters.end()) mb_per_s_[run.benchmark_name()] = it->second.value / 1e6;
    }
  }
  void print_summary() const {
    const double ours = value("BM_TerminalFeed/min_time:2.000");
    const double screen = value("BM_VTermScreenFeed/min_time:2.000");
    const double state_only = value("BM_VTermStateOnlyFeed/min_time:2.000");
    std::printf("\nstream: %zu MiB realistic output, %dx%d, %zu-byte chunks\n", kStreamBytes >> 20,
                kSize.cols, kSize.rows, kChunkBytes);
    std::printf("Terminal::feed        %8.1f MB/s\n", ours);
    std::printf("libvterm VTermScreen  %8.1f MB/s\n", screen);
    std::printf("libvterm state only   %8.1f MB/s (no-op callbacks)\n", state_only);
    if (screen > 0) std::printf("ratio Terminal / VTermScreen: %.2fx\n", ours / screen);
  }

 private:
  double value(const std::string& name) const {
    const auto it = mb_per_s_.find(name);
    return it == mb_per_s_.end() ? 0.0 : it->second;
  }
  std::map<std::string, double> mb_per_s_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_summary();
  benchmark::Shutdown();
  return 0;
}
