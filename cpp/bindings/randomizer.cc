// Binding of the windowed block randomizer (cpp/engine/block_randomizer.h):
// a frame-mode sweep plan computed one randomized chunk at a time (issue 17).
// Arguments are checked here; chunk() runs without the GIL under a mutex.
//
// After chunk(k, ahead=True), a helper thread computes chunk k + 1 (the one a
// reader asks for next), so the randomizer's steps overlap the reading of
// chunk k. The order is the same: the steps run in the same sequence, only
// earlier. No helper runs across fork(): a pthread_atfork handler joins every
// one first, so a child never inherits a half-stepped randomizer or a held mutex.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <pthread.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <thread>
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

struct Piece {
  int64_t k = -1;
  std::vector<int64_t> sequences;
  std::vector<int32_t> source;
};

struct Windowed {
  std::unique_ptr<mb::engine::WindowedRandomizer> randomizer;
  std::mutex mutex;         // the randomizer and `ahead`
  Piece ahead;              // computed by the helper
  std::mutex helper_mutex;  // starting and joining the helper
  std::thread helper;

  void join_helper() {
    std::lock_guard<std::mutex> lock(helper_mutex);
    if (helper.joinable()) helper.join();
  }
  ~Windowed();
};

// Every live randomizer, for the fork handler.
std::mutex live_mutex;
std::set<Windowed*>* live = new std::set<Windowed*>();  // never destroyed: used at exit

void join_all_before_fork() {
  std::lock_guard<std::mutex> lock(live_mutex);
  for (Windowed* w : *live) w->join_helper();
}

void track(Windowed* w) {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(&join_all_before_fork, nullptr, nullptr); });
  std::lock_guard<std::mutex> lock(live_mutex);
  live->insert(w);
}

Windowed::~Windowed() {
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live->erase(this);
  }
  join_helper();
}

// Room for chunk k's positions.
Piece empty_piece(const Windowed& self, int64_t k) {
  const auto& starts = self.randomizer->chunk_starts();
  const size_t size = size_t(starts[size_t(k) + 1] - starts[size_t(k)]);
  return Piece{k, std::vector<int64_t>(size), std::vector<int32_t>(size)};
}

Piece compute(Windowed& self, int64_t k) {
  Piece piece = empty_piece(self, k);
  self.randomizer->chunk(size_t(k), piece.sequences.data(), piece.source.data());
  return piece;
}

// Starts the helper on chunk k (the previous helper has been joined). The piece's memory is
// taken here, on the caller's thread: freed there too, it stays in that thread's malloc arena
// instead of piling up in the helpers' (about 20 MB more resident in HTK frame mode).
void prefetch(Windowed& self, int64_t k) {
  if (k >= int64_t(self.randomizer->chunk_count())) return;
  Piece room = empty_piece(self, k);
  std::lock_guard<std::mutex> lock(self.helper_mutex);
  self.helper = std::thread([&self, room = std::move(room)]() mutable {
    std::lock_guard<std::mutex> guard(self.mutex);
    self.randomizer->chunk(size_t(room.k), room.sequences.data(), room.source.data());
    self.ahead = std::move(room);
  });
}

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
  {
    nb::gil_scoped_release release;
    w->randomizer = std::make_unique<mb::engine::WindowedRandomizer>(
        chunk_sequences.data(), chunk_samples.data(), n, window, sample_based, seed);
  }
  track(w);
}

// Chunk k's positions; then the helper computes chunk k + 1 when `ahead` is set.
nb::tuple chunk(Windowed& self, int64_t k, bool ahead) {
  check(k >= 0 && size_t(k) < self.randomizer->chunk_count(),
        "chunk should be in [0, chunk_count)");
  Piece piece;
  {
    nb::gil_scoped_release release;
    self.join_helper();
    {
      std::lock_guard<std::mutex> lock(self.mutex);
      piece = self.ahead.k == k ? std::move(self.ahead) : compute(self, k);
      self.ahead = Piece();
    }
    if (ahead) prefetch(self, k + 1);
  }
  return nb::make_tuple(owned_numpy(std::move(piece.sequences)),
                        owned_numpy(std::move(piece.source)));
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
      .def("chunk", &chunk, "k"_a, "ahead"_a = false,
           "Chunk k's (sequences, source chunks); ahead=True computes chunk k + 1 meanwhile.")
      .def_prop_ro("chunk_order",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().chunk_order); })
      .def_prop_ro("window_begin",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().window_begin); })
      .def_prop_ro("window_end",
                   [](Windowed& w) { return copy_of(w.randomizer->windows().window_end); })
      .def_prop_ro("chunk_starts",
                   [](Windowed& w) { return copy_of(w.randomizer->chunk_starts()); })
      .def_prop_ro("buffered", [](Windowed& w) {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(w.mutex);  // positions held, and the piece ahead
        return w.randomizer->buffered() + int64_t(w.ahead.sequences.size());
      });
}
