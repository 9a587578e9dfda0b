#!/bin/sh
# tests/fuzz/run.sh TARGET SECONDS [libFuzzer options...]: builds
# tests/fuzz/fuzz_TARGET.cpp as a libFuzzer program (clang, ASan, UBSan) in
# its own build dir and runs it for SECONDS on its seed corpus.
#   TARGET   a name from tests/fuzz/fuzz_<name>.cpp, e.g. client_line
#   SECONDS  how long to fuzz (libFuzzer's -max_total_time)
# New inputs that reach new code go to <build dir>/corpus/TARGET (the seed
# corpus in the repository is only read); crashes, timeouts and
# out-of-memory inputs go to tests/fuzz/crashers/TARGET/, which ctest
# replays with the corpus once it exists (commit the file with the fix).
# Environment: SIGNALTTY_FUZZ_BUILD_DIR (default build-fuzz), JOBS (build
# parallelism, default 2), FUZZ_CC and FUZZ_CXX (default: the newest
# clang-NN from 16 up). Extra arguments go to the fuzzer as they are,
# e.g. -runs=1000000 or -max_len=65536.
set -eu

if [ $# -lt 2 ]; then
  echo "usage: tests/fuzz/run.sh TARGET SECONDS [libFuzzer options...]" >&2
  echo "targets:" $(cd "$(dirname "$0")" && ls fuzz_*.cpp | sed -e 's/^fuzz_//' -e 's/\.cpp$//' \
    | grep -v '^replay_main$') >&2
  exit 2
fi
target=$1
seconds=$2
shift 2

root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/tests/fuzz
if [ ! -f "$src/fuzz_$target.cpp" ] || [ "$target" = replay_main ]; then
  echo "run.sh: no fuzz target '$target' (tests/fuzz/fuzz_$target.cpp)" >&2
  exit 2
fi
build=${SIGNALTTY_FUZZ_BUILD_DIR:-$root/build-fuzz}

# A separate clang build: everything instrumented for coverage, ASan and
# UBSan (SIGNALTTY_FUZZ in CMakeLists.txt). Hardening is off (fortified
# libc calls would hide from ASan), and so are the static ptyhost and the
# benchmarks, which no fuzzer links.
# Clang 16 or later: the code uses std::source_location, which libstdc++
# gives clang from 15 on, and libstdc++ 12's ranges need 16 (Debian:
# apt install clang-16 libclang-rt-16-dev). FUZZ_CC and FUZZ_CXX pick
# another compiler.
if [ -z "${FUZZ_CXX:-}" ]; then
  for version in 19 18 17 16; do
    if command -v "clang++-$version" >/dev/null; then
      FUZZ_CC=clang-$version FUZZ_CXX=clang++-$version
      break
    fi
  done
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=${FUZZ_CC:-clang} CXX=${FUZZ_CXX:-clang++} cmake -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIGNALTTY_FUZZ=ON -DSIGNALTTY_HARDENING=OFF \
    -DSIGNALTTY_STATIC_PTYHOST=OFF \
    -DSIGNALTTY_BUILD_BENCH=OFF
fi
cmake --build "$build" --target "fuzz_$target" -j "${JOBS:-2}"

corpus=$build/corpus/$target
crashers=$src/crashers/$target
mkdir -p "$corpus" "$crashers"
seeds=$src/corpus/$target
# The first directory receives what the fuzzer finds; the others are read.
set -- -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$crashers/" "$@" \
  "$corpus" "$seeds"
if [ -n "$(ls -A "$crashers")" ]; then
  set -- "$@" "$crashers"
fi
# check_printf=0: libvterm 0.1.4 answers an unknown DECRQSS with
# printf("%.s", (int)len, text); glibc prints nothing for a zero precision
# and reads no string, but ASan's printf check reads it as a pointer.
# The sanitizers' own search for llvm-symbolizer fails with clang 16's
# runtime ("invalid path to external symbolizer"); without symbols, the
# LeakSanitizer suppressions (matched by source file) match nothing.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  cxx_version=$(basename "${FUZZ_CXX:-clang++}" | sed -n 's/^clang++-//p')
  for candidate in ${cxx_version:+/usr/lib/llvm-$cxx_version/bin/llvm-symbolizer} \
      "$(command -v "llvm-symbolizer${cxx_version:+-$cxx_version}" || true)" \
      "$(command -v llvm-symbolizer || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      ASAN_SYMBOLIZER_PATH=$(readlink -f "$candidate")
      export ASAN_SYMBOLIZER_PATH
      break
    fi
  done
fi
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-check_printf=0} \
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/lsan_suppressions.txt} \
  "$build/bin/fuzz_$target" "$@" || status=$?
# An empty crashers dir is not kept (ctest only replays one with files).
rmdir "$crashers" 2>/dev/null || true
exit $status
