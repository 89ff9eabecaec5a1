// Gathering sample ranges of several source arrays into one output array.
//
// Type-agnostic: rows are fixed-size byte records (a dense sample of `dim`
// values), sparse rows are CSR ranges of value and index records. The caller
// validates shapes; the kernels check every range against its source.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../common/buffer.h"

namespace mb::engine {

struct DenseSource {
  const uint8_t* data;  // row-major records of `row_bytes`
  int64_t rows;
};

struct CsrSource {
  const uint8_t* values;   // nnz records of `value_bytes`
  const uint8_t* indices;  // nnz records of `index_bytes`
  const int64_t* indptr;   // rows + 1 offsets into values/indices
  int64_t rows;
  int64_t nnz;             // records available in values and indices
};

struct Pieces {
  const int32_t* source;  // source of each piece
  const int64_t* start;   // first row in the source
  const int64_t* length;  // rows
  size_t count;
};

// Output rows of every piece, in order. Returns false when a range lies
// outside its source (nothing useful is written then).
bool gather_dense(const DenseSource* sources, size_t source_count, size_t row_bytes,
                  const Pieces& pieces, HeapBuffer<uint8_t>* out);

// The same into `dst`, which holds `capacity` bytes; `*written` is set to the
// bytes the rows take. Returns false, writing nothing, when a range lies
// outside its source or the rows do not fit (then `*written` is what they need).
bool gather_dense_into(const DenseSource* sources, size_t source_count, size_t row_bytes,
                       const Pieces& pieces, uint8_t* dst, size_t capacity, size_t* written);

struct CsrOutput {
  HeapBuffer<uint8_t> values;
  HeapBuffer<uint8_t> indices;
  HeapBuffer<int64_t> indptr;
};

bool gather_csr(const CsrSource* sources, size_t source_count, size_t value_bytes,
                size_t index_bytes, const Pieces& pieces, CsrOutput* out);

// Rows with neighbours (HTK context windows): output row i of a piece is the
// concatenation of the rows clamp(r + j, ub, ue - 1), j = -left..right, where r
// is the piece's row i and [ub, ue) the segment of `bounds` that holds it.
struct ContextSource {
  const uint8_t* data;    // row-major records of `row_bytes`
  int64_t rows;
  const int64_t* bounds;  // increasing, bounds[0] == 0, bounds[bound_count - 1] == rows
  int64_t bound_count;
};

// Whether `bounds` satisfy ContextSource's rule (the gather relies on it).
bool context_bounds_valid(const ContextSource& source);

// Rows of every piece with their neighbours, in order, to `out` (sum of lengths
// rows of row_bytes * (1 + left + right) bytes). Every source's bounds must be
// valid (context_bounds_valid); returns false when a range lies outside its source
// or left/right is negative (nothing useful is written then).
bool context_gather(const ContextSource* sources, size_t source_count, size_t row_bytes,
                    const Pieces& pieces, int32_t left, int32_t right, uint8_t* out);

// Sample ranges of sequences: piece i is sequence `within[i]` of `offsets[source[i]]`.
bool sequence_ranges(const int64_t* const* offsets, const int64_t* offset_counts,
                     size_t source_count, const int32_t* source, const int64_t* within, size_t n,
                     int64_t* start, int64_t* length);

}  // namespace mb::engine
