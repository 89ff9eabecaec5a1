// The engine's loaded chunks, held natively: a minibatch names its sequences
// and one call (assemble) locates them in the chunks, leaves out the skipped
// ones, gathers every stream and lays it out, the GIL released; it costs the
// same whatever the number of chunks in the window. The registry keeps a
// reference to every array it points into; the kernels are those of
// cpp/engine/assemble.h. Large dense outputs come from the registry's pool of
// mapped blocks (keep: how many dropped ones wait for the next minibatch), so a
// minibatch reuses the resident pages of one its consumer dropped.
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
#include "../common/buffer_pool.h"
#include "../engine/assemble.h"
#include "../engine/select.h"
#include "pooled.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;
using mb::bindings::AnyArray;
using mb::bindings::check;
using mb::bindings::owned_numpy;
using mb::bindings::Vec1;

namespace {

using OutBytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Context = std::tuple<int32_t, int32_t, Vec1<int64_t>>;  // (left, right, bounds)
using StreamTuple = std::tuple<Vec1<int64_t>, AnyArray, std::optional<AnyArray>,
                               std::optional<Vec1<int64_t>>, std::optional<Context>>;
// (delivered row bytes or value bytes, sparse, frame mode, layout, gather)
using SpecTuple = std::tuple<size_t, bool, bool, bool, bool>;

// One stream of one chunk: the handles keep the arrays alive, `view` points into them.
struct StreamArrays {
  Vec1<int64_t> offsets;
  AnyArray values;
  std::optional<AnyArray> indices;
  std::optional<Vec1<int64_t>> indptr;
  std::optional<Vec1<int64_t>> bounds;
  mb::engine::ChunkStream view;
};

struct Chunk {
  std::vector<StreamArrays> streams;
  std::vector<int64_t> skipped;  // sorted sequence indices within the chunk
};

void check_offsets(const Vec1<int64_t>& offsets) {
  const int64_t* o = offsets.data();
  check(offsets.shape(0) >= 1 && o[0] >= 0, "sequence offsets should start at a sample >= 0");
  for (size_t i = 1; i < offsets.shape(0); ++i) {
    check(o[i] >= o[i - 1], "sequence offsets should not decrease");
  }
}

StreamArrays stream_arrays(const StreamTuple& t) {
  const auto& [offsets, values, indices, indptr, context] = t;
  check_offsets(offsets);
  check(indices.has_value() == indptr.has_value(), "a sparse stream needs both indices and indptr");
  check(!indptr || indptr->shape(0) >= 1, "indptr should hold at least one offset");
  StreamArrays s{offsets, values, indices, indptr, std::nullopt, {}};
  auto& v = s.view;
  v = {offsets.data(), int64_t(offsets.shape(0)), static_cast<const uint8_t*>(values.data()),
       values.nbytes()};
  if (indices) {
    v.indices = static_cast<const uint8_t*>(indices->data());
    v.index_bytes = indices->nbytes();
    v.index_item = indices->itemsize();
    v.indptr = indptr->data();
    v.indptr_count = int64_t(indptr->shape(0));
  }
  if (context) {
    const auto& [left, right, bounds] = *context;
    check(left >= 0 && right >= 0 && !indices && values.ndim() >= 1,
          "a context window needs left, right >= 0 and dense values");
    s.bounds = bounds;
    v.bounds = s.bounds->data();
    v.bound_count = int64_t(bounds.shape(0));
    v.left = left;
    v.right = right;
    check(mb::engine::context_bounds_valid({v.values, int64_t(values.shape(0)), v.bounds,
                                            v.bound_count}),
          "context bounds should increase from 0 to the chunk's samples");
  }
  return s;
}

// What assemble() found in the registry for the picked chunks.
struct Picked {
  std::vector<std::shared_ptr<const Chunk>> owners;  // keep the chunks while the GIL is released
  std::vector<mb::engine::ChunkStream> streams;      // [source][stream]
  std::vector<int64_t> missing;
};

const char* status_message(mb::engine::AssembleStatus s) {
  switch (s) {
    case mb::engine::AssembleStatus::kOutOfRange: return "a gathered range lies outside its chunk";
    case mb::engine::AssembleStatus::kBadCsr:
      return "a gathered range lies outside its chunk, or its indptr is not increasing";
    case mb::engine::AssembleStatus::kShapeMismatch:
      return "a chunk's values do not fit the stream's row size, or the gathered chunks disagree "
             "on their context window";
    case mb::engine::AssembleStatus::kNotSparse: return "a sparse stream's chunk is not sparse";
    default: return "";
  }
}

nb::object layout_tuple(mb::engine::StreamResult& r) {
  nb::object rows = nb::none(), starts = nb::none();
  if (!r.rows.empty()) {
    rows = owned_numpy(std::move(r.rows));
    starts = owned_numpy(std::move(r.starts));
  }
  return nb::make_tuple(r.layout_of, r.num_rows, r.width, rows, starts, r.not_one);
}

// Per stream: (where, values, indices, indptr, lengths, first or offset, bytes, layout), where
// 0: values is a new array (or CSR values with indices and indptr; dense values may lie in a
// block of `pool`), 1: rows first.. of the first chunk, 2: `bytes` bytes at `offset` of the
// caller's buffer.
nb::object stream_tuple(mb::engine::StreamResult& r, const std::shared_ptr<mb::BufferPool>& pool) {
  using mb::engine::StreamResult;
  nb::object values = nb::none(), indices = nb::none(), indptr = nb::none();
  if (r.where == StreamResult::kNew) values = owned_numpy(std::move(r.values));
  if (r.where == StreamResult::kPooled) {
    const size_t bytes = r.pooled.bytes();
    values = mb::bindings::pooled_bytes(pool, r.pooled.release(), bytes);
    r.where = StreamResult::kNew;
  }
  if (!r.indptr.empty()) {
    indices = owned_numpy(std::move(r.indices));
    indptr = owned_numpy(std::move(r.indptr));
  }
  const int64_t at = r.where == StreamResult::kView ? r.view_first : int64_t(r.arena_offset);
  return nb::make_tuple(int(r.where), values, indices, indptr, owned_numpy(std::move(r.lengths)),
                        at, r.arena_bytes, layout_tuple(r));
}

class ChunkRegistry {
 public:
  explicit ChunkRegistry(int64_t keep) {
    check(keep >= 0 && keep <= int64_t(mb::BufferPool::kMaxKeep),
          "keep should be in [0, " + std::to_string(mb::BufferPool::kMaxKeep) +
              "], but got keep=" + std::to_string(keep));
    pool_ = std::make_shared<mb::BufferPool>(size_t(keep));
  }

