// common/heap_trim.hpp: give_back_free_heap(), for a long-lived process at
// a moment after which it mostly idles (the ptyhost once its program runs,
// the broker once a snapshot has landed); shrink_when_small(), for a read
// buffer that one large message grew.
// Never: calls give_back_free_heap on a hot path; malloc_trim walks every
// arena.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <string>

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

// A read buffer keeps up to `kept_bytes` of room between messages; past
// that, once what it holds fits in half of it (the large message that grew
// it is consumed), the room goes back. Each reader picks `kept_bytes` above
// the size of its usual batch, so a steady stream never reallocates.
inline void shrink_when_small(std::string& buffer, std::size_t kept_bytes) {
  if (buffer.capacity() > kept_bytes && buffer.size() <= kept_bytes / 2) buffer.shrink_to_fit();
}

}  // namespace signaltty
