// libFuzzer harness for mb::engine::randomize_sweep and WindowedRandomizer
// (built by tools/fuzz.sh).
//
// Input: b[0] chunk count (1..50), b[1] window mode, then 8 bytes of seed,
// 8 bytes of window, then two bytes per chunk (sequences 1..20, extra samples),
// then the chunks the windowed randomizer is asked for (one byte each, mod n;
// then every chunk in order). Missing bytes read as zero. Violations trap.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/block_randomizer.h"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  uint8_t byte() { return p < end ? *p++ : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
};

template <typename V>
bool is_permutation_of_range(const std::vector<V>& v) {
  std::vector<uint8_t> seen(v.size(), 0);
  for (V x : v) {
    if (x < 0 || size_t(x) >= v.size() || seen[size_t(x)]) return false;
    seen[size_t(x)] = 1;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, data + size};
  const size_t n = 1 + in.byte() % 50;
  const uint8_t mode = in.byte();
  const uint64_t seed = in.u64();
  const uint64_t raw_window = in.u64();
  std::vector<int64_t> sequences(n), samples(n);
  int64_t total_sequences = 0, total_samples = 0;
  for (size_t c = 0; c < n; ++c) {
    sequences[c] = 1 + in.byte() % 20;
    const uint8_t extra = in.byte();
    samples[c] = sequences[c] + ((extra & 0x80) ? int64_t(extra & 0x7f) * 1000 : extra);
    total_sequences += sequences[c];
    total_samples += samples[c];
  }
  const bool sample_based = mode & 1;
  uint64_t window = 0;
  switch ((mode >> 1) & 7) {
    case 0: window = 0; break;
    case 1: window = 1; break;
    case 2: window = 2; break;
    case 3: window = UINT64_MAX; break;
    case 4: window = UINT64_MAX / 2 + 1; break;
    case 5: window = raw_window; break;
    default: window = raw_window % (uint64_t(sample_based ? total_samples : int64_t(n)) * 2 + 1);
  }

  const mb::engine::SweepOrder o = mb::engine::randomize_sweep(
      sequences.data(), samples.data(), n, window, sample_based, seed);

  CHECK(o.chunk_order.size() == n && o.window_begin.size() == n && o.window_end.size() == n);
  CHECK(is_permutation_of_range(o.chunk_order));
  for (size_t k = 0; k < n; ++k) {
    CHECK(o.window_begin[k] >= 0 && size_t(o.window_begin[k]) <= k);
    CHECK(size_t(o.window_end[k]) > k && size_t(o.window_end[k]) <= n);
    if (sample_based) {
      if (k > 0) {
        CHECK(o.window_begin[k] >= o.window_begin[k - 1]);
        CHECK(o.window_end[k] >= o.window_end[k - 1]);
      }
    } else {
      const uint64_t width = window == 0 ? 1 : (window < n ? window : n);
      CHECK(uint64_t(o.window_end[k] - o.window_begin[k]) == width);
    }
  }

  // Original first sequence of every chunk, and sequence range of every
  // randomized position.
  std::vector<int64_t> original_first(n + 1, 0), position_first(n + 1, 0);
  for (size_t c = 0; c < n; ++c) original_first[c + 1] = original_first[c] + sequences[c];
  for (size_t k = 0; k < n; ++k) {
    position_first[k + 1] = position_first[k] + sequences[size_t(o.chunk_order[k])];
  }
  CHECK(position_first[n] == total_sequences);
  CHECK(o.sequences.size() == size_t(total_sequences));
  CHECK(o.source_chunk.size() == size_t(total_sequences));
  CHECK(is_permutation_of_range(o.sequences));
  size_t k = 0;
  for (int64_t p = 0; p < total_sequences; ++p) {
    while (p >= position_first[k + 1]) ++k;
    const int32_t src = o.source_chunk[size_t(p)];
    CHECK(src >= o.window_begin[k] && src < o.window_end[k]);
    // The sequence really belongs to the chunk it claims to come from.
    const int32_t c = o.chunk_order[size_t(src)];
    const int64_t s = o.sequences[size_t(p)];
    CHECK(s >= original_first[size_t(c)] && s < original_first[size_t(c) + 1]);
  }

  // Deterministic for a given seed.
  const mb::engine::SweepOrder again = mb::engine::randomize_sweep(
      sequences.data(), samples.data(), n, window, sample_based, seed);
  CHECK(again.chunk_order == o.chunk_order && again.sequences == o.sequences &&
        again.source_chunk == o.source_chunk && again.window_begin == o.window_begin &&
        again.window_end == o.window_end);

  // The windowed randomizer gives the same positions, chunk by chunk, in any order.
  mb::engine::WindowedRandomizer w(sequences.data(), samples.data(), n, window, sample_based, seed);
  CHECK(w.chunk_count() == n && w.chunk_starts().size() == n + 1);
  std::vector<size_t> asked;
  for (int i = 0; i < 16 && in.p < in.end; ++i) asked.push_back(in.byte() % n);
  for (size_t c = 0; c < n; ++c) asked.push_back(c);
  for (size_t c : asked) {
    const int64_t first = w.chunk_starts()[c], count = w.chunk_starts()[c + 1] - first;
    CHECK(first == position_first[c] && count > 0);
    std::vector<int64_t> seqs(size_t(count), -1);
    std::vector<int32_t> src(size_t(count), -1);
    w.chunk(c, seqs.data(), src.data());
    for (int64_t i = 0; i < count; ++i) {
      CHECK(seqs[size_t(i)] == o.sequences[size_t(first + i)]);
      CHECK(src[size_t(i)] == o.source_chunk[size_t(first + i)]);
    }
    CHECK(w.buffered() <= 2 * total_sequences + 1);
  }
  return 0;
}
