#!/usr/bin/env bash
# tests/bench/bench_hookrelay.sh: what an agent hook pays for running
# signaltty-hookrelay: the whole process, start to exit, against a broker
# that is down and against a live stand-in broker, next to /bin/true in
# the same run. Prints the median of each and its ratio to /bin/true.
# Usage: bench_hookrelay.sh RELAY FAKE_BROKER [RUNS]
set -euo pipefail

relay=${1:?usage: bench_hookrelay.sh RELAY FAKE_BROKER [RUNS]}
fake=${2:?usage: bench_hookrelay.sh RELAY FAKE_BROKER [RUNS]}
runs=${3:-200}

dir=$(mktemp -d /tmp/signaltty-bench-hookrelay-XXXXXX)
chmod 700 "$dir"
fake_pid=
cleanup() {
  if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

payload='{"session_id":"bench","hook_event_name":"Stop","last_assistant_message":"done"}'
printf '%s' "$payload" >"$dir/payload.json"

# Median wall time in microseconds of `runs` runs of "$@" (stdin: the payload).
median_us() {
  local samples=() i start end
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$@" <"$dir/payload.json" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    samples+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

"$fake" "$dir/live.sock" &
fake_pid=$!
for _ in $(seq 100); do [[ -S $dir/live.sock ]] && break; sleep 0.02; done
[[ -S $dir/live.sock ]] || { echo "bench_hookrelay: the stand-in broker did not start" >&2; exit 1; }

true_us=$(median_us /bin/true)
down_us=$(SIGNALTTY_SOCKET=$dir/down.sock median_us "$relay" --agent claude --event Stop --pane pane_bench)
live_us=$(SIGNALTTY_SOCKET=$dir/live.sock median_us "$relay" --agent claude --event Stop --pane pane_bench)

printf '%-34s %12s %10s\n' "bench_hookrelay ($runs runs)" "median_us" "x_true"
for row in "/bin/true:$true_us" "hookrelay, broker down:$down_us" "hookrelay, live stand-in broker:$live_us"; do
  name=${row%%:*} us=${row##*:}
  awk -v n="$name" -v us="$us" -v t="$true_us" 'BEGIN { printf "%-34s %12d %10.2f\n", n, us, (t > 0 ? us / t : 0) }'
done
