// One minibatch of every stream in one pass: the picked sequences' sample
// ranges, the gathers (dense rows, CSR rows, rows with context windows) and
// CNTK's first-fit layouts, over the streams of loaded chunks. The engine's
// per-minibatch work after the enumerator's walk (docs/design/engine-speed.md).
//
// Pure functions over caller-owned arrays: the binding (cpp/bindings/chunk_registry.cc)
// validates every registered chunk (offsets increasing inside the values,
// context bounds valid) and releases the GIL around assemble().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/buffer.h"
#include "../common/buffer_pool.h"
#include "gather.h"

namespace mb::engine {

// One stream of one loaded chunk.
struct ChunkStream {
  const int64_t* offsets = nullptr;  // sequence offsets into the samples (sequences + 1)
  int64_t offset_count = 0;
  const uint8_t* values = nullptr;   // dense rows, or sparse value records
  size_t value_bytes = 0;
  const uint8_t* indices = nullptr;  // sparse: index records of index_item bytes
  size_t index_bytes = 0;
  size_t index_item = 0;
  const int64_t* indptr = nullptr;   // sparse: samples + 1 offsets into the records
  int64_t indptr_count = 0;
  const int64_t* bounds = nullptr;   // context windows: segments (ContextSource's rule)
  int64_t bound_count = 0;
  int32_t left = -1, right = -1;     // context window; -1: none
};

// What a stream delivers.
struct StreamSpec {
  size_t item_bytes = 0;   // dense: bytes of a delivered row (context windows expanded);
                           // sparse: bytes of a value
  bool sparse = false;     // CSR rows (every chunk's indices have one index_item)
  bool frames = false;     // frame mode: report the first sequence without exactly one sample
  bool layout = true;      // compute the first-fit layout
  bool gather = true;      // false: the lengths only (ranges checked, nothing copied)
};

// The picks: sequence within[i] of source chunk source[i]; with segments, only
// its samples [first[i], first[i] + count[i]).
struct PickList {
  const int32_t* source = nullptr;
  const int64_t* within = nullptr;
  size_t count = 0;
  const int64_t* first = nullptr;  // optional (truncated BPTT segments)
  const int64_t* length = nullptr;
};

// A caller's buffer for dense values (the DataLoader worker ring): streams are
// placed one after another, each at a multiple of 64 bytes from `data`. Dense
// values that do not go there and take kMmapThreshold bytes or more come from
// `pool` when there is one (a minibatch's blocks, once its arrays are dropped,
// serve the next: no page faults, as from the heap; docs/design/engine-speed.md).
struct OutArena {
  uint8_t* data = nullptr;
  size_t capacity = 0;
  size_t used = 0;
  BufferPool* pool = nullptr;
};

struct StreamResult {
  enum Where { kNew, kView, kArena, kPooled };
  Where where = kNew;
  HeapBuffer<int64_t> lengths;
  HeapBuffer<uint8_t> values;   // kNew: dense rows or sparse value records
  HeapBuffer<uint8_t> indices;  // sparse
  HeapBuffer<int64_t> indptr;   // sparse
  int64_t view_first = 0;   // kView: rows [view_first, +sum(lengths)) of the only chunk
  size_t arena_offset = 0, arena_bytes = 0;  // kArena
  LentBlock pooled;         // kPooled: dense rows in its first pooled.bytes() bytes
  // layout: every sequence in a row of its own (rows empty) or CNTK's first fit
  int64_t num_rows = 0, width = 0;
  HeapBuffer<int64_t> rows, starts;
  int32_t layout_of = -1;   // >= 0: the same lengths (and layout) as that earlier stream
  int64_t not_one = -1;     // spec.frames: the first pick without exactly one sample
};

enum class AssembleStatus {
  kOk,
  kOutOfRange,       // a sequence or sample range lies outside its chunk
  kBadCsr,           // a sparse chunk's indptr decreases or passes its records
  kShapeMismatch,    // a chunk's values do not fit the stream (row size, context window,
                     // index size)
  kNotSparse,        // a sparse stream's chunk has no CSR arrays
};

// Every stream of the picks. `chunks` holds stream k of source s at
// chunks[s * stream_count + k]. Results are appended to `out` (one per stream).
// Dense values go to `arena` (may be null) while it has room, unless they are one
// contiguous run of one chunk (kView).
AssembleStatus assemble(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                        const StreamSpec* specs, const PickList& picks, OutArena* arena,
                        std::vector<StreamResult>* out);

// Positions (in the picks) of the picks not in their chunk's skipped list;
// skipped[s] is sorted (skipped_count[s] entries).
std::vector<int64_t> delivered_picks(const int32_t* source, const int64_t* within, size_t count,
                                     const int64_t* const* skipped, const size_t* skipped_count);

}  // namespace mb::engine