  void add(int64_t chunk, const std::vector<StreamTuple>& streams,
           const std::vector<int64_t>& skipped) {
    auto c = std::make_shared<Chunk>();
    for (const auto& t : streams) c->streams.push_back(stream_arrays(t));
    c->skipped = skipped;
    std::sort(c->skipped.begin(), c->skipped.end());
    chunks_[chunk] = std::move(c);
  }

  void remove(int64_t chunk) { chunks_.erase(chunk); }
  bool contains(int64_t chunk) const { return chunks_.count(chunk) != 0; }
  size_t size() const { return chunks_.size(); }

  // (missing chunk ids or None, chunk ids, kept picks or None, per-stream tuples): the picked
  // sequences (original indices into a table chunked at chunk_starts) in one pass. With
  // missing chunks nothing else is done. kept: the positions of the picks not skipped
  // by their chunk (None when none is). segments: (first, length) per pick (truncated BPTT).
  nb::tuple assemble(Vec1<int64_t> chunk_starts, Vec1<int64_t> sequences,
                     const std::vector<SpecTuple>& specs,
                     std::optional<std::tuple<Vec1<int64_t>, Vec1<int64_t>>> segments,
                     std::optional<OutBytes> out) const {
    check(chunk_starts.shape(0) >= 1, "chunk_starts should hold at least one offset");
    mb::engine::Located at;
    check(mb::engine::locate(sequences.data(), sequences.shape(0), chunk_starts.data(),
                             chunk_starts.shape(0) - 1, &at),
          "a sequence index lies in no chunk");
    Picked picked = pick(at.chunks, specs.size());
    if (!picked.missing.empty()) {
      return nb::make_tuple(nb::cast(picked.missing), nb::none(), nb::none(), nb::none());
    }
    nb::object kept = nb::none();
    std::vector<int64_t> delivered;
    if (any_skipped(picked)) {
      delivered = deliverable(picked, at);
      kept = owned_numpy(std::vector<int64_t>(delivered));
    }
    std::vector<int64_t> first, length;  // truncated BPTT: the delivered picks' segments
    if (segments) segments_of(*segments, at.source.size(), kept.is_none(), delivered, &first, &length);
    if (!kept.is_none()) compact(delivered, &at);
    mb::engine::PickList picks{at.source.data(), at.within.data(), at.source.size(),
                               segments ? first.data() : nullptr,
                               segments ? length.data() : nullptr};
    nb::list streams = gather(picked, at.chunks.size(), specs, picks, out);
    return nb::make_tuple(nb::none(), owned_numpy(std::move(at.chunks)), kept, streams);
  }

