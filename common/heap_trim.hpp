// common/heap_trim.hpp: give_back_free_heap(), for a long-lived process at
// a moment after which it mostly idles (the ptyhost once its program runs,
// the broker once a snapshot has landed).
// Never: called on a hot path; malloc_trim walks every arena.
#pragma once

#include <malloc.h>

namespace signaltty {

// Returns the whole free pages inside glibc's heap to the kernel. Under a
// sanitizer the allocator is the sanitizer's: glibc's trim would only
// start glibc's unused malloc, whose first use calls getrandom(2), which
// the sandboxed programs' filters do not allow; so it does nothing there.
inline void give_back_free_heap() {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  ::malloc_trim(0);
#endif
}

}  // namespace signaltty
