// One minibatch of every stream in one pass (see assemble.h).
#include "assemble.h"

#include <algorithm>
#include <cstring>

#include "select.h"

namespace mb::engine {
namespace {

constexpr size_t kAlign = 64;

size_t aligned(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Sample ranges of the picks in one stream (whole sequences, or the picks' segments).
bool pick_ranges(const ChunkStream* chunks, size_t source_count, size_t stream_count, size_t k,
                 const PickList& picks, HeapBuffer<int64_t>* start, HeapBuffer<int64_t>* length) {
  start->resize(picks.count);
  length->resize(picks.count);
  for (size_t i = 0; i < picks.count; ++i) {
    const int32_t s = picks.source[i];
    if (s < 0 || size_t(s) >= source_count) return false;
    const ChunkStream& c = chunks[size_t(s) * stream_count + k];
    const int64_t w = picks.within[i];
    if (w < 0 || w + 1 >= c.offset_count) return false;
    int64_t first = c.offsets[w], n = c.offsets[w + 1] - first;
    if (first < 0 || n < 0) return false;
    if (picks.first != nullptr) {
      const int64_t skip = picks.first[i], take = picks.length[i];
      if (skip < 0 || take < 0 || skip > n - take) return false;
      first += skip;
      n = take;
    }
    (*start)[i] = first;
    (*length)[i] = n;
  }
  return true;
}

// The window every picked chunk of stream k has (-1, -1 for none), or false when they differ.
bool common_window(const ChunkStream* chunks, size_t source_count, size_t stream_count, size_t k,
                   int32_t* left, int32_t* right) {
  *left = source_count ? chunks[k].left : -1;
  *right = source_count ? chunks[k].right : -1;
  for (size_t s = 1; s < source_count; ++s) {
    const ChunkStream& c = chunks[s * stream_count + k];
    if (c.left != *left || c.right != *right) return false;
  }
  return true;
}

// Where `bytes` of dense output go: the arena when it has room, else a block of the pool when
// they are large and there is one, else a new buffer.
uint8_t* dense_target(OutArena* arena, size_t bytes, StreamResult* r) {
  if (arena != nullptr && arena->data != nullptr && arena->used <= arena->capacity &&
      bytes <= arena->capacity - arena->used) {
    r->where = StreamResult::kArena;
    r->arena_offset = arena->used;
    r->arena_bytes = bytes;
    arena->used = std::min(arena->capacity, arena->used + aligned(bytes));
    return arena->data + r->arena_offset;
  }
  if (arena != nullptr && arena->pool != nullptr && bytes >= kMmapThreshold) {
    r->where = StreamResult::kPooled;
    r->pooled = LentBlock(arena->pool, bytes);
    return static_cast<uint8_t*>(r->pooled.data());
  }
  r->where = StreamResult::kNew;
  r->values.resize(bytes);
  return r->values.data();
}

bool contiguous(size_t source_count, const PickList& picks, const HeapBuffer<int64_t>& start,
                const HeapBuffer<int64_t>& length) {
  if (source_count != 1 || picks.count == 0) return false;
  for (size_t i = 1; i < picks.count; ++i) {
    if (start[i] != start[i - 1] + length[i - 1]) return false;
  }
  return true;
}

AssembleStatus gather_sparse(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                             size_t k, const StreamSpec& spec, const Pieces& pieces,
                             StreamResult* r) {
  const size_t index_bytes = source_count ? chunks[k].index_item : 1;
  std::vector<CsrSource> sources;
  for (size_t s = 0; s < source_count; ++s) {
    const ChunkStream& c = chunks[s * stream_count + k];  // CSR arrays present (checked_rows)
    if (c.index_item != index_bytes || index_bytes == 0) return AssembleStatus::kShapeMismatch;
    const int64_t nnz = int64_t(std::min(c.value_bytes / spec.item_bytes,
                                         c.index_bytes / index_bytes));
    sources.push_back({c.values, c.indices, c.indptr, c.indptr_count - 1, nnz});
  }
  CsrOutput out;
  if (!gather_csr(sources.data(), source_count, spec.item_bytes, index_bytes, pieces, &out)) {
    return AssembleStatus::kBadCsr;
  }
  r->values = std::move(out.values);
  r->indices = std::move(out.indices);
  r->indptr = std::move(out.indptr);
  return AssembleStatus::kOk;
}

AssembleStatus gather_context(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                              size_t k, const StreamSpec& spec, const Pieces& pieces, int64_t rows,
                              int32_t left, int32_t right, OutArena* arena, StreamResult* r) {
  const size_t row_bytes = spec.item_bytes / size_t(1 + left + right);  // a stored row (checked)
  std::vector<ContextSource> sources;
  for (size_t s = 0; s < source_count; ++s) {
    const ChunkStream& c = chunks[s * stream_count + k];
    sources.push_back({c.values, int64_t(c.value_bytes / row_bytes), c.bounds, c.bound_count});
  }
  uint8_t* target = dense_target(arena, size_t(rows) * spec.item_bytes, r);
  context_gather(sources.data(), source_count, row_bytes, pieces, left, right, target);
  return AssembleStatus::kOk;
}

AssembleStatus gather_rows(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                           size_t k, const StreamSpec& spec, const Pieces& pieces, int64_t rows,
                           bool one_run, OutArena* arena, StreamResult* r) {
  std::vector<DenseSource> sources;
  for (size_t s = 0; s < source_count; ++s) {
    const ChunkStream& c = chunks[s * stream_count + k];
    sources.push_back({c.values, int64_t(c.value_bytes / spec.item_bytes)});
  }
  if (one_run) {  // the caller views the chunk's rows
    r->where = StreamResult::kView;
    r->view_first = pieces.count ? pieces.start[0] : 0;
    return AssembleStatus::kOk;
  }
  uint8_t* target = dense_target(arena, size_t(rows) * spec.item_bytes, r);
  size_t written = 0;
  gather_dense_into(sources.data(), source_count, spec.item_bytes, pieces, target,
                    size_t(rows) * spec.item_bytes, &written);
  return AssembleStatus::kOk;
}

void layout_of(const StreamSpec& spec, StreamResult* r) {
  const HeapBuffer<int64_t>& l = r->lengths;
  const size_t n = l.size();
  bool equal = true;
  r->width = 0;
  for (size_t i = 0; i < n; ++i) {
    r->width = std::max(r->width, l[i]);
    equal = equal && l[i] == l[0];
    if (spec.frames && r->not_one < 0 && l[i] != 1) r->not_one = int64_t(i);
  }
  if (equal) {
    r->num_rows = int64_t(n);
    return;
  }
  r->rows.resize(n);
  r->starts.resize(n);
  r->num_rows = first_fit(l.data(), n, r->rows.data(), r->starts.data());
}

// The earlier stream with the same lengths (its layout is this one's), or -1.
int32_t same_lengths(const std::vector<StreamResult>& done, size_t first, size_t stop,
                     const HeapBuffer<int64_t>& lengths) {
  for (size_t j = first; j < stop; ++j) {
    const HeapBuffer<int64_t>& other = done[j].lengths;
    if (other.size() == lengths.size() &&
        std::equal(other.begin(), other.end(), lengths.begin())) {
      return int32_t(j - first);
    }
  }
  return -1;
}

// Samples in stream k of chunk s as the spec reads them (-1: the values do not fit the spec).
int64_t chunk_rows(const ChunkStream& c, const StreamSpec& spec, int32_t left, int32_t right) {
  if (spec.sparse) {
    return c.indptr != nullptr && c.indices != nullptr && c.indptr_count >= 1 ? c.indptr_count - 1
                                                                               : -1;
  }
  const size_t row_bytes = left >= 0 ? spec.item_bytes / size_t(1 + left + right) : spec.item_bytes;
  if (row_bytes == 0 || c.value_bytes % row_bytes != 0) return -1;
  if (left >= 0 && row_bytes * size_t(1 + left + right) != spec.item_bytes) return -1;
  return int64_t(c.value_bytes / row_bytes);
}

// Checks every range against its chunk; the total samples, or a status.
AssembleStatus checked_rows(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                            size_t k, const StreamSpec& spec, int32_t left, int32_t right,
                            const Pieces& pieces, int64_t* rows) {
  std::vector<int64_t> available(source_count);
  for (size_t s = 0; s < source_count; ++s) {
    available[s] = chunk_rows(chunks[s * stream_count + k], spec, left, right);
    if (available[s] < 0) {
      return spec.sparse ? AssembleStatus::kNotSparse : AssembleStatus::kShapeMismatch;
    }
  }
  uint64_t total = 0;
  for (size_t i = 0; i < pieces.count; ++i) {  // start, length >= 0 (pick_ranges)
    if (pieces.start[i] > available[size_t(pieces.source[i])] - pieces.length[i]) {
      return AssembleStatus::kOutOfRange;
    }
    total += uint64_t(pieces.length[i]);
  }
  *rows = int64_t(total);
  return AssembleStatus::kOk;
}

AssembleStatus assemble_stream(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                               size_t k, const StreamSpec& spec, const PickList& picks,
                               OutArena* arena, StreamResult* r) {
  HeapBuffer<int64_t> start;
  if (!pick_ranges(chunks, source_count, stream_count, k, picks, &start, &r->lengths)) {
    return AssembleStatus::kOutOfRange;
  }
  int32_t left, right;
  if (!common_window(chunks, source_count, stream_count, k, &left, &right)) {
    return AssembleStatus::kShapeMismatch;
  }
  if (spec.sparse && left >= 0) return AssembleStatus::kShapeMismatch;
  const Pieces pieces{picks.source, start.data(), r->lengths.data(), picks.count};
  int64_t rows = 0;
  const AssembleStatus checked =
      checked_rows(chunks, source_count, stream_count, k, spec, left, right, pieces, &rows);
  if (checked != AssembleStatus::kOk || !spec.gather) return checked;
  if (spec.sparse) {
    return gather_sparse(chunks, source_count, stream_count, k, spec, pieces, r);
  }
  if (left >= 0) {
    return gather_context(chunks, source_count, stream_count, k, spec, pieces, rows, left, right,
                          arena, r);
  }
  const bool one_run = contiguous(source_count, picks, start, r->lengths);
  return gather_rows(chunks, source_count, stream_count, k, spec, pieces, rows, one_run, arena, r);
}

}  // namespace

AssembleStatus assemble(const ChunkStream* chunks, size_t source_count, size_t stream_count,
                        const StreamSpec* specs, const PickList& picks, OutArena* arena,
                        std::vector<StreamResult>* out) {
  const size_t first = out->size();
  for (size_t k = 0; k < stream_count; ++k) {
    if (specs[k].item_bytes == 0) return AssembleStatus::kShapeMismatch;
    out->emplace_back();
    StreamResult& r = out->back();
    const AssembleStatus status =
        assemble_stream(chunks, source_count, stream_count, k, specs[k], picks, arena, &r);
    if (status != AssembleStatus::kOk) return status;
    if (!specs[k].layout) continue;
    r.layout_of = same_lengths(*out, first, first + k, r.lengths);
    if (r.layout_of < 0) layout_of(specs[k], &r);
  }
  return AssembleStatus::kOk;
}

std::vector<int64_t> delivered_picks(const int32_t* source, const int64_t* within, size_t count,
                                     const int64_t* const* skipped, const size_t* skipped_count) {
  std::vector<int64_t> kept;
  kept.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const int64_t* list = skipped[source[i]];
    if (!std::binary_search(list, list + skipped_count[source[i]], within[i])) {
      kept.push_back(int64_t(i));
    }
  }
  return kept;
}

}  // namespace mb::engine
