// Mapped blocks that are reused: a reader's chunk-sized arrays, and the engine's large dense
// minibatch outputs (one pool per chunk registry, that is per MinibatchSource).
//
// Memory from mmap goes back to the system when it is unmapped, where glibc keeps freed heap
// blocks under later small ones once its dynamic mmap threshold has risen (a reader's resident
// memory then creeps past its window). But a fresh mapping costs a page fault per 4 KiB page
// and unmapping it a TLB shootdown: for HTK chunks, read at memory speed, that doubled the CPU
// of a sweep. A pool keeps up to `keep` freed blocks and hands one to a request it fits, so a
// reader that drops a chunk and loads the next reuses the resident pages.
//
// * A new block is mapped with 1/8 headroom (virtual only: pages never written are never
//   resident), so that the next chunk, a little larger, still fits it.
// * A kept block fits a request when it is at most 1/4 + 1 MiB larger: a small request never
//   pins the resident pages of a much larger block. A request that no kept block fits unmaps
//   them before it maps its own: peak memory is the live blocks', as without a pool.
// * A block given back to a full pool replaces a kept one (round robin; the caller unmaps
//   that one): the kept blocks follow the sizes the reader asks for now.
// * Lock-free (atomic slots; a kept block's size is written in its first bytes), so threads
//   loading chunks in parallel never wait, and a fork() while another thread takes or gives
//   a block leaves no held lock behind (the child at worst misses that one block).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define MB_POOL_MMAP 1
#endif

namespace mb {

class BufferPool {
 public:
  static constexpr size_t kMaxKeep = 8;
  static constexpr size_t kMaxBytes = size_t(1) << 48;  // larger requests: std::bad_alloc

  struct Block {
    void* data = nullptr;
    size_t size = 0;  // bytes mapped
  };

  // Keeps at most `keep` freed blocks (more than kMaxKeep: kMaxKeep; the binding rejects it);
  // 0 maps every request afresh and hands it back to be unmapped.
  explicit BufferPool(size_t keep) : keep_(keep < kMaxKeep ? keep : kMaxKeep) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() {
    for (auto& slot : slots_) free(unpark(slot.exchange(nullptr)));
  }

  size_t keep() const { return keep_; }

  // A block of at least `bytes` (one when zero): a kept one that fits, else a new mapping,
  // after unmapping the kept blocks (none fits this reader's sizes now, and resident memory
  // never holds kept blocks next to a new one). Throws std::bad_alloc when the system has no
  // memory or bytes > kMaxBytes.
  Block take(size_t bytes) {
    if (bytes > kMaxBytes) throw std::bad_alloc();
    const size_t want = bytes ? bytes : 1;
    std::array<Block, kMaxKeep> misfits{};
    size_t count = 0;
    for (size_t i = 0; i < keep_; ++i) {
      const Block kept = unpark(slots_[i].exchange(nullptr));
      if (kept.data == nullptr) continue;
      if (kept.size >= want && kept.size - want <= want / 4 + (size_t(1) << 20)) {
        for (size_t j = 0; j < count; ++j) free(give(misfits[j]));  // back, for other sizes
        return kept;
      }
      misfits[count++] = kept;
    }
    for (size_t j = 0; j < count; ++j) free(misfits[j]);
    const size_t size = round(want + want / 8);
    return {map(size), size};
  }

  // Takes back a block from take(). Returns the block the caller must free() (out of any lock
  // or interpreter lock it holds: unmapping takes a while): none (data null) when `b` is kept
  // in a free slot, else the kept block that `b` replaced, or `b` itself when keep is 0.
  [[nodiscard]] Block give(Block b) noexcept {
    if (b.data == nullptr) return {};
    if (keep_ == 0) return b;
    static_cast<Header*>(b.data)->size = b.size;
    for (size_t i = 0; i < keep_; ++i) {
      void* empty = nullptr;
      if (slots_[i].compare_exchange_strong(empty, b.data)) return {};
    }
    const size_t slot = next_.fetch_add(1, std::memory_order_relaxed) % keep_;
    return unpark(slots_[slot].exchange(b.data));
  }

  // Unmaps a block (nothing when its data is null).
  static void free(Block b) noexcept {
    if (b.data == nullptr) return;
#ifdef MB_POOL_MMAP
    munmap(b.data, b.size);
#else
    std::free(b.data);
#endif
  }

 private:
  struct Header {
    size_t size;
  };

  static Block unpark(void* data) noexcept {
    if (data == nullptr) return {};
    return {data, static_cast<Header*>(data)->size};
  }

  static size_t round(size_t bytes) {
    constexpr size_t kGranule = size_t(1) << 16;  // a multiple of every page size
    return (bytes + kGranule - 1) / kGranule * kGranule;
  }

  static void* map(size_t bytes) {
#ifdef MB_POOL_MMAP
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
#else
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
#endif
  }

  const size_t keep_;
  std::array<std::atomic<void*>, kMaxKeep> slots_{};
  std::atomic<size_t> next_{0};  // the slot a give() to a full pool replaces
};

// A block lent by a pool for `bytes` bytes: given back (and unmapped when the pool does not keep
// it) when destroyed, unless release()d first. Move-only; an empty one holds nothing.
class LentBlock {
 public:
  LentBlock() = default;
  LentBlock(BufferPool* pool, size_t bytes) : pool_(pool), block_(pool->take(bytes)), bytes_(bytes) {}
  LentBlock(LentBlock&& other) noexcept
      : pool_(other.pool_), block_(other.release()), bytes_(other.bytes_) {}
  LentBlock& operator=(LentBlock&& other) noexcept {
    if (this != &other) {
      reset();
      pool_ = other.pool_;
      bytes_ = other.bytes_;
      block_ = other.release();
    }
    return *this;
  }
  LentBlock(const LentBlock&) = delete;
  LentBlock& operator=(const LentBlock&) = delete;
  ~LentBlock() { reset(); }

  void* data() const { return block_.data; }
  size_t bytes() const { return bytes_; }  // as asked for (the block may be larger)

  // The block, which the caller now gives back; this one is left empty.
  BufferPool::Block release() noexcept {
    const BufferPool::Block b = block_;
    block_ = {};
    return b;
  }

 private:
  void reset() noexcept {
    if (block_.data != nullptr) BufferPool::free(pool_->give(release()));
  }

  BufferPool* pool_ = nullptr;
  BufferPool::Block block_{};
  size_t bytes_ = 0;
};

}  // namespace mb
