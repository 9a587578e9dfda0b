// cli/pane_commands.cpp: pane list, pane send, pane input's TEXT, and the
// wait-output name. Runs in: CLI. Never: names a method; the table does.
#include "cli/pane_commands.hpp"

#include <unistd.h>

#include <cerrno>
#include <map>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/stdin_read.hpp"
#include "cli/table.hpp"
#include "common/base64.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {
namespace {

using protocol::Json;

// Piped stdin for pane input: what fits pane.input once base64'd (1 MiB).
constexpr std::size_t kStdinMaxBytes = (1u << 20) / 4 * 3;
constexpr char kCarriageReturn = '\r';
constexpr char kEscape = '\x1b';
// `pane list`: how much of a pending decision's prompt its cell shows.
constexpr std::size_t kDecisionCellPromptBytes = 40;

int report(const Error& error, const CliIo& io) {
  io.err << error_line(error) << '\n';
  return exit_code_for(error);
}

std::optional<int> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

std::optional<char> simple_escape(char c) {
  switch (c) {
    case '\\': return '\\';
    case 'r': return '\r';
    case 'n': return '\n';
    case 't': return '\t';
    case 'e': return kEscape;
    case 'a': return '\a';
    case 'b': return '\b';
    case '0': return '\0';
    default: return std::nullopt;
  }
}

// A reply that does not decode as declared is the broker's fault.
template <class T>
Result<T> decode_reply(const Json& json, std::string_view method) {
  auto decoded = protocol::decode<T>(json);
  if (!decoded.ok())
    return Error{ErrorCode::BadProtocol,
                 "unexpected " + std::string(method) + " reply: " + decoded.error().message};
  return decoded;
}

// One listed pane: its JSON as the broker sent it, and what the table shows.
struct ListedPane {
  Json json;
  protocol::Pane pane;
  std::string workspace_handle;
};

Status add_panes_of(Client& client, const std::string& workspace, std::vector<ListedPane>& out) {
  SIGNALTTY_TRY(Json got, client.call(protocol::WorkspaceGet::name, {{"workspace_id", workspace}}));
  SIGNALTTY_TRY(auto typed,
                decode_reply<protocol::WorkspaceGetResult>(got, protocol::WorkspaceGet::name));
  const Json& panes = got["panes"];
  for (std::size_t i = 0; i < typed.panes.size(); ++i)
    out.push_back({panes[i], typed.panes[i], typed.workspace.handle});
  return {};
}

Result<std::vector<ListedPane>> collect_panes(Client& client, const std::string& workspace) {
  std::vector<ListedPane> out;
  if (!workspace.empty()) {
    SIGNALTTY_RETURN_IF_ERROR(add_panes_of(client, workspace, out));
    return out;
  }
  SIGNALTTY_TRY(Json listed, client.call(protocol::WorkspaceList::name, Json::object()));
  SIGNALTTY_TRY(auto typed,
                decode_reply<protocol::WorkspaceListResult>(listed, protocol::WorkspaceList::name));
  for (const auto& ws : typed.workspaces) {
    Status added = add_panes_of(client, ws.id, out);
    // A workspace closed since the listing simply has no panes any more.
    if (!added.ok() && added.error().code != ErrorCode::NoSuchWorkspace) return added.error();
  }
  return out;
}

std::string process_state(const protocol::Pane& pane) {
  if (pane.live.state != "exited") return pane.live.state;
  if (pane.live.code && pane.live.code->has_value())
    return "exited " + std::to_string(**pane.live.code);
  return "exited";
}

std::string joined_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) out += (out.empty() ? "" : " ") + arg;
  return out;
}

// The pending decision in a cell: its prompt's first line, cut, and the
// option ids ("Allow Bash? [once|deny]"), read-only ones marked.
std::string decision_cell(const protocol::Pane& pane) {
  if (!pane.pending_decision) return "-";
  const protocol::Decision& d = *pane.pending_decision;
  std::string first = d.prompt.substr(0, d.prompt.find('\n'));
  if (first.size() > kDecisionCellPromptBytes) {
    std::size_t end = kDecisionCellPromptBytes;
    while (end > 0 && (static_cast<unsigned char>(first[end]) & 0xC0) == 0x80) --end;
    first = first.substr(0, end) + "...";
  }
  std::string options;
  for (const auto& option : d.options) options += (options.empty() ? "" : "|") + option.id;
  return first + " [" + options + "]" + (d.answerable ? "" : " (read-only)");
}

template <class E>
std::string name_of(E value) {
  return protocol::encode(value).template get<std::string>();
}

