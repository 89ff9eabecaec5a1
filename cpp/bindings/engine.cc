// Binding of the engine's bookkeeping kernels (cpp/engine/select.h): checks
// arguments, releases the GIL, returns NumPy arrays that own their memory.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../engine/select.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using mb::bindings::check;
using mb::bindings::Vec1;
using mb::bindings::IntArray;
using mb::bindings::owned_numpy;
using mb::bindings::with_integers;

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
  return nb::make_tuple(owned_numpy(std::move(selected)), r.stop, r.global_taken, r.local_taken,
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
  return nb::make_tuple(owned_numpy(std::move(out.chunks)), owned_numpy(std::move(out.source)),
                        owned_numpy(std::move(out.within)));
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
  return nb::make_tuple(owned_numpy(std::move(out.chunks)), owned_numpy(std::move(out.first)),
                        owned_numpy(std::move(out.last)));
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
  return nb::make_tuple(count, width, owned_numpy(std::move(rows)), owned_numpy(std::move(starts)));
}

nb::object segment_of(Vec1<int64_t> offsets, Vec1<int64_t> positions) {
  check(offsets.shape(0) >= 1, "offsets should hold at least one entry");
  std::vector<int64_t> out(positions.shape(0));
  check(mb::engine::segment_of(offsets.data(), offsets.shape(0) - 1, positions.data(),
                               positions.shape(0), out.data()),
        "a position lies outside the segments");
  return owned_numpy(std::move(out));
}

// Slot flags of a shared-memory ring (adapters/shm_ring.py): one process
// stores with release semantics after it is done with a slot, another loads
// with acquire semantics before it writes the slot again.
using SharedFlags = nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

int64_t* flag_at(SharedFlags& flags, int64_t index) {
  check(index >= 0 && size_t(index) < flags.shape(0), "flag index out of range");
  return flags.data() + index;
}

int64_t atomic_load(SharedFlags flags, int64_t index) {
  const int64_t* flag = flag_at(flags, index);
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
#else
  const int64_t value = *static_cast<const volatile int64_t*>(flag);
  std::atomic_thread_fence(std::memory_order_acquire);
  return value;
#endif
}

void atomic_store(SharedFlags flags, int64_t index, int64_t value) {
  int64_t* flag = flag_at(flags, index);
#if defined(__GNUC__) || defined(__clang__)
  __atomic_store_n(flag, value, __ATOMIC_RELEASE);
#else
  std::atomic_thread_fence(std::memory_order_release);
  *static_cast<volatile int64_t*>(flag) = value;
#endif
}

}  // namespace

void bind_chunk_registry(nb::module_& m);  // chunk_registry.cc

void bind_engine(nb::module_& m) {
  m.def("engine_walk", &walk, "lengths"_a, "sequences"_a, "start"_a, "source_chunk"_a.none(),
        "counter_base"_a, "workers"_a, "rank"_a, "global_budget"_a, "local_budget"_a, "to_end"_a,
        "at_least_one"_a, "stop_when_full"_a);
  m.def("engine_locate", &locate, "sequences"_a, "chunk_starts"_a);
  m.def("engine_chunk_uses", &chunk_uses, "sequences"_a, "source_chunk"_a.none(), "counter_base"_a,
        "workers"_a, "rank"_a, "chunk_starts"_a);
  m.def("engine_first_fit", &first_fit, "lengths"_a);
  m.def("engine_segment_of", &segment_of, "offsets"_a, "positions"_a);
  m.def("atomic_load_i64", &atomic_load, "flags"_a, "index"_a);
  m.def("atomic_store_i64", &atomic_store, "flags"_a, "index"_a, "value"_a);
  bind_chunk_registry(m);
}
