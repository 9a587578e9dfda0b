// common/integrations/opencode_plugin.cpp: the text of our OpenCode plugin
// (docs/rules.md "Agent integrations").
// Runs in: CLI and broker. Never: touches a file.
#include "common/integrations/opencode_plugin.hpp"

#include <nlohmann/json.hpp>

#include "common/limits.hpp"

namespace signaltty::integrations {
namespace {

// Everything after the header and the two constants. The plugin forwards
// OpenCode's own event names; the relay and the broker classify them.
constexpr std::string_view kBody = R"JS(
const ANSWERED = new Set(["busy", "idle"]);

function report(name, payload) {
  if (!process.env.SIGNALTTY_PANE) return Promise.resolve();
  return new Promise((resolve) => {
    let timer;
    const done = () => { clearTimeout(timer); resolve(); };
    try {
      const child = spawn(RELAY, ["--agent", "opencode", "--event", name],
                          { stdio: ["pipe", "ignore", "ignore"] });
      timer = setTimeout(() => { try { child.kill("SIGKILL"); } catch {} done(); }, TIMEOUT_MS);
      child.on("error", done);
      child.on("close", done);
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch {
      done();
    }
  });
}

function sessionIdOf(event) {
  const p = event.properties || {};
  return p.sessionID ?? p.sessionId ?? p.session_id ?? p.info?.id ?? event.sessionID;
}

function statusOf(event) {
  const status = event.properties?.status;
  const type = typeof status === "string" ? status : status?.type;
  return ANSWERED.has(type) ? type : undefined;
}

function errorMessageOf(event) {
  const error = event.properties?.error;
  const text = error?.data?.message ?? error?.message ?? error?.name ?? event.properties?.message;
  return typeof text === "string" && text !== "" ? text : "session error";
}

function translate(event) {
  const session_id = sessionIdOf(event);
  switch (event?.type) {
    case "session.created": return ["session.created", { session_id }];
    case "session.idle": return ["session.idle", { session_id }];
    case "session.status": {
      const status = statusOf(event);
      return status ? ["session.status", { session_id, status }] : undefined;
    }
    case "session.error":
    case "session.execution.failed":
      return ["session.error", { session_id, message: errorMessageOf(event) }];
    default: return undefined;
  }
}

export const SignalttyPlugin = async () => ({
  event: async ({ event }) => {
    try {
      const forwarded = translate(event || {});
      if (forwarded) await report(forwarded[0], forwarded[1]);
    } catch {}
  },
});

export default SignalttyPlugin;
)JS";

// A JavaScript string literal (JSON's is one); a path that is not UTF-8
// has none.
Result<std::string> js_string(std::string_view text) {
  try {
    return nlohmann::json(std::string(text)).dump();
  } catch (const nlohmann::json::exception&) {
    return bad_params("the hook reporter path is not UTF-8: " + std::string(text));
  }
}

}  // namespace

Result<std::string> opencode_plugin_text(std::string_view reporter) {
  if (!reporter.starts_with('/'))
    return bad_params("the hook reporter path is not absolute: " + std::string(reporter));
  std::string text(kOpencodeHeader);
  text += "\n// Rewritten by `signaltty integration install opencode`; edits are lost.\n";
  text += "import { spawn } from \"node:child_process\";\n\n";
  SIGNALTTY_TRY(std::string quoted, js_string(reporter));
  text += "const RELAY = " + quoted + ";\n";
  text += "const TIMEOUT_MS = " + std::to_string(limits::kOpencodeRelayTimeoutMs) + ";\n";
  text += kBody;
  return text;
}

bool is_our_opencode_plugin(std::string_view text) {
  return text.starts_with(kOpencodeHeader) &&
         (text.size() == kOpencodeHeader.size() || text[kOpencodeHeader.size()] == '\n');
}

}  // namespace signaltty::integrations
