// The engine's loaded chunks, held natively: a gather names chunks by id, so
// one call costs the same whatever the number of chunks in the window (no
// list of arrays to convert per call). The registry keeps a reference to
// every array it points into; the kernels are those of cpp/engine/gather.h.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../common/buffer.h"
#include "../engine/gather.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;
using mb::bindings::AnyArray;
using mb::bindings::check;
using mb::bindings::owned_numpy;
using mb::bindings::Vec1;

namespace {

using OutBytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// One stream of one chunk: sequence offsets, values, and for sparse streams
// the CSR index arrays. The handles keep the arrays alive.
struct StreamArrays {
  Vec1<int64_t> offsets;
  AnyArray values;
  std::optional<AnyArray> indices;
  std::optional<Vec1<int64_t>> indptr;
};
using Chunk = std::vector<StreamArrays>;
using StreamTuple = std::tuple<Vec1<int64_t>, AnyArray, std::optional<AnyArray>,
                               std::optional<Vec1<int64_t>>>;

// Sample ranges of the picked sequences: sequence within[i] of chunk source[i].
struct Ranges {
  mb::Buffer<int64_t> start, length;
  bool contiguous = false;  // one chunk, each range right after the previous one
};

class ChunkRegistry {
 public:
  void add(int64_t chunk, const std::vector<StreamTuple>& streams) {
    std::vector<StreamArrays> arrays;
    for (const auto& [offsets, values, indices, indptr] : streams) {
      check(offsets.shape(0) >= 1, "sequence offsets should hold at least one entry");
      check(indices.has_value() == indptr.has_value(),
            "a sparse stream needs both indices and indptr");
      check(!indptr || indptr->shape(0) >= 1, "indptr should hold at least one offset");
      arrays.push_back({offsets, values, indices, indptr});
    }
    chunks_[chunk] = std::make_shared<const Chunk>(std::move(arrays));
  }

  void remove(int64_t chunk) { chunks_.erase(chunk); }
  bool contains(int64_t chunk) const { return chunks_.count(chunk) != 0; }
  size_t size() const { return chunks_.size(); }

  // (values or None, lengths, first row): None when the sequences are one
  // contiguous run of one chunk (the caller slices rows [first, first + sum)).
  // (values, lengths, first row, bytes written to `out`) of the picked sequences of a
  // dense stream: values is None when they are one contiguous run of one chunk (rows
  // first.. of it), or when they were gathered into `out` (a caller's buffer, used
  // when they fit); else a new array.
  nb::tuple gather_dense(size_t stream, size_t row_bytes, Vec1<int64_t> chunks,
                         Vec1<int32_t> source, Vec1<int64_t> within,
                         std::optional<OutBytes> out) const {
    check(row_bytes > 0, "row_bytes should be positive");
    const auto picked = pick(stream, chunks);
    std::vector<mb::engine::DenseSource> sources;
    for (const StreamArrays* s : picked.arrays) {
      check(s->values.nbytes() % row_bytes == 0, "a chunk's size is not a multiple of row_bytes");
      sources.push_back({static_cast<const uint8_t*>(s->values.data()),
                         int64_t(s->values.nbytes() / row_bytes)});
    }
    Ranges r = ranges(picked, source, within);
    const int64_t first = r.start.empty() ? 0 : r.start[0];
    if (r.contiguous) {
      int64_t rows = 0;
      for (int64_t n : r.length) rows += n;
      check(first >= 0 && rows <= sources[0].rows - first, "a gathered range lies outside its chunk");
      return nb::make_tuple(nb::none(), owned_numpy(std::move(r.length)), first, 0);
    }
    if (out.has_value()) {
      size_t written = 0;
      bool ok;
      {
        nb::gil_scoped_release release;
        ok = mb::engine::gather_dense_into(sources.data(), sources.size(), row_bytes,
                                           pieces(r, source), out->data(), out->shape(0),
                                           &written);
      }
      if (ok) return nb::make_tuple(nb::none(), owned_numpy(std::move(r.length)), first, written);
    }  // out of range (raised below) or too small for the rows: a new array
    mb::Buffer<uint8_t> values;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = mb::engine::gather_dense(sources.data(), sources.size(), row_bytes, pieces(r, source),
                                    &values);
    }
    check(ok, "a gathered range lies outside its chunk");
    return nb::make_tuple(owned_numpy(std::move(values)), owned_numpy(std::move(r.length)), first, 0);
  }

