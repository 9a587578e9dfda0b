// common/page_buffer.hpp: PageBuffer, a read buffer of whole pages mapped
// on its own, whose pages cost nothing until read into and go back to the
// kernel when a long-lived process goes quiet.
// Runs in: ptyhost (the PTY read-ahead ring, on the reader thread, and the
// broker-socket read buffer).
// Never: give_back() while the buffer holds bytes not yet taken out, or
// from another thread than the one that reads into it: they read back as
// zeros. (A read that is only waiting for readiness is fine: the kernel
// writes into the buffer during the read call itself, on that thread.)
#pragma once

#include <cstddef>

namespace signaltty {

// A heap buffer of the same size would share its first and last pages with
// neighbouring allocations, so those stay resident, and glibc cannot hand
// back pages a buffer touched while the buffer lives. Here untouched pages
// are never resident, and give_back() drops the touched ones (one madvise).
class PageBuffer {
 public:
  // `bytes` is rounded up to whole pages; throws std::bad_alloc when the
  // kernel maps none.
  explicit PageBuffer(std::size_t bytes);
  ~PageBuffer();
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  char* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Returns the pages to the kernel; the buffer stays usable and reads as
  // zeros until written. A no-op unless something was read in since the
  // last call (mark_used), so a quiet process pays for it once.
  void give_back();
  void mark_used() { used_ = true; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  bool used_ = false;
};

}  // namespace signaltty
