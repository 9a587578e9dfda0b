#!/usr/bin/env bash
# packaging/dev.sh: the developer entry point (docs/rules.md, Build and layout).
#
#   ./packaging/dev.sh run     install missing packages, build, start signaltty
#   ./packaging/dev.sh test    install missing packages, build, run every test
#   ./packaging/dev.sh bench   install missing packages, build, run the benchmarks
#   ./packaging/dev.sh e2e     install missing packages, build, run the real-agent
#                              end-to-end tests (tests/e2e, ctest label e2e)
#
# Environment:
#   SIGNALTTY_BUILD_DIR   build directory (default: build)
#   SIGNALTTY_CMAKE_ARGS  extra configure arguments, e.g. -DSIGNALTTY_SANITIZE=ON
#
# Never: installs a package that is already present, or touches anything
# outside the build directory besides the Debian packages below (and, for
# `e2e`, the agents' npm cache that tests/e2e/run_agent_e2e.sh keeps).
set -euo pipefail

readonly PACKAGES=(
  cmake g++ make pkg-config
  libboost-dev nlohmann-json3-dev libvterm-dev libseccomp-dev libgit2-dev git
  libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libre2-dev
  libtomlplusplus-dev libssl-dev
  tmux util-linux procps
  dbus  # tests only: the logind test runs a private dbus-daemon
  jq    # tests only: the skill's walkthrough (docs/skill.md) reads --json with jq
  nodejs  # tests only: the OpenCode plugin test loads the generated plugin
)
# e2e only, as command -> Debian package: the agents are installed with npm
# and run in a network namespace whose lo is brought up with ip. A command
# already present is enough (Node.js from elsewhere brings its own npm).
readonly E2E_TOOLS=(npm:npm ip:iproute2)
readonly BUILD_JOBS=2
# How long `run` waits for a background broker to answer server.status.
readonly BROKER_READY_TRIES=100
readonly BROKER_READY_TICK_S=0.1

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT_DIR
BUILD_DIR="${SIGNALTTY_BUILD_DIR:-build}"
readonly BUILD_DIR
readonly BIN_DIR="${BUILD_DIR}/bin"

usage() {
  cat >&2 <<EOF
usage: $0 run|test|bench|e2e

  run    install missing Debian packages, build, start signaltty
  test   install missing Debian packages, build, run every test (ctest)
  bench  install missing Debian packages, build, run the benchmarks
  e2e    install missing Debian packages, build, run the end-to-end tests
         with the real Claude Code and Codex CLIs (ctest -L e2e)

environment: SIGNALTTY_BUILD_DIR (default build), SIGNALTTY_CMAKE_ARGS
EOF
  exit 2
}

log() { printf 'dev.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---- packages ----------------------------------------------------------------

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null)" != "install ok installed" ]]; then
      printf '%s\n' "${pkg}"
    fi
  done
}

# Prints the command prefix that runs apt-get as root, or fails.
root_prefix() {
  if [[ "$(id -u)" -eq 0 ]]; then
    return 0
  fi
  if command -v sudo >/dev/null 2>&1; then
    printf 'sudo'
    return 0
  fi
  return 1
}

