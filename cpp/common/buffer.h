// Output buffers for large arrays handed to NumPy.
//
// Big blocks come straight from mmap, so they go back to the operating system
// when NumPy frees them (glibc keeps freed heap blocks once it has raised its
// mmap threshold, which makes a reader's memory creep up chunk after chunk).
// Elements are default-initialized: resize() does not zero memory that the
// parser overwrites anyway, and reserved pages that are never written are
// never resident.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define MB_HAVE_MMAP 1
#endif

namespace mb {

constexpr size_t kMmapThreshold = size_t(1) << 20;

// kMapLarge: blocks of kMmapThreshold bytes or more come from mmap (Buffer); else always
// from malloc (HeapBuffer).
template <typename T, bool kMapLarge = true>
struct BufferAllocator {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = BufferAllocator<U, kMapLarge>;
  };

  BufferAllocator() noexcept = default;
  template <typename U>
  BufferAllocator(const BufferAllocator<U, kMapLarge>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (n > size_t(-1) / sizeof(T)) throw std::bad_alloc();
#ifdef MB_HAVE_MMAP
    if (kMapLarge && bytes >= kMmapThreshold) {
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
#endif
    void* p = std::malloc(bytes ? bytes : 1);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
#ifdef MB_HAVE_MMAP
    if (kMapLarge && n * sizeof(T) >= kMmapThreshold) {
      munmap(p, n * sizeof(T));
      return;
    }
#endif
    (void)n;
    std::free(p);
  }

  // Default-initialize (no zero fill) when constructed without arguments.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <typename U>
  bool operator==(const BufferAllocator<U, kMapLarge>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const BufferAllocator<U, kMapLarge>&) const noexcept { return false; }
};

template <typename T>
using Buffer = std::vector<T, BufferAllocator<T>>;

// Per-minibatch outputs (gathers): allocated and freed once per minibatch, mostly with the
// same size, so the heap hands the same block back; mapped memory would be faulted in page
// by page every time (about 1 ms for the 7 MB of a 4096-frame HTK minibatch with context).
// The engine's large dense outputs come from a pool instead (engine/assemble.h, OutArena):
// glibc maps or trims blocks of that size once chunks no longer raise its thresholds.
template <typename T>
using HeapBuffer = std::vector<T, BufferAllocator<T, false>>;

}  // namespace mb
