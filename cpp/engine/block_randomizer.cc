// Block randomizer implementation (see block_randomizer.h).
#include "block_randomizer.h"

#include <algorithm>
#include <random>
#include <utility>

namespace mb::engine {
namespace {

struct ChunkLayout {
  std::vector<int64_t> sample_start;    // per randomized position
  std::vector<int64_t> sequence_start;  // per randomized position, plus the total
};

void windows_in_chunks(size_t n, uint64_t window, SweepOrder* out) {
  const uint64_t half = window / 2;
  const uint64_t width = std::max<uint64_t>(window, 1);
  for (size_t k = 0; k < n; ++k) {
    uint64_t begin = k > half ? k - half : 0;
    uint64_t end = begin + width;
    if (end > n) {
      end = n;
      begin = n > width ? n - width : 0;
    }
    out->window_begin[k] = int32_t(begin);
    out->window_end[k] = int32_t(end);
  }
}

void windows_in_samples(size_t n, uint64_t window, const std::vector<int64_t>& samples,
                        const ChunkLayout& layout, SweepOrder* out) {
  const uint64_t half = window / 2;
  size_t begin = 0, end = 1;
  for (size_t k = 0; k < n; ++k) {
    if (k > 0) {
      begin = size_t(out->window_begin[k - 1]);
      end = size_t(out->window_end[k - 1]);
    }
    while (uint64_t(layout.sample_start[k] - layout.sample_start[begin]) > half) ++begin;
    begin = std::min(begin, k);
    end = std::max(end, k + 1);
    while (end < n &&
           uint64_t(layout.sample_start[end] + samples[end] - layout.sample_start[k]) < half) {
      ++end;
    }
    out->window_begin[k] = int32_t(begin);
    out->window_end[k] = int32_t(end);
  }
}

// Chunk shuffle and windows (the first half of CNTK's randomization).
ChunkLayout shuffle_chunks(const int64_t* chunk_sequences, const int64_t* chunk_samples, size_t n,
                           uint64_t window, bool sample_based, uint64_t seed, SweepOrder* out) {
  out->chunk_order.resize(n);
  out->window_begin.resize(n);
  out->window_end.resize(n);
  for (size_t i = 0; i < n; ++i) out->chunk_order[i] = int32_t(i);
  std::mt19937_64 chunk_rng(seed);
  for (size_t i = 0; i < n; ++i) std::swap(out->chunk_order[i], out->chunk_order[chunk_rng() % n]);
  std::vector<int64_t> samples(n);
  ChunkLayout layout{std::vector<int64_t>(n + 1, 0), std::vector<int64_t>(n + 1, 0)};
  for (size_t k = 0; k < n; ++k) {
    const int32_t c = out->chunk_order[k];
    samples[k] = chunk_samples[c];
    layout.sample_start[k + 1] = layout.sample_start[k] + chunk_samples[c];
    layout.sequence_start[k + 1] = layout.sequence_start[k] + chunk_sequences[c];
  }
  if (sample_based) {
    windows_in_samples(n, window, samples, layout, out);
  } else {
    windows_in_chunks(n, window, out);
  }
  return layout;
}

std::vector<int64_t> first_of_chunks(const int64_t* chunk_sequences, size_t n) {
  std::vector<int64_t> first(n + 1, 0);
  for (size_t c = 0; c < n; ++c) first[c + 1] = first[c] + chunk_sequences[c];
  return first;
}

}  // namespace

SweepOrder randomize_sweep(const int64_t* chunk_sequences, const int64_t* chunk_samples,
                           size_t chunk_count, uint64_t window, bool sample_based, uint64_t seed) {
  const size_t n = chunk_count;
  SweepOrder out;
  if (n == 0) return out;
  const ChunkLayout layout =
      shuffle_chunks(chunk_sequences, chunk_samples, n, window, sample_based, seed, &out);
  const std::vector<int64_t> original_first = first_of_chunks(chunk_sequences, n);

  const int64_t total = layout.sequence_start[n];
  out.sequences.resize(size_t(total));
  out.source_chunk.resize(size_t(total));
  std::vector<int32_t> position_chunk(static_cast<size_t>(total));
  for (size_t k = 0; k < n; ++k) {
    const int64_t first = original_first[out.chunk_order[k]];
    for (int64_t p = layout.sequence_start[k]; p < layout.sequence_start[k + 1]; ++p) {
      out.sequences[p] = first + (p - layout.sequence_start[k]);
      out.source_chunk[p] = int32_t(k);
      position_chunk[p] = int32_t(k);
    }
  }

  std::mt19937_64 sequence_rng(seed);
  for (int64_t t = 0; t < total; ++t) {
    const int32_t kt = position_chunk[t];
    const int32_t wb = out.window_begin[kt], we = out.window_end[kt];
    const int64_t lo = layout.sequence_start[wb], hi = layout.sequence_start[we];
    for (;;) {
      const int64_t j = lo + int64_t(sequence_rng() % uint64_t(hi - lo));
      const int32_t kj = position_chunk[j];
      const int32_t sj = out.source_chunk[j], st = out.source_chunk[t];
      if (sj >= wb && sj < we && st >= out.window_begin[kj] && st < out.window_end[kj]) {
        std::swap(out.sequences[t], out.sequences[j]);
        std::swap(out.source_chunk[t], out.source_chunk[j]);
        break;
      }
    }
  }
  return out;
}

WindowedRandomizer::WindowedRandomizer(const int64_t* chunk_sequences,
                                       const int64_t* chunk_samples, size_t chunk_count,
                                       uint64_t window, bool sample_based, uint64_t seed)
    : seed_(seed) {
  const size_t n = chunk_count;
  start_.assign(1, 0);
  if (n == 0) return;
  start_ = shuffle_chunks(chunk_sequences, chunk_samples, n, window, sample_based, seed, &order_)
               .sequence_start;
  original_first_ = first_of_chunks(chunk_sequences, n);
  floor_.resize(n);
  int32_t low = int32_t(n);
  for (size_t k = n; k-- > 0;) floor_[k] = low = std::min(low, order_.window_begin[k]);
  reach_.resize(n);  // the last k' whose window begins at or before k (floor_ is sorted)
  for (size_t k = 0; k < n; ++k) {
    reach_[k] = int32_t(std::upper_bound(floor_.begin(), floor_.end(), int32_t(k)) -
                        floor_.begin()) - 1;
  }
  restart();
}

void WindowedRandomizer::restart() {
  rng_.seed(seed_);
  pending_head_ = pending_count_ = 0;
  t_ = 0;
  kt_ = 0;
  lo_ = 0;
  seq_.clear();
  src_.clear();
}

// Positions not yet reached by a step hold their chunk's sequences in order.
void WindowedRandomizer::extend_to(int64_t position) {
  int64_t p = lo_ + int64_t(seq_.size());
  int32_t k = chunk_of(std::min(p, start_.back() - 1), 0, int32_t(chunk_count()));
  for (; p < position; ++p) {
    while (p >= start_[k + 1]) ++k;
    seq_.push_back(original_first_[order_.chunk_order[k]] + (p - start_[k]));
    src_.push_back(k);
  }
}

int32_t WindowedRandomizer::chunk_of(int64_t position, int32_t lo, int32_t hi) const {
  const auto at = std::upper_bound(start_.begin() + lo, start_.begin() + hi + 1, position);
  return int32_t(at - start_.begin()) - 1;
}

uint64_t WindowedRandomizer::draw() {
  if (pending_count_ == 0) return rng_();
  const uint64_t value = pending_[pending_head_];
  pending_head_ = (pending_head_ + 1) % kLookAhead;
  --pending_count_;
  return value;
}

uint64_t WindowedRandomizer::peek(size_t ahead) {
  while (pending_count_ <= ahead) {
    pending_[(pending_head_ + pending_count_) % kLookAhead] = rng_();
    ++pending_count_;
  }
  return pending_[(pending_head_ + ahead) % kLookAhead];
}

// Step t's first candidate, assuming every step until then takes one draw (the usual case;
// a wrong guess only costs a useless prefetch).
void WindowedRandomizer::prefetch_step(int64_t t) {
#if defined(__GNUC__) || defined(__clang__)
  if (t >= start_.back()) return;
  int32_t k = kt_;
  while (t >= start_[k + 1]) ++k;
  const int64_t lo = start_[order_.window_begin[k]], hi = start_[order_.window_end[k]];
  const int64_t j = lo + int64_t(peek(size_t(t - t_)) % uint64_t(hi - lo)) - lo_;
  if (j >= 0 && j < int64_t(seq_.size())) {
    __builtin_prefetch(&seq_[size_t(j)], 1, 3);
    __builtin_prefetch(&src_[size_t(j)], 1, 3);
  }
#else
  (void)t;
#endif
}

// One step of the sequence swaps (randomize_sweep's loop body, on the buffer).
void WindowedRandomizer::step() {
  while (t_ >= start_[kt_ + 1]) ++kt_;
  const int32_t wb = order_.window_begin[kt_], we = order_.window_end[kt_];
  const int64_t lo = start_[wb], hi = start_[we];
  extend_to(hi);
  prefetch_step(t_ + int64_t(kLookAhead) - 1);
  const size_t t = size_t(t_ - lo_);
  for (;;) {
    const int64_t j = lo + int64_t(draw() % uint64_t(hi - lo));
    const int32_t kj = chunk_of(j, wb, we);
    const size_t i = size_t(j - lo_);
    const int32_t sj = src_[i], st = src_[t];
    if (sj >= wb && sj < we && st >= order_.window_begin[kj] && st < order_.window_end[kj]) {
      std::swap(seq_[t], seq_[i]);
      std::swap(src_[t], src_[i]);
      break;
    }
  }
  ++t_;
}

void WindowedRandomizer::drop_below(int64_t position) {
  const int64_t count = std::min<int64_t>(position - lo_, int64_t(seq_.size()));
  if (count <= 0 || count < int64_t(seq_.size()) / 2) return;  // amortized: drop in halves
  seq_.erase(seq_.begin(), seq_.begin() + count);
  src_.erase(src_.begin(), src_.begin() + count);
  lo_ += count;
}

void WindowedRandomizer::chunk(size_t k, int64_t* sequences, int32_t* source_chunk) {
  const int64_t first = start_[k], last = start_[k + 1];
  if (first < lo_) restart();  // dropped already: replay the draws from the sweep's start
  const int64_t done = start_[size_t(reach_[k]) + 1];
  while (t_ < done) {
    step();
    if ((t_ & 0xffff) == 0) drop_below(std::min(first, start_[floor_[kt_]]));
  }
  extend_to(last);
  std::copy(seq_.begin() + (first - lo_), seq_.begin() + (last - lo_), sequences);
  std::copy(src_.begin() + (first - lo_), src_.begin() + (last - lo_), source_chunk);
  drop_below(std::min(first, start_[floor_[std::min<size_t>(size_t(kt_), chunk_count() - 1)]]));
}

}  // namespace mb::engine
