// CNTK's block randomizer for one sweep, bit for bit (mt19937_64, naive
// chunk shuffle, windowed sequence swaps). See docs/design/order-and-timeline.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "../common/buffer.h"

namespace mb::engine {

struct SweepOrder {
  std::vector<int32_t> chunk_order;    // randomized position -> original chunk
  std::vector<int32_t> window_begin;   // per randomized chunk position
  std::vector<int32_t> window_end;
  std::vector<int64_t> sequences;      // sweep position -> original global sequence index
  std::vector<int32_t> source_chunk;   // sweep position -> randomized position of its chunk
};

// `chunk_sequences[c]` / `chunk_samples[c]` describe original chunk c; the
// original global index of the i-th sequence of chunk c is
// sum(chunk_sequences[:c]) + i. `window` counts samples when `sample_based`,
// chunks otherwise.
SweepOrder randomize_sweep(const int64_t* chunk_sequences, const int64_t* chunk_samples,
                           size_t chunk_count, uint64_t window, bool sample_based, uint64_t seed);

// The same order computed window by window (issue 17): the positions of one
// randomized chunk at a time, holding only the positions a swap can still
// touch (the randomization window around the step) instead of the sweep.
// chunk(k) gives exactly randomize_sweep()'s sequences/source_chunk of the
// positions of randomized chunk k. Steps are taken in order, as CNTK does;
// asking for a chunk before the oldest one kept replays the draws from the
// sweep's start (O(positions) time, O(window) memory).
class WindowedRandomizer {
 public:
  WindowedRandomizer(const int64_t* chunk_sequences, const int64_t* chunk_samples,
                     size_t chunk_count, uint64_t window, bool sample_based, uint64_t seed);
  size_t chunk_count() const { return order_.chunk_order.size(); }
  const SweepOrder& windows() const { return order_; }  // chunk order and windows only
  const std::vector<int64_t>& chunk_starts() const { return start_; }  // positions, + total
  // Copies the final sequences / source chunks of chunk k's positions (k < chunk_count()).
  void chunk(size_t k, int64_t* sequences, int32_t* source_chunk);
  int64_t buffered() const { return int64_t(seq_.size()); }  // positions held now

 private:
  void restart();
  void extend_to(int64_t position);
  void step();
  uint64_t draw();                 // the next draw of rng_ (from the look-ahead first)
  uint64_t peek(size_t ahead);     // the draw `ahead` places after the next one
  void prefetch_step(int64_t t);   // the positions step t will likely swap
  void drop_below(int64_t position);
  int32_t chunk_of(int64_t position, int32_t lo, int32_t hi) const;

  SweepOrder order_;
  std::vector<int64_t> start_;           // first position of each randomized chunk, + total
  std::vector<int64_t> original_first_;  // first original index of each original chunk
  std::vector<int32_t> reach_;           // last chunk whose steps can touch chunk k's positions
  std::vector<int32_t> floor_;           // lowest window begin of chunk k and every later one
  uint64_t seed_;
  std::mt19937_64 rng_;
  // Draws taken from rng_ ahead of their steps, in order (the sequence is rng_'s own), so that
  // the positions a later step swaps are prefetched: steps are bound by memory latency when
  // the window is large (~180 ns per frame for a 128-chunk window without it).
  static constexpr size_t kLookAhead = 16;
  uint64_t pending_[kLookAhead] = {};
  size_t pending_head_ = 0, pending_count_ = 0;
  int64_t t_ = 0;                        // next step
  int32_t kt_ = 0;                       // chunk of position t_
  int64_t lo_ = 0;                       // position of seq_[0]
  // Positions [lo_, lo_ + size): mapped, not heap, memory when large (it may grow on a
  // helper thread, whose malloc arena would keep what it frees; see bindings/randomizer.cc)
  Buffer<int64_t> seq_;
  Buffer<int32_t> src_;
};

}  // namespace mb::engine
