// Binding of the engine's bookkeeping kernels (cpp/engine/select.h): checks
// arguments, releases the GIL, returns NumPy arrays that own their memory.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../common/buffer.h"
#include "../engine/gather.h"
#include "../engine/select.h"
#include "owned.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T>
using Vec1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using IntArray = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T, typename A>
nb::object numpy_of(std::vector<T, A>&& values) {
  return mb::bindings::owned_numpy(std::move(values));
}

void check(bool ok, const std::string& message) {
  if (!ok) throw nb::value_error(message.c_str());
}

// Calls `f` with a typed pointer to the array's integers (any width and sign).
template <typename F>
void with_integers(const IntArray& a, const char* name, F&& f) {
  const nb::dlpack::dtype t = a.dtype();
  const void* p = a.data();
  if (t == nb::dtype<int8_t>()) return f(static_cast<const int8_t*>(p));
  if (t == nb::dtype<int16_t>()) return f(static_cast<const int16_t*>(p));
  if (t == nb::dtype<int32_t>()) return f(static_cast<const int32_t*>(p));
  if (t == nb::dtype<int64_t>()) return f(static_cast<const int64_t*>(p));
  if (t == nb::dtype<uint8_t>()) return f(static_cast<const uint8_t*>(p));
  if (t == nb::dtype<uint16_t>()) return f(static_cast<const uint16_t*>(p));
  if (t == nb::dtype<uint32_t>()) return f(static_cast<const uint32_t*>(p));
  if (t == nb::dtype<uint64_t>()) return f(static_cast<const uint64_t*>(p));
  throw nb::type_error((std::string(name) + " should be an array of integers").c_str());
}

// Sequence indices of a plan: int32 or int64.
template <typename F>
void with_indices(const IntArray& a, F&& f) {
  if (a.dtype() == nb::dtype<int32_t>()) return f(static_cast<const int32_t*>(a.data()));
  if (a.dtype() == nb::dtype<int64_t>()) return f(static_cast<const int64_t*>(a.data()));
  throw nb::type_error("sequences should be an array of int32 or int64");
}

using Chunks = std::optional<Vec1<int32_t>>;

// Negative source chunks are owned by no worker (the randomizer makes none).
mb::engine::Ownership ownership(const Chunks& source_chunk, int64_t counter_base, int64_t workers,
                                int64_t rank, size_t count) {
  check(workers >= 1 && rank >= 0 && rank < workers,
        "rank should be in [0, workers) and workers positive");
  mb::engine::Ownership owner;
  owner.workers = workers;
  owner.rank = rank;
  if (!source_chunk) {
    check(counter_base >= 0 && counter_base < workers, "counter_base should be in [0, workers)");
    owner.counter_base = counter_base;
    return owner;
  }
  check(source_chunk->shape(0) == count, "source_chunk should have one entry per position");
  owner.source_chunk = source_chunk->data();
  return owner;
}

nb::tuple walk(IntArray lengths, IntArray sequences, int64_t start, const Chunks& source_chunk,
               int64_t counter_base, int64_t workers, int64_t rank, int64_t global_budget,
               int64_t local_budget, int64_t to_end, bool at_least_one, bool stop_when_full) {
  const size_t count = lengths.shape(0);
  check(sequences.shape(0) == count, "lengths and sequences should have the same length");
  check(start >= 0 && size_t(start) <= count, "start should be in [0, len(lengths)]");
  const auto owner = ownership(source_chunk, counter_base, workers, rank, count);
  const mb::engine::WalkLimits limits{global_budget, local_budget, to_end, at_least_one,
                                      stop_when_full};
  std::vector<int64_t> selected;
  mb::engine::WalkResult r;
  with_integers(lengths, "lengths", [&](const auto* l) {
    with_indices(sequences, [&](const auto* s) {
      nb::gil_scoped_release release;
      r = mb::engine::walk(l, s, start, int64_t(count), owner, limits, &selected);
    });
  });
  check(r.ok, "sequence lengths should be non-negative and sum to less than 2**62");
  return nb::make_tuple(numpy_of(std::move(selected)), r.stop, r.global_taken, r.local_taken,
                        r.at_least_one, r.stopped);
}

