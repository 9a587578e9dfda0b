#!/usr/bin/env bash
# tests/bench/bench_gitdiff.sh: what `workspace.diff` costs on a large
# checkout next to the git CLI in the same run. Builds a repository of
# 10,000 committed files in 100 directories, edits 200 of them (two per
# directory, one line appended each) and adds 10 untracked files, then
# times, interleaved sample by sample:
#   git     `git diff --numstat HEAD` then `git status --porcelain`
#           (two processes, one sample), no system or user configuration;
#   worker  signaltty-gitworker alone as the launcher starts it (empty
#           environment, cwd /, --read for the checkout and its git dir),
#           request piped in, reply read: process start, sandbox and op;
#   broker  `signaltty workspace diff <handle> --json` against a real
#           broker on temporary XDG dirs: CLI start, socket round trip,
#           broker, launcher, supervisor and worker;
#   cli     `signaltty status --json` on the same broker: the CLI's own
#           start and a trivial round trip, the floor inside `broker`.
#   start   the worker given a request with no valid op: exec, libraries,
#           libgit2 init and sandbox, then exit 2: the floor inside `worker`.
# Prints the median of each after the warmups and its ratio to git, and
# PASS/FAIL for worker and broker against the goal (at most 1.5x git).
# The figures are one run on one machine: compare the ratios.
# Usage: bench_gitdiff.sh GITWORKER BROKER CLI [SAMPLES] [WARMUPS]
set -euo pipefail

usage='usage: bench_gitdiff.sh GITWORKER BROKER CLI [SAMPLES] [WARMUPS]'
worker=${1:?$usage}
broker=${2:?$usage}
cli=${3:?$usage}
samples=${4:-15}
warmups=${5:-2}
goal=1.5
files=10000 dirs=100 edits=200 untracked=10

command -v git >/dev/null || { echo "bench_gitdiff: git not found" >&2; exit 1; }

root=$(mktemp -d /tmp/signaltty-bench-gitdiff-XXXXXX)
chmod 700 "$root"
broker_pid=
cleanup() {
  if [[ -n $broker_pid ]]; then
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
  fi
  rm -rf "$root"
}
trap cleanup EXIT

repo=$root/repo
mkdir -p "$root/home" "$root/run" "$root/state" "$root/config" "$repo"
chmod 700 "$root/run"
export GIT_CONFIG_NOSYSTEM=1 HOME=$root/home
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

# ---- the repository ----------------------------------------------------------