void print_pane_table(const std::vector<ListedPane>& panes, std::ostream& out) {
  if (panes.empty()) {
    out << "no panes\n";
    return;
  }
  Table table({"ID", "NAME", "WORKSPACE", "AGENT", "LIFECYCLE", "ATTENTION", "DECISION", "PROCESS",
               "COMMAND"});
  for (const auto& [json, p, handle] : panes)
    table.add_row({p.id, p.name.value_or("-"), handle, name_of(p.agent.kind), name_of(p.lifecycle),
                   name_of(p.attention), decision_cell(p), process_state(p), joined_argv(p.argv)});
  table.print(out);
}

}  // namespace

Result<std::string> decode_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 >= text.size()) return bad_params("a lone backslash ends the text");
    const char what = text[++i];
    if (auto simple = simple_escape(what)) {
      out.push_back(*simple);
      continue;
    }
    auto high = i + 1 < text.size() ? hex_digit(text[i + 1]) : std::nullopt;
    auto low = i + 2 < text.size() ? hex_digit(text[i + 2]) : std::nullopt;
    if (what != 'x' || !high || !low)
      return bad_params("unknown escape \\" + std::string(1, what) +
                        " (known: \\\\ \\r \\n \\t \\e \\a \\b \\0 \\xHH)");
    out.push_back(static_cast<char>(*high * 16 + *low));
    i += 2;
  }
  return out;
}

PaneCommands::PaneCommands(CLI::App& pane_group, const CommandBinding& input,
                           const CommandBinding& wait_for_output)
    : input_(input) {
  input_text_ = input.app().add_option(
      "text", input_text_value_,
      "bytes to write, exactly as given (the CLI base64-encodes them); without TEXT or "
      "--data-b64, piped stdin is sent");
  if (CLI::Option* b64 = input.app().get_option_no_throw("--data-b64"))
    b64->description("the bytes as base64, instead of TEXT");
  wait_for_output.app().alias("wait-output");

  list_ = pane_group.add_subcommand("list", "List panes, in every workspace or in one");
  list_->add_option("--workspace,--workspace-id,--workspace_id", list_workspace_,
                    "workspace id or handle");

  send_ = pane_group.add_subcommand(
      "send", "Type text into a pane: escapes such as \\r, \\e and \\x03 are decoded");
  send_->add_option("pane", send_pane_, "pane id or pane name")->required();
  send_->add_option("text", send_text_, "the text; \\\\ for a backslash");
  send_->add_flag("--enter", send_enter_, "press Enter (a carriage return) after the text");
}

int PaneCommands::run(Client& client, std::optional<JsonStyle> json, const CliIo& io) const {
  return list_->parsed() ? run_list(client, json, io) : run_send(client, json, io);
}

int PaneCommands::run_list(Client& client, std::optional<JsonStyle> json, const CliIo& io) const {
  auto panes = collect_panes(client, list_workspace_);
  if (!panes.ok()) return report(panes.error(), io);
  if (json) {
    Json out = {{"panes", Json::array()}};
    for (const auto& listed : *panes) out["panes"].push_back(listed.json);
    render_json(out, *json, io.out);
  } else {
    print_pane_table(*panes, io.out);
  }
  io.out.flush();
  return kExitOk;
}

int PaneCommands::run_send(Client& client, std::optional<JsonStyle> json, const CliIo& io) const {
  auto text = decode_escapes(send_text_);
  if (!text.ok()) {
    report(text.error(), io);
    return kExitUsage;
  }
  if (send_enter_) text->push_back(kCarriageReturn);
  if (text->empty()) {
    report(bad_params("nothing to send: give TEXT, --enter, or both"), io);
    return kExitUsage;
  }
  const Json params = {{"pane_id", send_pane_}, {"data_b64", base64_encode(*text)}};
  auto result = client.call(protocol::PaneInput::name, params);
  if (!result.ok()) return report(result.error(), io);
  if (json)
    render_json(*result, *json, io.out);
  else
    render_human(protocol::PaneInput::name, *result, io.out);
  io.out.flush();
  return kExitOk;
}

Result<Json> PaneCommands::params_for(const CommandBinding& command, const CliIo& io) const {
  Json params = command.params();
  if (&command != &input_) return params;
  const bool has_b64 = params.contains("data_b64");
  if (input_text_->count() > 0) {
    if (has_b64) return bad_params("give TEXT or --data-b64, not both");
    params["data_b64"] = base64_encode(input_text_value_);
    return params;
  }
  if (has_b64) return params;
  if (::isatty(io.in_fd) == 1)
    return bad_params("nothing to send: give TEXT, --data-b64, or pipe the bytes on stdin");
  SIGNALTTY_TRY(std::string bytes,
                read_to_end_bounded(io.in_fd, kStdinMaxBytes,
                                    "stdin holds more than pane.input takes at once (" +
                                        std::to_string(kStdinMaxBytes) + " bytes)"));
  params["data_b64"] = base64_encode(bytes);
  return params;
}

}  // namespace signaltty::cli
