// CTF indexer: one pass over the file bytes -> sequences (key, byte span,
// rows, first line) grouped later into chunks of about `chunk_size` bytes.
//
// Mode choice, id rules and the definition of a row are documented in
// docs/ctf-format.md ("Index"). Pure C++17, no Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../common/buffer.h"

namespace mb::ctf {

struct IndexOptions {
  bool skip_sequence_ids = false;
  std::string main_alias;  // alias of the stream that defines the minibatch size, or ""
};

enum class IndexStatus : int32_t {
  kOk = 0,
  kEmptyFile = 1,
  kUtf16Bom = 2,
  kExpectedSequenceId = 3,
  kSequenceIdOverflow = 4,
  kCancelled = 5,
};

struct IndexResult {
  IndexStatus status = IndexStatus::kOk;
  int64_t status_offset = 0;  // where the fatal problem is
  int64_t status_line = 0;
  bool line_mode = false;
  Buffer<uint64_t> keys;
  Buffer<int64_t> offsets;
  Buffer<int64_t> sizes;
  Buffer<int64_t> rows;   // budget length: rows, or rows naming the main stream
  Buffer<int64_t> lines;  // 1-based line of the first row
  int64_t total_lines = 0;
  int64_t ignored_lines = 0;   // blank or comment-only lines (not rows)
  Buffer<int64_t> dropped_offsets;  // sequences without the main stream
  Buffer<int64_t> dropped_lines;
};

// Indexes a file fed as consecutive byte blocks, so that the caller reads it
// with pread into a small buffer (no mapping: a mapped file that shrinks
// kills the process with SIGBUS). `feed` indexes the whole lines of a block
// and returns how many bytes it consumed: up to and including the last '\n',
// or everything when `final` is set. The caller passes the unconsumed tail
// again at the start of the next block. Once the status is not kOk, feeds
// consume nothing more.
class StreamingIndexer {
 public:
  explicit StreamingIndexer(const IndexOptions& options);
  ~StreamingIndexer();
  StreamingIndexer(const StreamingIndexer&) = delete;
  StreamingIndexer& operator=(const StreamingIndexer&) = delete;

  // `data[0]` is at file offset `base_offset`, which must equal the bytes
  // consumed so far.
  size_t feed(const uint8_t* data, size_t size, int64_t base_offset, bool final);
  IndexStatus status() const;
  int64_t consumed() const;
  IndexResult finish();  // moves the result out; the indexer is spent

 private:
  struct Impl;
  Impl* impl_;
};

// One-shot indexing of a buffer. `progress(bytes_done)` is called every
// 16 MiB; returning false cancels the scan (status kCancelled).
IndexResult build_index(const uint8_t* data, size_t size, const IndexOptions& options,
                        const std::function<bool(int64_t)>& progress);

// Greedy chunking of consecutive sequences (CNTK's rule): a new chunk starts
// when the current span plus the next sequence would exceed `max_chunk`.
// Returns the first sequence of every chunk followed by `count`. Offsets and
// sizes may be stored in any integer type (indexes keep them narrow).
template <typename Offset, typename Size>
std::vector<int64_t> chunk_starts(const Offset* offsets, const Size* sizes, size_t count,
                                  int64_t max_chunk) {
  std::vector<int64_t> starts;
  int64_t chunk_begin = 0, chunk_end = 0;
  for (size_t i = 0; i < count; ++i) {
    const int64_t offset = int64_t(offsets[i]), size = int64_t(sizes[i]);
    if (starts.empty() || (chunk_end - chunk_begin) + size > max_chunk) {
      starts.push_back(int64_t(i));
      chunk_begin = offset;
    }
    chunk_end = offset + size;
  }
  starts.push_back(int64_t(count));
  return starts;
}

}  // namespace mb::ctf