# The Debian packages of the e2e tools whose command is missing.
missing_e2e_packages() {
  local entry
  for entry in "${E2E_TOOLS[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || printf '%s\n' "${entry#*:}"
  done
}

install_missing_packages() {
  local mode="$1"
  if ! command -v dpkg-query >/dev/null 2>&1; then
    log "dpkg-query not found: not a Debian system, skipping the package check"
    return 0
  fi
  local missing
  mapfile -t missing < <(missing_packages)
  if [[ "${mode}" == e2e ]]; then
    mapfile -t -O "${#missing[@]}" missing < <(missing_e2e_packages)
  fi
  if [[ ${#missing[@]} -eq 0 ]]; then
    return 0
  fi
  local prefix
  prefix="$(root_prefix)" || die "missing packages (${missing[*]}) and neither root nor sudo"
  log "installing: ${missing[*]}"
  ${prefix} env DEBIAN_FRONTEND=noninteractive apt-get update
  ${prefix} env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# ---- build -------------------------------------------------------------------

# The benchmarks (tests/bench) are built for `bench` only: `test` and `run`
# do not need them, and CI's two cores have a time budget.
build() {
  local mode="$1" extra=() bench=OFF
  [[ "${mode}" == bench ]] && bench=ON
  if [[ -n "${SIGNALTTY_CMAKE_ARGS:-}" ]]; then
    read -r -a extra <<<"${SIGNALTTY_CMAKE_ARGS}"
  fi
  cmake -S . -B "${BUILD_DIR}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSIGNALTTY_BUILD_BENCH="${bench}" "${extra[@]}"
  cmake --build "${BUILD_DIR}" -j"${BUILD_JOBS}"
}

# ---- test / bench ------------------------------------------------------------

# Two at a time, as the build: every test waits on events with deadlines
# and owns its temporary directories, so tests never share state.
run_tests() {
  ctest --test-dir "${BUILD_DIR}" --output-on-failure -LE 'bench|e2e|long' -j"${BUILD_JOBS}"
}

# The real agents against fake model APIs (tests/e2e): one test at a time,
# and only on request, as the first run downloads both agents with npm.
run_e2e_tests() {
  ctest --test-dir "${BUILD_DIR}" --output-on-failure -L e2e
}

bench_test_count() {
  { ctest --test-dir "${BUILD_DIR}" -N -L bench 2>/dev/null || true; } |
    sed -n 's/^Total Tests: *\([0-9][0-9]*\).*/\1/p'
}

# Benchmarks registered as tests labelled `bench` run through ctest; without
# them, every benchmark executable the build produced runs in turn.
run_benchmarks() {
  local count
  count="$(bench_test_count)"
  if [[ "${count:-0}" -gt 0 ]]; then
    ctest --test-dir "${BUILD_DIR}" --output-on-failure -L bench
    return
  fi
  local found=0 exe
  while IFS= read -r exe; do
    found=1
    log "running ${exe}"
    "${exe}"
  done < <(find "${BUILD_DIR}/tests/bench" "${BIN_DIR}" -maxdepth 1 -type f -perm -u+x \
             \( -path "${BUILD_DIR}/tests/bench/*" -o -name '*bench*' \) 2>/dev/null | sort)
  if [[ ${found} -eq 0 ]]; then
    log "no benchmarks were built"
  fi
}

# ---- run ---------------------------------------------------------------------

broker_pid=""

stop_broker() {
  if [[ -n "${broker_pid}" ]] && kill -0 "${broker_pid}" 2>/dev/null; then
    kill -TERM "${broker_pid}" 2>/dev/null || true
    wait "${broker_pid}" 2>/dev/null || true
  fi
}

broker_answers() { "${BIN_DIR}/signaltty" server status >/dev/null 2>&1; }

# Starts a broker in the background (logging to the build dir) unless one
# already answers, and waits until it accepts server.status. Its stdin is
# /dev/null: the terminal belongs to the attached pane.
start_background_broker() {
  if broker_answers; then
    log "a broker is already running; using it"
    return 0
  fi
  local broker_log="${BUILD_DIR}/broker.log"
  "${BIN_DIR}/signaltty-broker" </dev/null >>"${broker_log}" 2>&1 &
  broker_pid=$!
  trap stop_broker EXIT
  local try
  for ((try = 0; try < BROKER_READY_TRIES; try++)); do
    if broker_answers; then
      return 0
    fi
    kill -0 "${broker_pid}" 2>/dev/null || die "the broker exited; see ${broker_log}"
    sleep "${BROKER_READY_TICK_S}"
  done
  die "the broker did not answer in time; see ${broker_log}"
}

live_pane_count() {
  "${BIN_DIR}/signaltty" status --json 2>/dev/null |
    sed -n 's/.*"live_panes":\([0-9][0-9]*\).*/\1/p'
}

# After the attached pane: a broker this script started stops with it,
# unless panes still run (the user detached); then it stays up for
# `signaltty attach`.
leave_broker() {
  [[ -n "${broker_pid}" ]] || return 0
  local live
  live="$(live_pane_count)"
  if [[ "${live:-0}" -gt 0 ]]; then
    trap - EXIT
    log "${live} pane(s) still running, so the broker stays up (pid ${broker_pid}, log ${BUILD_DIR}/broker.log)"
    log "reattach: ${BIN_DIR}/signaltty attach PANE (ids: ${BIN_DIR}/signaltty pane list)"
    log "stop it:  ${BIN_DIR}/signaltty shutdown --force"
  fi
}

# `signaltty new` (workspace.create + pane.spawn, attached) opens a shell
# pane on this terminal; detach with Ctrl-\ then d and the pane keeps running.
run_signaltty() {
  [[ -x "${BIN_DIR}/signaltty-broker" ]] || die "${BIN_DIR}/signaltty-broker was not built"
  [[ -x "${BIN_DIR}/signaltty" ]] || die "${BIN_DIR}/signaltty was not built"
  start_background_broker
  local status=0
  "${BIN_DIR}/signaltty" new || status=$?
  leave_broker
  return "${status}"
}

# ---- main --------------------------------------------------------------------

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
    run | test | bench | e2e) ;;
    *) usage ;;
  esac
  cd "${ROOT_DIR}"
  install_missing_packages "$1"
  build "$1"
  case "$1" in
    run) run_signaltty ;;
    test) run_tests ;;
    bench) run_benchmarks ;;
    e2e) run_e2e_tests ;;
  esac
}

main "$@"
