// common/page_buffer.cpp: PageBuffer over an anonymous private mapping.
// Runs in: ptyhost.
#include "common/page_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "common/check.hpp"

namespace signaltty {
namespace {

std::size_t whole_pages(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

PageBuffer::PageBuffer(std::size_t bytes) : size_(whole_pages(bytes == 0 ? 1 : bytes)) {
  void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<char*>(p);
}

PageBuffer::~PageBuffer() { ::munmap(data_, size_); }

void PageBuffer::give_back() {
  if (!used_) return;
  used_ = false;
  // MADV_DONTNEED on a private anonymous mapping cannot fail for a range
  // this object mapped; the pages read as zeros from here on.
  check_invariant(::madvise(data_, size_, MADV_DONTNEED) == 0, "madvise of a read buffer");
}

}  // namespace signaltty
