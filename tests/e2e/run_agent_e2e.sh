#!/usr/bin/env bash
# tests/e2e/run_agent_e2e.sh: the end-to-end test of one real agent CLI in a
# signaltty pane (agent_e2e.js says what is checked).
#
#   run_agent_e2e.sh BIN_DIR claude|codex hooks|screen
#
# 1. Installs the pinned agent with npm into a cache outside the tree, once:
#    ${SIGNALTTY_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/signaltty-e2e}.
#    This is the only download.
# 2. Enters new network, pid and mount namespaces: only `lo` is up, so the
#    agent reaches nothing but the fake model API on 127.0.0.1, and every
#    process started in there ends when the run does. As root
#    `unshare --net`; otherwise in a user namespace mapped to root; neither
#    possible: skipped (status 77).
# 3. Runs agent_e2e.js there.
#
# SIGNALTTY_E2E_KEEP=1 keeps the run's temporary directory after a pass too.
set -euo pipefail

readonly SKIP_STATUS=77
readonly CLAUDE_PACKAGE=@anthropic-ai/claude-code CLAUDE_VERSION=2.1.332
readonly CODEX_PACKAGE=@openai/codex CODEX_VERSION=0.171.0
readonly NAMESPACES=(--net --pid --fork --kill-child --mount-proc)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE

log() { printf 'e2e: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
skip() { log "SKIPPED: $*"; exit "${SKIP_STATUS}"; }

usage() {
  echo "usage: $0 BIN_DIR claude|codex hooks|screen" >&2
  exit 2
}

cache_dir() {
  printf '%s' "${SIGNALTTY_E2E_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/signaltty-e2e}"
}

package_of() { [[ "$1" == claude ]] && echo "${CLAUDE_PACKAGE}" || echo "${CODEX_PACKAGE}"; }
version_of() { [[ "$1" == claude ]] && echo "${CLAUDE_VERSION}" || echo "${CODEX_VERSION}"; }

# The agent's executable in an install prefix, if it runs and is the pinned
# version. Claude's npm package puts its native binary over bin/claude.exe in
# a postinstall step; where that step did not run, the platform package's
# binary is the same program.
agent_executable() {
  local agent="$1" prefix="$2" version candidate
  version="$(version_of "${agent}")"
  local candidates=("${prefix}/node_modules/.bin/${agent}")
  if [[ "${agent}" == claude ]]; then
    candidates+=("${prefix}"/node_modules/@anthropic-ai/claude-code-linux-*/claude)
  fi
  for candidate in "${candidates[@]}"; do
    [[ -x "${candidate}" ]] || continue
    if "${candidate}" --version 2>/dev/null | grep -qF "${version}"; then
      printf '%s\n' "${candidate}"
      return 0
    fi
  done
  return 1
}

# Installs the pinned package unless the cache has it, into a fresh prefix
# renamed into place, so a failed install leaves nothing half-done. One
# installer at a time (flock), as ctest may run two of these tests at once.
install_agent() {
  local agent="$1" cache prefix
  cache="$(cache_dir)"
  prefix="${cache}/${agent}-$(version_of "${agent}")"
  mkdir -p "${cache}"
  exec 9>"${cache}/.install.lock"
  flock 9
  if ! agent_executable "${agent}" "${prefix}" >/dev/null; then
    command -v npm >/dev/null 2>&1 || die "npm is needed to install $(package_of "${agent}")"
    local fresh="${prefix}.partial.$$"
    rm -rf "${fresh}" "${prefix}"
    log "installing $(package_of "${agent}")@$(version_of "${agent}") into ${prefix}"
    npm install --prefix "${fresh}" --no-audit --no-fund --no-save --loglevel=error \
      "$(package_of "${agent}")@$(version_of "${agent}")" >&2 ||
      { rm -rf "${fresh}"; die "npm install of $(package_of "${agent}") failed"; }
    mv "${fresh}" "${prefix}"
  fi
  exec 9>&-
  agent_executable "${agent}" "${prefix}" ||
    die "$(package_of "${agent}")@$(version_of "${agent}") in ${prefix} does not run"
}

# Re-runs this script inside the namespaces, as root or else as root of a
# user namespace.
enter_namespaces() {
  command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is not installed"
  command -v ip >/dev/null 2>&1 || skip "ip (iproute2) is not installed"
  local probe=(ip link set lo up)
  if [[ "$(id -u)" -eq 0 ]] && unshare "${NAMESPACES[@]}" -- "${probe[@]}" 2>/dev/null; then
    exec unshare "${NAMESPACES[@]}" -- "$0" --inside "$@"
  fi
  if unshare --user --map-root-user "${NAMESPACES[@]}" -- "${probe[@]}" 2>/dev/null; then
    exec unshare --user --map-root-user "${NAMESPACES[@]}" -- "$0" --inside "$@"
  fi
  skip "cannot make a network namespace (neither root with unshare --net nor an unprivileged" \
    "user namespace is allowed here)"
}

# Pid 1 of the namespace: brings up lo, runs the driver and reaps whatever
# it leaves behind; its exit ends every process left in the namespace.
inside() {
  local bin_dir="$1" agent="$2" route="$3" agent_bin="$4"
  ip link set lo up
  node "${HERE}/agent_e2e.js" --bin-dir "${bin_dir}" --agent "${agent}" --agent-bin "${agent_bin}" \
    --agent-version "$(version_of "${agent}")" --path "${route}" &
  local driver=$!
  local status=0
  wait "${driver}" || status=$?
  return "${status}"
}

main() {
  if [[ "${1:-}" == --inside ]]; then
    shift
    inside "$@"
    return
  fi
  [[ $# -eq 3 ]] || usage
  local bin_dir="$1" agent="$2" route="$3"
  [[ "${agent}" == claude || "${agent}" == codex ]] || usage
  [[ "${route}" == hooks || "${route}" == screen ]] || usage
  bin_dir="$(cd "${bin_dir}" && pwd)"
  for program in signaltty signaltty-broker signaltty-ptyhost signaltty-hookrelay; do
    [[ -x "${bin_dir}/${program}" ]] || die "${bin_dir}/${program} was not built"
  done
  command -v node >/dev/null 2>&1 || die "node is needed for the fake model APIs and the driver"
  local agent_bin
  agent_bin="$(install_agent "${agent}")"
  enter_namespaces "${bin_dir}" "${agent}" "${route}" "${agent_bin}"
}

main "$@"
