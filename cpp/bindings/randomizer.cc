// Binding of the windowed block randomizer (cpp/engine/block_randomizer.h):
// a frame-mode sweep plan computed one randomized chunk at a time (issue 17).
// Arguments are checked here; chunk() runs without the GIL under a mutex.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "../engine/block_randomizer.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using mb::bindings::check;
using mb::bindings::owned_numpy;
using mb::bindings::Vec1;

struct Windowed {
  std::unique_ptr<mb::engine::WindowedRandomizer> randomizer;
  std::mutex mutex;
};

void create(Windowed* self, Vec1<int64_t> chunk_sequences, Vec1<int64_t> chunk_samples,
            uint64_t window, bool sample_based, uint64_t seed) {
  const size_t n = chunk_sequences.shape(0);
  check(chunk_samples.shape(0) == n,
        "chunk_sequences and chunk_samples should have the same length");
  check(n < (size_t(1) << 31), "there should be fewer than 2**31 chunks");
  for (size_t i = 0; i < n; ++i) {
    check(chunk_sequences.data()[i] > 0, "every chunk should hold at least one sequence");
    check(chunk_samples.data()[i] >= 0, "chunk samples should be non-negative");
  }
  auto* w = new (self) Windowed();
  nb::gil_scoped_release release;
  w->randomizer = std::make_unique<mb::engine::WindowedRandomizer>(
      chunk_sequences.data(), chunk_samples.data(), n, window, sample_based, seed);
}

nb::tuple chunk(Windowed& self, int64_t k) {
  auto& r = *self.randomizer;
  check(k >= 0 && size_t(k) < r.chunk_count(), "chunk should be in [0, chunk_count)");
  const auto& starts = r.chunk_starts();
  const size_t size = size_t(starts[size_t(k) + 1] - starts[size_t(k)]);
  std::vector<int64_t> sequences(size);
  std::vector<int32_t> source(size);
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(self.mutex);
    r.chunk(size_t(k), sequences.data(), source.data());
  }
  return nb::make_tuple(owned_numpy(std::move(sequences)), owned_numpy(std::move(source)));
}

template <typename T>
nb::object copy_of(const std::vector<T>& values) {
  return owned_numpy(std::vector<T>(values));
}

}  // namespace

void bind_randomizer(nb::module_& m) {
  nb::class_<Windowed>(m, "WindowedRandomizer")
      .def("__init__", &create, "chunk_sequences"_a, "chunk_samples"_a, "window"_a,
           "sample_based"_a, "seed"_a)
      .def("chunk", &chunk, "k"_a)
      .def_prop_ro("chunk_order",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().chunk_order); })
      .def_prop_ro("window_begin",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().window_begin); })
      .def_prop_ro("window_end",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().window_end); })
      .def_prop_ro("chunk_starts",
                   [](Windowed& w) { return copy_of(w.randomizer->chunk_starts()); })
      .def_prop_ro("buffered", [](Windowed& w) {
        std::lock_guard<std::mutex> lock(w.mutex);
        return w.randomizer->buffered();
      });
}