 private:
  // Every stream of the picks, the GIL released; one tuple per stream (stream_tuple).
  nb::list gather(const Picked& picked, size_t source_count, const std::vector<SpecTuple>& specs,
                  const mb::engine::PickList& picks, std::optional<OutBytes>& out) const {
    std::vector<mb::engine::StreamSpec> kernel_specs;
    for (const auto& [item, sparse, frames, layout, gather] : specs) {
      kernel_specs.push_back({item, sparse, frames, layout, gather});
    }
    mb::engine::OutArena arena{out ? out->data() : nullptr, out ? out->shape(0) : 0, 0,
                               pool_.get()};
    std::vector<mb::engine::StreamResult> results;
    mb::engine::AssembleStatus status;
    {
      nb::gil_scoped_release release;
      status = mb::engine::assemble(picked.streams.data(), source_count, specs.size(),
                                    kernel_specs.data(), picks, &arena, &results);
    }
    check(status == mb::engine::AssembleStatus::kOk, status_message(status));
    nb::list streams;
    for (auto& r : results) streams.append(stream_tuple(r, pool_));
    return streams;
  }

 private:
  Picked pick(const std::vector<int64_t>& ids, size_t stream_count) const {
    Picked out;
    for (int64_t id : ids) {
      const auto found = chunks_.find(id);
      if (found == chunks_.end()) {
        out.missing.push_back(id);
        continue;
      }
      check(found->second->streams.size() == stream_count,
            "chunk " + std::to_string(id) + " has another number of streams");
      out.owners.push_back(found->second);
      for (const auto& s : found->second->streams) out.streams.push_back(s.view);
    }
    return out;
  }

  static bool any_skipped(const Picked& p) {
    for (const auto& c : p.owners) {
      if (!c->skipped.empty()) return true;
    }
    return false;
  }

  static std::vector<int64_t> deliverable(const Picked& p, const mb::engine::Located& at) {
    std::vector<const int64_t*> lists;
    std::vector<size_t> counts;
    for (const auto& c : p.owners) {
      lists.push_back(c->skipped.data());
      counts.push_back(c->skipped.size());
    }
    return mb::engine::delivered_picks(at.source.data(), at.within.data(), at.source.size(),
                                       lists.data(), counts.data());
  }

  static void compact(const std::vector<int64_t>& kept, mb::engine::Located* at) {
    for (size_t i = 0; i < kept.size(); ++i) {
      at->source[i] = at->source[size_t(kept[i])];
      at->within[i] = at->within[size_t(kept[i])];
    }
    at->source.resize(kept.size());
    at->within.resize(kept.size());
  }

  static void segments_of(const std::tuple<Vec1<int64_t>, Vec1<int64_t>>& segments, size_t n,
                          bool all, const std::vector<int64_t>& kept, std::vector<int64_t>* first,
                          std::vector<int64_t>* length) {
    const auto& [f, l] = segments;
    check(f.shape(0) == n && l.shape(0) == n,
          "segments should have one first sample and one length per sequence");
    for (size_t j = 0; j < (all ? n : kept.size()); ++j) {
      const size_t i = all ? j : size_t(kept[j]);
      first->push_back(f.data()[i]);
      length->push_back(l.data()[i]);
    }
  }

  std::unordered_map<int64_t, std::shared_ptr<const Chunk>> chunks_;
  std::shared_ptr<mb::BufferPool> pool_;  // shared with the arrays it lent
};

}  // namespace

void bind_chunk_registry(nb::module_& m) {
  nb::class_<ChunkRegistry>(m, "ChunkRegistry")
      .def(nb::init<int64_t>(), "keep"_a = 3,
           "keep: large dense outputs of dropped minibatches kept for the next ones (0-8)")
      .def("add", &ChunkRegistry::add, "chunk"_a, "streams"_a, "skipped"_a = std::vector<int64_t>(),
           "Registers a loaded chunk: per stream (offsets int64, values, indices or None, indptr "
           "int64 or None, (left, right, bounds int64) or None), all C-contiguous; the "
           "sequences it skips.")
      .def("remove", &ChunkRegistry::remove, "chunk"_a)
      .def("__contains__", &ChunkRegistry::contains, "chunk"_a)
      .def("__len__", &ChunkRegistry::size)
      .def("assemble", &ChunkRegistry::assemble, "chunk_starts"_a, "sequences"_a, "specs"_a,
           "segments"_a = nb::none(), "out"_a = nb::none());
}