nb::tuple locate(Vec1<int64_t> sequences, Vec1<int64_t> chunk_starts) {
  check(chunk_starts.shape(0) >= 1, "chunk_starts should hold at least one offset");
  mb::engine::Located out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::engine::locate(sequences.data(), sequences.shape(0), chunk_starts.data(),
                            chunk_starts.shape(0) - 1, &out);
  }
  check(ok, "a sequence index lies in no chunk");
  return nb::make_tuple(numpy_of(std::move(out.chunks)), numpy_of(std::move(out.source)),
                        numpy_of(std::move(out.within)));
}

nb::tuple chunk_uses(IntArray sequences, const Chunks& source_chunk, int64_t counter_base,
                     int64_t workers, int64_t rank, Vec1<int64_t> chunk_starts) {
  check(chunk_starts.shape(0) >= 1, "chunk_starts should hold at least one offset");
  const size_t count = sequences.shape(0);
  const auto owner = ownership(source_chunk, counter_base, workers, rank, count);
  mb::engine::ChunkUses out;
  bool ok;
  with_indices(sequences, [&](const auto* s) {
    nb::gil_scoped_release release;
    ok = mb::engine::chunk_uses(s, int64_t(count), owner, chunk_starts.data(),
                                chunk_starts.shape(0) - 1, &out);
  });
  check(ok, "a sequence index lies in no chunk");
  return nb::make_tuple(numpy_of(std::move(out.chunks)), numpy_of(std::move(out.first)),
                        numpy_of(std::move(out.last)));
}

// (rows used, width, row of each sequence, its first column); the rows and
// columns are None when every sequence fills a row of its own (all lengths equal).
nb::tuple first_fit(Vec1<int64_t> lengths) {
  const size_t n = lengths.shape(0);
  const int64_t* l = lengths.data();
  int64_t width = 0;
  bool equal = true;
  for (size_t i = 0; i < n; ++i) {
    check(l[i] >= 0 && l[i] < (int64_t(1) << 62), "lengths should be in [0, 2**62)");
    width = std::max(width, l[i]);
    equal = equal && l[i] == l[0];
  }
  if (equal) return nb::make_tuple(int64_t(n), width, nb::none(), nb::none());
  std::vector<int64_t> rows(n), starts(n);
  int64_t count;
  {
    nb::gil_scoped_release release;
    count = mb::engine::first_fit(l, n, rows.data(), starts.data());
  }
  return nb::make_tuple(count, width, numpy_of(std::move(rows)), numpy_of(std::move(starts)));
}

using AnyArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// Sample ranges of the picked sequences: sequence within[i] of chunk source[i].
struct Ranges {
  mb::Buffer<int64_t> start, length;
  bool contiguous = false;  // one source, each range right after the previous one
};

Ranges ranges(const std::vector<Vec1<int64_t>>& offsets, const Vec1<int32_t>& source,
              const Vec1<int64_t>& within) {
  check(source.shape(0) == within.shape(0), "source and within should have the same length");
  std::vector<const int64_t*> pointers;
  std::vector<int64_t> counts;
  for (const auto& o : offsets) {
    pointers.push_back(o.data());
    counts.push_back(int64_t(o.shape(0)));
  }
  const size_t n = source.shape(0);
  Ranges r;
  r.start.resize(n);
  r.length.resize(n);
  check(mb::engine::sequence_ranges(pointers.data(), counts.data(), pointers.size(), source.data(),
                                    within.data(), n, r.start.data(), r.length.data()),
        "a sequence index lies outside its chunk's offsets");
  r.contiguous = offsets.size() == 1 && n > 0;
  for (size_t i = 1; i < n && r.contiguous; ++i) {
    r.contiguous = r.start[i] == r.start[i - 1] + r.length[i - 1];
  }
  return r;
}

mb::engine::Pieces pieces_of(const Ranges& r, const Vec1<int32_t>& source) {
  return {source.data(), r.start.data(), r.length.data(), source.shape(0)};
}