  // (values, indices, indptr, lengths) of the picked sequences of a sparse stream.
  nb::tuple gather_csr(size_t stream, size_t value_bytes, size_t index_bytes,
                       Vec1<int64_t> chunks, Vec1<int32_t> source, Vec1<int64_t> within) const {
    check(value_bytes > 0 && index_bytes > 0, "value_bytes and index_bytes should be positive");
    const auto picked = pick(stream, chunks);
    std::vector<mb::engine::CsrSource> sources;
    for (const StreamArrays* s : picked.arrays) {
      check(s->indptr.has_value(), "stream " + std::to_string(stream) + " is not sparse");
      const int64_t nnz = int64_t(std::min(s->values.nbytes() / value_bytes,
                                           s->indices->nbytes() / index_bytes));
      sources.push_back({static_cast<const uint8_t*>(s->values.data()),
                         static_cast<const uint8_t*>(s->indices->data()), s->indptr->data(),
                         int64_t(s->indptr->shape(0)) - 1, nnz});
    }
    Ranges r = ranges(picked, source, within);
    mb::engine::CsrOutput out;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = mb::engine::gather_csr(sources.data(), sources.size(), value_bytes, index_bytes,
                                  pieces(r, source), &out);
    }
    check(ok, "a gathered range lies outside its chunk, or its indptr is not increasing");
    return nb::make_tuple(owned_numpy(std::move(out.values)), owned_numpy(std::move(out.indices)),
                          owned_numpy(std::move(out.indptr)), owned_numpy(std::move(r.length)));
  }

 private:
  // The arrays of `stream` in each of `chunks` (all registered). The picks
  // share ownership of the chunks: their arrays stay alive while the GIL is
  // released, even if another thread removes a chunk meanwhile (the last
  // owner then goes at the end of the call, with the GIL held).
  struct Picked {
    std::vector<std::shared_ptr<const Chunk>> owners;
    std::vector<const StreamArrays*> arrays;
  };
  Picked pick(size_t stream, const Vec1<int64_t>& chunks) const {
    Picked out;
    out.owners.reserve(chunks.shape(0));
    out.arrays.reserve(chunks.shape(0));
    for (size_t i = 0; i < chunks.shape(0); ++i) {
      const auto at = chunks_.find(chunks.data()[i]);
      check(at != chunks_.end(), "chunk " + std::to_string(chunks.data()[i]) + " is not loaded");
      check(stream < at->second->size(), "stream index out of range");
      out.owners.push_back(at->second);
      out.arrays.push_back(&(*at->second)[stream]);
    }
    return out;
  }

  static Ranges ranges(const Picked& picked, const Vec1<int32_t>& source,
                       const Vec1<int64_t>& within) {
    check(source.shape(0) == within.shape(0), "source and within should have the same length");
    std::vector<const int64_t*> pointers;
    std::vector<int64_t> counts;
    for (const StreamArrays* s : picked.arrays) {
      pointers.push_back(s->offsets.data());
      counts.push_back(int64_t(s->offsets.shape(0)));
    }
    const size_t n = source.shape(0);
    Ranges r;
    r.start.resize(n);
    r.length.resize(n);
    check(mb::engine::sequence_ranges(pointers.data(), counts.data(), pointers.size(),
                                      source.data(), within.data(), n, r.start.data(),
                                      r.length.data()),
          "a sequence index lies outside its chunk's offsets");
    r.contiguous = picked.arrays.size() == 1 && n > 0;
    for (size_t i = 1; i < n && r.contiguous; ++i) {
      r.contiguous = r.start[i] == r.start[i - 1] + r.length[i - 1];
    }
    return r;
  }

  static mb::engine::Pieces pieces(const Ranges& r, const Vec1<int32_t>& source) {
    return {source.data(), r.start.data(), r.length.data(), source.shape(0)};
  }

  std::unordered_map<int64_t, std::shared_ptr<const Chunk>> chunks_;
};

}  // namespace

void bind_chunk_registry(nb::module_& m) {
  nb::class_<ChunkRegistry>(m, "ChunkRegistry")
      .def(nb::init<>())
      .def("add", &ChunkRegistry::add, "chunk"_a, "streams"_a,
           "Registers a loaded chunk: per stream (offsets int64, values, indices or None, indptr "
           "int64 or None), all C-contiguous.")
      .def("remove", &ChunkRegistry::remove, "chunk"_a)
      .def("__contains__", &ChunkRegistry::contains, "chunk"_a)
      .def("__len__", &ChunkRegistry::size)
      .def("gather_dense", &ChunkRegistry::gather_dense, "stream"_a, "row_bytes"_a, "chunks"_a,
           "source"_a, "within"_a, "out"_a = nb::none())
      .def("gather_csr", &ChunkRegistry::gather_csr, "stream"_a, "value_bytes"_a, "index_bytes"_a,
           "chunks"_a, "source"_a, "within"_a);
}
