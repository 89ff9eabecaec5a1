// Gather kernels (see gather.h).
#include "gather.h"

#include <algorithm>
#include <cstring>

namespace mb::engine {
namespace {

// Random gathers are bound by memory latency: touch the start of the piece
// kPrefetchAhead places ahead while copying the current one (its first
// kPrefetchBytes; the hardware prefetcher streams the rest of a long piece).
// Measured on 3 KiB rows scattered over 200 MB: about 25% faster. The hardware
// prefetcher stops at a 4 KiB page, so the first line of the piece's next page
// is touched too (most 3 KiB rows cross one): about 3% faster again (1 GB file).
constexpr size_t kPrefetchAhead = 2;
constexpr size_t kPrefetchBytes = 512;
constexpr size_t kIndexAhead = 8;  // the same for the (small) index entries of a piece
// A context window (11 rows of 160 bytes in HTK's usual setup) is fetched whole.
constexpr size_t kContextPrefetchBytes = 2048;

constexpr uintptr_t kPageBytes = 4096;

inline void prefetch(const uint8_t* p, size_t bytes, size_t cap = kPrefetchBytes) {
#if defined(__GNUC__) || defined(__clang__)
  const size_t n = bytes < cap ? bytes : cap;
  for (size_t at = 0; at < n; at += 64) __builtin_prefetch(p + at, 0, 3);
#else
  (void)p;
  (void)bytes;
  (void)cap;
#endif
}

// prefetch(), and the first line of the next page when the piece reaches it
// beyond what prefetch() touched.
inline void prefetch_rows(const uint8_t* p, size_t bytes) {
  prefetch(p, bytes);
  const uintptr_t next_page = (reinterpret_cast<uintptr_t>(p) | (kPageBytes - 1)) + 1;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (next_page - start >= kPrefetchBytes && next_page - start < bytes) {
    prefetch(p + (next_page - start), 1);
  }
}

template <typename Source>
bool in_range(const Source* sources, size_t source_count, const Pieces& p, size_t i) {
  const int32_t s = p.source[i];
  if (s < 0 || size_t(s) >= source_count) return false;
  const int64_t start = p.start[i], length = p.length[i];
  return start >= 0 && length >= 0 && start <= sources[s].rows - length;
}

// Prefetches the indptr entry of piece j, when j is a valid piece.
void prefetch_indptr(const CsrSource* sources, size_t source_count, const Pieces& p, size_t j) {
  if (j >= p.count) return;
  const int32_t s = p.source[j];
  if (s < 0 || size_t(s) >= source_count) return;
  if (p.start[j] < 0 || p.start[j] > sources[s].rows) return;
  prefetch(reinterpret_cast<const uint8_t*>(sources[s].indptr + p.start[j]), 8);
}

// The rows of a piece must have increasing offsets inside the source's records.
bool csr_rows_valid(const CsrSource& s, int64_t start, int64_t length) {
  int64_t previous = s.indptr[start];
  if (previous < 0) return false;
  for (int64_t r = start + 1; r <= start + length; ++r) {
    if (s.indptr[r] < previous) return false;
    previous = s.indptr[r];
  }
  return previous <= s.nnz;
}

}  // namespace

namespace {

// Rows of every piece, in order, to dst (the caller checked every range and the room).
void copy_rows(const DenseSource* sources, size_t row_bytes, const Pieces& pieces, uint8_t* dst) {
  for (size_t i = 0; i < pieces.count; ++i) {
    if (i + kPrefetchAhead < pieces.count) {
      const size_t j = i + kPrefetchAhead;
      prefetch_rows(sources[pieces.source[j]].data + size_t(pieces.start[j]) * row_bytes,
                    size_t(pieces.length[j]) * row_bytes);
    }
    const size_t bytes = size_t(pieces.length[i]) * row_bytes;
    if (bytes == 0) continue;
    std::memcpy(dst, sources[pieces.source[i]].data + size_t(pieces.start[i]) * row_bytes, bytes);
    dst += bytes;
  }
}

// Rows of all pieces, or -1 when a range lies outside its source.
int64_t checked_rows(const DenseSource* sources, size_t source_count, const Pieces& pieces) {
  uint64_t rows = 0;
  for (size_t i = 0; i < pieces.count; ++i) {
    if (!in_range(sources, source_count, pieces, i)) return -1;
    rows += uint64_t(pieces.length[i]);
  }
  return int64_t(rows);
}

}  // namespace

bool gather_dense(const DenseSource* sources, size_t source_count, size_t row_bytes,
                  const Pieces& pieces, HeapBuffer<uint8_t>* out) {
  const int64_t rows = checked_rows(sources, source_count, pieces);
  if (rows < 0) return false;
  out->resize(size_t(rows) * row_bytes);
  copy_rows(sources, row_bytes, pieces, out->data());
  return true;
}

bool gather_dense_into(const DenseSource* sources, size_t source_count, size_t row_bytes,
                       const Pieces& pieces, uint8_t* dst, size_t capacity, size_t* written) {
  const int64_t rows = checked_rows(sources, source_count, pieces);
  *written = 0;
  if (rows < 0) return false;
  *written = size_t(rows) * row_bytes;
  if (*written > capacity) return false;
  copy_rows(sources, row_bytes, pieces, dst);
  return true;
}

bool gather_csr(const CsrSource* sources, size_t source_count, size_t value_bytes,
                size_t index_bytes, const Pieces& pieces, CsrOutput* out) {
  uint64_t rows = 0, nnz = 0;
  for (size_t i = 0; i < pieces.count; ++i) {
    prefetch_indptr(sources, source_count, pieces, i + kIndexAhead);
    if (!in_range(sources, source_count, pieces, i)) return false;
    const CsrSource& s = sources[pieces.source[i]];
    if (!csr_rows_valid(s, pieces.start[i], pieces.length[i])) return false;
    rows += uint64_t(pieces.length[i]);
    nnz += uint64_t(s.indptr[pieces.start[i] + pieces.length[i]] - s.indptr[pieces.start[i]]);
  }
  out->indptr.resize(size_t(rows) + 1);
  out->values.resize(size_t(nnz) * value_bytes);
  out->indices.resize(size_t(nnz) * index_bytes);
  int64_t* ptr = out->indptr.data();
  *ptr = 0;
  int64_t at = 0;
  for (size_t i = 0; i < pieces.count; ++i) {
    const CsrSource& s = sources[pieces.source[i]];
    if (i + kIndexAhead < pieces.count) {  // sparse rows are short: look further ahead
      const size_t j = i + kIndexAhead;
      const CsrSource& t = sources[pieces.source[j]];
      const int64_t at = t.indptr[pieces.start[j]];
      const size_t count = size_t(t.indptr[pieces.start[j] + pieces.length[j]] - at);
      prefetch(t.values + size_t(at) * value_bytes, count * value_bytes);
      prefetch(t.indices + size_t(at) * index_bytes, count * index_bytes);
    }
    const int64_t first = s.indptr[pieces.start[i]];
    const int64_t last = s.indptr[pieces.start[i] + pieces.length[i]];
    for (int64_t r = pieces.start[i]; r < pieces.start[i] + pieces.length[i]; ++r) {
      *++ptr = at + (s.indptr[r + 1] - first);
    }
    const size_t count = size_t(last - first);
    if (count) {
      std::memcpy(out->values.data() + size_t(at) * value_bytes,
                  s.values + size_t(first) * value_bytes, count * value_bytes);
      std::memcpy(out->indices.data() + size_t(at) * index_bytes,
                  s.indices + size_t(first) * index_bytes, count * index_bytes);
    }
    at += int64_t(count);
  }
  return true;
}

bool context_bounds_valid(const ContextSource& c) {
  if (c.rows < 0 || c.bound_count < 1 || c.bounds[0] != 0 ||
      c.bounds[c.bound_count - 1] != c.rows) {
    return false;
  }
  for (int64_t k = 1; k < c.bound_count; ++k) {
    if (c.bounds[k] < c.bounds[k - 1]) return false;
  }
  return true;
}

namespace {

// The expanded rows of one piece (its range checked) to out; returns the end of what it wrote.
uint8_t* context_piece(const ContextSource& c, size_t row_bytes, int64_t start, int64_t length,
                       int32_t left, int32_t right, uint8_t* out) {
  const int64_t* end = c.bounds + c.bound_count;
  const int64_t* u = std::upper_bound(c.bounds, end, start) - 1;
  const size_t width = row_bytes * size_t(1 + left + right);
  for (int64_t r = start; r < start + length; ++r) {
    while (u + 1 < end && r >= u[1]) ++u;
    const int64_t lo = u[0], hi = u[1] - 1;
    if (r - left >= lo && r + right <= hi) {  // inside the segment: the window is contiguous
      std::memcpy(out, c.data + size_t(r - left) * row_bytes, width);
      out += width;
      continue;
    }
    for (int64_t j = -int64_t(left); j <= int64_t(right); ++j) {
      std::memcpy(out, c.data + size_t(std::clamp(r + j, lo, hi)) * row_bytes, row_bytes);
      out += row_bytes;
    }
  }
  return out;
}

}  // namespace

bool context_gather(const ContextSource* sources, size_t source_count, size_t row_bytes,
                    const Pieces& pieces, int32_t left, int32_t right, uint8_t* out) {
  if (left < 0 || right < 0) return false;
  for (size_t i = 0; i < pieces.count; ++i) {
    if (!in_range(sources, source_count, pieces, i)) return false;
  }
  const size_t width = row_bytes * size_t(1 + left + right);
  for (size_t i = 0; i < pieces.count; ++i) {
    if (i + kPrefetchAhead < pieces.count) {  // rows scattered over the window: fetch ahead
      const size_t j = i + kPrefetchAhead;
      const ContextSource& t = sources[pieces.source[j]];
      const int64_t first = std::max<int64_t>(0, pieces.start[j] - left);
      if (first < t.rows) {
        const size_t room = size_t(t.rows - first) * row_bytes;
        prefetch(t.data + size_t(first) * row_bytes, std::min(room, width), kContextPrefetchBytes);
      }
    }
    if (pieces.length[i] == 0) continue;
    out = context_piece(sources[pieces.source[i]], row_bytes, pieces.start[i], pieces.length[i],
                        left, right, out);
  }
  return true;
}

bool sequence_ranges(const int64_t* const* offsets, const int64_t* offset_counts,
                     size_t source_count, const int32_t* source, const int64_t* within, size_t n,
                     int64_t* start, int64_t* length) {
  for (size_t i = 0; i < n; ++i) {
    if (i + kIndexAhead < n) {
      const size_t j = i + kIndexAhead;
      const int32_t t = source[j];
      if (t >= 0 && size_t(t) < source_count && within[j] >= 0 && within[j] < offset_counts[t]) {
        prefetch(reinterpret_cast<const uint8_t*>(offsets[t] + within[j]), 16);
      }
    }
    const int32_t s = source[i];
    if (s < 0 || size_t(s) >= source_count) return false;
    const int64_t w = within[i];
    if (w < 0 || w + 1 >= offset_counts[s]) return false;
    start[i] = offsets[s][w];
    length[i] = offsets[s][w + 1] - start[i];
  }
  return true;
}

}  // namespace mb::engine
