// cli/human_output.cpp: the human views of method results, one per result
// type of the method table, chosen by overload.
// Runs in: CLI. Never: reads a result as raw JSON when its declared type
// decodes (only the generic fallback walks JSON).
#include "cli/human_output.hpp"

#include <algorithm>

#include "cli/table.hpp"
#include "cli/terminal_text.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;

constexpr auto kDumpErrors = Json::error_handler_t::replace;

template <class E>
std::string name_of(E value) {
  return protocol::Codec<E>::encode(value).template get<std::string>();
}

std::string or_dash(const std::optional<std::string>& value) { return value.value_or("-"); }

std::string duration(std::uint64_t seconds) {
  const std::uint64_t h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
  if (h > 0) return std::to_string(h) + "h " + std::to_string(m) + "m " + std::to_string(s) + "s";
  if (m > 0) return std::to_string(m) + "m " + std::to_string(s) + "s";
  return std::to_string(s) + "s";
}

std::size_t pane_count(const protocol::Layout& layout) {
  if (layout.type == protocol::Layout::Type::Pane) return 1;
  return (layout.first ? pane_count(*layout.first) : 0) +
         (layout.second ? pane_count(*layout.second) : 0);
}

std::string git_summary(const protocol::WorkspaceGit& git) {
  std::string out = git.detached ? "(detached)" : git.branch.value_or("(no branch)");
  if (git.dirty.value_or(false)) out += ", dirty";
  return out + " in " + *git.root;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// ---- views, one per result type ------------------------------------------

void render(const protocol::ServerStatusResult& r, std::ostream& out) {
  KeyValues()
      .add("version", r.version)
      .add("protocol", r.protocol)
      .add("uptime", duration(r.uptime_s))
      .add("workspaces", std::to_string(r.workspaces))
      .add("tabs", std::to_string(r.tabs))
      .add("panes", std::to_string(r.panes))
      .add("live panes", std::to_string(r.live_panes))
      .add("seq", std::to_string(r.seq))
      .print(out);
}

std::string method_flags(const protocol::SchemaMethod& m) {
  std::vector<std::string> flags;
  if (m.mutating) flags.emplace_back("mutating");
  if (m.connection_bound) flags.emplace_back("connection-bound");
  if (m.single_flight) flags.emplace_back("single-flight");
  return flags.empty() ? "-" : join(flags, ",");
}

void render(const protocol::ServerSchemaResult& r, std::ostream& out) {
  out << printable(r.protocol) << " (broker " << printable(r.version) << "): " << r.methods.size() << " methods, "
      << r.events.size() << " events, " << r.codes.size() << " error codes\n\n";
  Table methods({"METHOD", "FLAGS", "SUMMARY"});
  for (const auto& m : r.methods)
    methods.add_row({m.name, method_flags(m),
                     m.summary + (m.implemented ? "" : " (not implemented yet)")});
  methods.print(out);
  out << "\nevents: " << printable(join(r.events, ", ")) << "\ncodes: " << printable(join(r.codes, ", "))
      << '\n';
}

void render(const protocol::ServerShutdownResult& r, std::ostream& out) {
  out << (r.stopped ? "stopped" : "not stopped") << '\n';
}

KeyValues workspace_block(const protocol::Workspace& ws) {
  KeyValues kv;
  kv.add("id", ws.id).add("handle", ws.handle).add("name", ws.name).add("cwd", ws.cwd);
  if (ws.git.root) kv.add("git", git_summary(ws.git));
  kv.add("tabs", std::to_string(ws.tabs.size()));
  if (ws.active_tab_id) kv.add("active tab", *ws.active_tab_id);
  if (!ws.created_at.empty()) kv.add("created", ws.created_at);
  return kv;
}

void render(const protocol::WorkspaceResult& r, std::ostream& out) {
  workspace_block(r.workspace).print(out);
}

void render(const protocol::WorkspaceListResult& r, std::ostream& out) {
  if (r.workspaces.empty()) {
    out << "no workspaces\n";
    return;
  }
  Table table({"HANDLE", "NAME", "ID", "TABS", "CWD"});
  for (const auto& ws : r.workspaces)
    table.add_row({ws.handle, ws.name, ws.id, std::to_string(ws.tabs.size()), ws.cwd});
  table.print(out);
}

void print_tabs(const protocol::WorkspaceGetResult& r, std::ostream& out) {
  if (r.tabs.empty()) {
    out << "tabs: none\n";
    return;
  }
  out << "tabs:\n";
  Table table({"ID", "TITLE", "PANES", "ACTIVE"});
  for (const auto& tab : r.tabs) {
    auto panes = std::count_if(r.panes.begin(), r.panes.end(),
                               [&](const protocol::Pane& p) { return p.tab_id == tab.id; });
    table.add_row({tab.id, tab.title, std::to_string(panes),
                   r.workspace.active_tab_id == tab.id ? "*" : ""});
  }
  table.print(out);
}

void print_panes(const std::vector<protocol::Pane>& panes, std::ostream& out) {
  if (panes.empty()) {
    out << "panes: none\n";
    return;
  }
  out << "panes:\n";
  Table table({"ID", "NAME", "TITLE", "LIFECYCLE", "ATTENTION", "PID"});
  for (const auto& p : panes)
    table.add_row({p.id, or_dash(p.name), p.title, name_of(p.lifecycle), name_of(p.attention),
                   p.pid.has_value() ? std::to_string(*p.pid) : "-"});
  table.print(out);
}

void render(const protocol::WorkspaceGetResult& r, std::ostream& out) {
  workspace_block(r.workspace).print(out);
  out << '\n';
  print_tabs(r, out);
  out << '\n';
  print_panes(r.panes, out);
}

void render(const protocol::TabResult& r, std::ostream& out) {
  const auto& tab = r.tab;
  KeyValues kv;
  kv.add("id", tab.id).add("workspace", tab.workspace_id).add("title", tab.title);
  kv.add("panes", tab.layout.has_value() ? std::to_string(pane_count(*tab.layout)) : "0");
  if (tab.active_pane_id) kv.add("active pane", *tab.active_pane_id);
  if (!tab.created_at.empty()) kv.add("created", tab.created_at);
  kv.print(out);
}

void render(const protocol::ClosedResult& r, std::ostream& out) {
  out << (r.closed ? "closed" : "not closed") << '\n';
}

// ---- pane views -------------------------------------------------------------

std::string process_summary(const protocol::Pane& p) {
  if (p.live.state != "exited")
    return p.live.state + (p.pid.has_value() ? " (pid " + std::to_string(*p.pid) + ")" : "");
  if (p.exit_signal && p.exit_signal->has_value()) return "exited (signal " + **p.exit_signal + ")";
  if (p.live.code && p.live.code->has_value())
    return "exited (code " + std::to_string(**p.live.code) + ")";
  return "exited";
}

void print_pane(const protocol::Pane& p, std::ostream& out) {
  KeyValues kv;
  kv.add("id", p.id);
  if (p.name) kv.add("name", *p.name);
  kv.add("workspace", p.workspace_id).add("tab", p.tab_id);
  if (!p.title.empty()) kv.add("title", p.title);
  kv.add("command", join(p.argv, " ")).add("cwd", p.cwd);
  kv.add("size", std::to_string(p.pty_size.cols) + "x" + std::to_string(p.pty_size.rows));
  kv.add("process", process_summary(p));
  kv.add("lifecycle", name_of(p.lifecycle)).add("attention", name_of(p.attention));
  if (!p.created_at.empty()) kv.add("created", p.created_at);
  kv.print(out);
}

void render(const protocol::PaneResult& r, std::ostream& out) { print_pane(r.pane, out); }
void render(const protocol::PaneGetResult& r, std::ostream& out) { print_pane(r.pane, out); }

void render(const protocol::PaneLaunchResult& r, std::ostream& out) {
  print_pane(r.pane, out);
  if (r.integration && r.integration->notice)
    out << "notice: " << printable(*r.integration->notice) << '\n';
}

// The text itself, lines and tabs kept: reads are for reading. Escape
// sequences (strip_ansi false) print as \x1b...; --json has the bytes.
void print_text(const std::string& text, std::ostream& out) {
  out << printable(text, LineBreaks::Keep);
  if (!text.empty() && text.back() != '\n') out << '\n';
}

void render(const protocol::PaneReadResult& r, std::ostream& out) { print_text(r.text, out); }
void render(const protocol::PaneWaitForOutputResult& r, std::ostream& out) {
  print_text(r.matched_line, out);
}

void render(const protocol::PaneInputResult& r, std::ostream& out) {
  out << "wrote " << r.written << (r.written == 1 ? " byte" : " bytes") << '\n';
}

void render(const protocol::PaneSignalResult& r, std::ostream& out) {
  out << (r.sent ? "sent" : "not sent") << '\n';
}

void render(const protocol::SubscribeResult& r, std::ostream& out) {
  out << (r.subscribed ? "subscribed" : "not subscribed") << " at seq " << r.seq << '\n';
  if (!r.replay) return;
  const auto& replay = *r.replay;
  out << "replay: " << name_of(replay.status) << ", " << replay.returned << " events in ("
      << replay.requested_after << ", " << replay.through << "]";
  if (replay.recovery) out << "; recovery: " << printable(*replay.recovery);
  out << '\n';
}

// ---- fallback ---------------------------------------------------------------

std::string scalar_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, kDumpErrors);
}

void render_generic(const Json& result, std::ostream& out) {
  if (!result.is_object()) {
    out << printable(scalar_text(result)) << '\n';
    return;
  }
  if (result.empty()) {
    out << "ok\n";
    return;
  }
  KeyValues kv;
  for (const auto& [key, value] : result.items()) kv.add(key, scalar_text(value));
  kv.print(out);
}

template <class R>
concept HasView = requires(const R& result, std::ostream& out) { render(result, out); };

}  // namespace

void render_human(std::string_view method, const Json& result, std::ostream& out) {
  bool rendered = false;
  protocol::for_each_type<protocol::AllMethods>([&]<class M>() {
    if constexpr (HasView<typename M::Result>) {
      if (rendered || M::name != method) return;
      auto typed = protocol::decode<typename M::Result>(result);
      if (!typed.ok()) return;
      render(*typed, out);
      rendered = true;
    }
  });
  if (!rendered) render_generic(result, out);
}

void render_json(const Json& result, JsonStyle style, std::ostream& out) {
  out << json_for_terminal(result.dump(style == JsonStyle::Pretty ? 2 : -1, ' ', false, kDumpErrors))
      << '\n';
}

}  // namespace signaltty::cli
