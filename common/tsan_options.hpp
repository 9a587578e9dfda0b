// common/tsan_options.hpp: the ThreadSanitizer runtime's defaults for a
// program whose core limit is part of its contract.
// Include from exactly one file of a program (its main.cpp): it defines
// the hook the TSan runtime calls before main. Under any other build it
// defines nothing.
//
// The runtime's own default (disable_coredump=1) lowers RLIMIT_CORE to 0
// before main. The broker records the user's core limit at start and the
// ptyhost passes its own to the pane's program, so under TSan a user's
// `ulimit -c` would silently become 0 in every pane. TSAN_OPTIONS set in
// the environment still override this (the ptyhost starts with a clean
// environment, so for it this is the only place).
#pragma once

#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_options() { return "disable_coredump=0"; }
#endif