// Dense samples of the picked sequences: (values or None, lengths, first row).
// None when they are one contiguous run of one chunk: the caller slices a view
// of rows [first row, first row + sum(lengths)).
nb::tuple gather_sequences_dense(const std::vector<AnyArray>& values,
                                 const std::vector<Vec1<int64_t>>& offsets, size_t row_bytes,
                                 Vec1<int32_t> source, Vec1<int64_t> within) {
  check(row_bytes > 0, "row_bytes should be positive");
  check(values.size() == offsets.size(), "values and offsets should list the same chunks");
  std::vector<mb::engine::DenseSource> sources;
  for (const auto& v : values) {
    check(v.nbytes() % row_bytes == 0, "a chunk's size is not a multiple of row_bytes");
    sources.push_back({static_cast<const uint8_t*>(v.data()), int64_t(v.nbytes() / row_bytes)});
  }
  Ranges r = ranges(offsets, source, within);
  nb::object data = nb::none();
  const int64_t first = r.start.empty() ? 0 : r.start[0];
  if (r.contiguous) {
    int64_t rows = 0;
    for (int64_t n : r.length) rows += n;
    check(first >= 0 && rows <= sources[0].rows - first, "a gathered range lies outside its chunk");
  } else {
    mb::Buffer<uint8_t> out;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = mb::engine::gather_dense(sources.data(), sources.size(), row_bytes, pieces_of(r, source),
                                    &out);
    }
    check(ok, "a gathered range lies outside its chunk");
    data = numpy_of(std::move(out));
  }
  return nb::make_tuple(data, numpy_of(std::move(r.length)), first);
}

// CSR samples of the picked sequences: (values, indices, indptr, lengths).
nb::tuple gather_sequences_csr(const std::vector<AnyArray>& values,
                               const std::vector<AnyArray>& indices,
                               const std::vector<Vec1<int64_t>>& indptr,
                               const std::vector<Vec1<int64_t>>& offsets, size_t value_bytes,
                               size_t index_bytes, Vec1<int32_t> source, Vec1<int64_t> within) {
  check(values.size() == indices.size() && values.size() == indptr.size() &&
            values.size() == offsets.size(),
        "values, indices, indptr and offsets should list the same chunks");
  check(value_bytes > 0 && index_bytes > 0, "value_bytes and index_bytes should be positive");
  std::vector<mb::engine::CsrSource> sources;
  for (size_t i = 0; i < values.size(); ++i) {
    check(indptr[i].shape(0) >= 1, "indptr should hold at least one offset");
    const int64_t nnz = int64_t(std::min(values[i].nbytes() / value_bytes,
                                         indices[i].nbytes() / index_bytes));
    sources.push_back({static_cast<const uint8_t*>(values[i].data()),
                       static_cast<const uint8_t*>(indices[i].data()), indptr[i].data(),
                       int64_t(indptr[i].shape(0)) - 1, nnz});
  }
  Ranges r = ranges(offsets, source, within);
  mb::engine::CsrOutput out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::engine::gather_csr(sources.data(), sources.size(), value_bytes, index_bytes,
                                pieces_of(r, source), &out);
  }
  check(ok, "a gathered range lies outside its chunk, or its indptr is not increasing");
  return nb::make_tuple(numpy_of(std::move(out.values)), numpy_of(std::move(out.indices)),
                        numpy_of(std::move(out.indptr)), numpy_of(std::move(r.length)));
}

}  // namespace

void bind_engine(nb::module_& m) {
  m.def("engine_walk", &walk, "lengths"_a, "sequences"_a, "start"_a, "source_chunk"_a.none(),
        "counter_base"_a, "workers"_a, "rank"_a, "global_budget"_a, "local_budget"_a, "to_end"_a,
        "at_least_one"_a, "stop_when_full"_a);
  m.def("engine_locate", &locate, "sequences"_a, "chunk_starts"_a);
  m.def("engine_chunk_uses", &chunk_uses, "sequences"_a, "source_chunk"_a.none(), "counter_base"_a,
        "workers"_a, "rank"_a, "chunk_starts"_a);
  m.def("engine_first_fit", &first_fit, "lengths"_a);
  m.def("gather_sequences_dense", &gather_sequences_dense, "values"_a, "offsets"_a, "row_bytes"_a,
        "source"_a, "within"_a);
  m.def("gather_sequences_csr", &gather_sequences_csr, "values"_a, "indices"_a, "indptr"_a,
        "offsets"_a, "value_bytes"_a, "index_bytes"_a, "source"_a, "within"_a);
}