# One commit of all files in a single pack (fast-import), then checked out.
# Loose objects one by one take tens of seconds on a slow filesystem. A
# larger malloc top pad keeps fast-import from growing its heap in tiny
# steps, which is slow where page faults are expensive (VMs).
fast_import_stream() {
  printf 'commit refs/heads/main\ncommitter bench <bench@example.invalid> 1700000000 +0000\ndata 5\ninit\n'
  local i content
  for ((i = 0; i < files; i++)); do
    printf -v content 'file %d\nsecond line\nthird line\n' "$i"
    printf 'M 100644 inline d%02d/f%05d.txt\ndata %d\n%s\n' $((i / (files / dirs))) "$i" ${#content} "$content"
  done
}

build_repo() {
  git -C "$repo" init -q -b main
  fast_import_stream | MALLOC_TOP_PAD_=268435456 git -C "$repo" fast-import --quiet
  git -C "$repo" reset -q --hard
  local i path
  for ((i = 0; i < files; i += files / edits)); do
    printf -v path '%s/d%02d/f%05d.txt' "$repo" $((i / (files / dirs))) "$i"
    printf 'an edit\n' >>"$path"
  done
  for ((i = 0; i < untracked; i++)); do
    printf -v path '%s/d%02d/new%d.txt' "$repo" "$i" "$i"
    printf 'new %d\n' "$i" >"$path"
  done
}

setup_start=${EPOCHREALTIME//[^0-9]/}
build_repo
setup_ms=$(((${EPOCHREALTIME//[^0-9]/} - setup_start) / 1000))

# ---- the broker --------------------------------------------------------------

socket=$root/run/signaltty/signaltty.sock
XDG_RUNTIME_DIR=$root/run XDG_STATE_HOME=$root/state XDG_CONFIG_HOME=$root/config \
  "$broker" --log-level warn 2>"$root/broker.log" &
broker_pid=$!
for _ in $(seq 500); do
  "$cli" --socket "$socket" status --json >/dev/null 2>&1 && break
  sleep 0.02
done
"$cli" --socket "$socket" status --json >/dev/null || { echo "bench_gitdiff: the broker did not start" >&2; exit 1; }
created=$("$cli" --socket "$socket" workspace create --cwd "$repo" --name bench --json)
handle=$(printf '%s' "$created" | grep -o '"id":"[^"]*"' | head -n1 | cut -d'"' -f4)
[[ -n $handle ]] || { echo "bench_gitdiff: no workspace id in: $created" >&2; exit 1; }

# ---- correctness, once -------------------------------------------------------

printf '{"op":"diff","repo":"%s"}' "$repo" >"$root/request.json"
printf '{"op":"none"}' >"$root/bad_request.json"
# As the launcher starts it: empty environment, cwd /. One fork and one
# exec, as each git command costs.
run_worker() {
  (cd / && exec -c "$worker" --read "$repo" --read "$repo/.git") <"$root/request.json"
}
count_paths() { grep -o '"path":"' | wc -l; }

numstat=$(git -C "$repo" diff --numstat HEAD | wc -l)
new_files=$(git -C "$repo" status --porcelain --untracked-files=all | grep -c '^??' || true)
want=$((numstat + new_files))
got_worker=$(run_worker | count_paths)
got_broker=$("$cli" --socket "$socket" workspace diff "$handle" --json | count_paths)
if ((numstat != edits || new_files != untracked || got_worker != want || got_broker != want)); then
  echo "bench_gitdiff: counts differ: git numstat $numstat + untracked $new_files," \
    "worker $got_worker, broker $got_broker" >&2
  exit 1
fi

# ---- timing ------------------------------------------------------------------

time_git() {
  git -C "$repo" diff --numstat HEAD >/dev/null
  git -C "$repo" status --porcelain >/dev/null
}
time_worker() { run_worker >/dev/null; }
time_broker() { "$cli" --socket "$socket" workspace diff "$handle" --json >/dev/null; }
time_cli() { "$cli" --socket "$socket" status --json >/dev/null; }
time_start() {
  local rc=0
  (cd / && exec -c "$worker" --read "$repo" --read "$repo/.git") <"$root/bad_request.json" &>/dev/null || rc=$?
  ((rc == 2))
}

names=(git worker broker cli start)
declare -A series
for name in "${names[@]}"; do series[$name]=; done
for ((s = 0; s < warmups + samples; s++)); do
  for name in "${names[@]}"; do
    start=${EPOCHREALTIME//[^0-9]/}
    "time_$name" || { echo "bench_gitdiff: $name failed" >&2; exit 1; }
    end=${EPOCHREALTIME//[^0-9]/}
    ((s < warmups)) || series[$name]+="$((end - start)) "
  done
done

median_us() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A median
for name in "${names[@]}"; do median[$name]=$(median_us "${series[$name]}"); done

echo "bench_gitdiff: $files files in $dirs dirs, $edits edited, $untracked untracked" \
  "(repository built in ${setup_ms} ms); $samples samples after $warmups warmups, interleaved"
echo "correctness: git numstat $numstat + untracked $new_files = $want; worker $got_worker, broker $got_broker"
printf '%-56s %10s %8s %6s\n' "" "median_ms" "x_git" "goal"
row() {
  local label=$1 name=$2 verdict=$3
  awk -v l="$label" -v us="${median[$name]}" -v g="${median[git]}" -v goal="$goal" -v v="$verdict" 'BEGIN {
    r = (g > 0 ? us / g : 0)
    if (v == "yes") v = (r <= goal ? "PASS" : "FAIL"); else v = ""
    printf "%-56s %10.1f %8.2f %6s\n", l, us / 1000, r, v
  }'
}
row "git diff --numstat HEAD + git status --porcelain" git no
row "signaltty-gitworker alone (spawn, sandbox, diff)" worker yes
row "signaltty workspace diff --json (CLI, broker, worker)" broker yes
row "signaltty status --json (CLI start + round trip)" cli no
row "signaltty-gitworker, bad request (start + sandbox)" start no
