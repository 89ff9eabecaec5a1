// Engine bookkeeping kernels (see select.h).
#include "select.h"

#include <algorithm>

namespace mb::engine {
namespace {
constexpr int64_t kMaxLength = int64_t(1) << 62;
}  // namespace

template <typename Length, typename Index>
WalkResult walk(const Length* lengths, const Index* sequences, int64_t start, int64_t count,
                const Ownership& owner, const WalkLimits& limits, std::vector<int64_t>* selected) {
  WalkResult r;
  r.at_least_one = limits.at_least_one;
  int64_t g = 0, l = 0, p = start;
  for (; p < count; ++p) {
    if (limits.stop_when_full && (g >= limits.global_budget || l >= limits.local_budget)) break;
    const int64_t length = int64_t(lengths[p]);
    if (length < 0 || length > kMaxLength - g) {  // a bad table; the caller raises
      r.ok = false;
      break;
    }
    const bool local = owner.owns(p);
    if (!r.at_least_one &&
        (g + length > limits.global_budget || (local && l + length > limits.local_budget))) {
      break;
    }
    if (g >= limits.to_end) break;
    if (local) {
      selected->push_back(int64_t(sequences[p]));
      l += length;
      r.at_least_one = false;
    }
    g += length;
  }
  r.stop = p;
  r.stopped = p < count;
  r.global_taken = g;
  r.local_taken = l;
  return r;
}

namespace {

// The chunk holding sequence s: the last c with chunk_starts[c] <= s.
size_t chunk_of(int64_t s, const int64_t* chunk_starts, size_t chunk_count) {
  const int64_t* at = std::upper_bound(chunk_starts, chunk_starts + chunk_count + 1, s);
  return size_t(at - chunk_starts) - 1;
}

// Checks the interval found as well, so that unsorted starts fail instead of lying.
bool found(int64_t s, size_t c, const int64_t* chunk_starts, size_t chunk_count) {
  return c < chunk_count && chunk_starts[c] <= s && s < chunk_starts[c + 1];
}

}  // namespace

bool locate(const int64_t* sequences, size_t n, const int64_t* chunk_starts, size_t chunk_count,
            Located* out) {
  // A minibatch touches few chunks: number them as they are found (a short linear search),
  // then sort the few and renumber.
  std::vector<int64_t> seen;
  out->source.resize(n);
  out->within.resize(n);
  size_t last = 0;  // the previous sequence's chunk and its number
  int32_t last_slot = -1;
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = sequences[i];
    size_t c = last;
    if (last_slot < 0 || !found(s, c, chunk_starts, chunk_count)) {
      c = chunk_of(s, chunk_starts, chunk_count);
      if (!found(s, c, chunk_starts, chunk_count)) return false;
      const auto at = std::find(seen.begin(), seen.end(), int64_t(c));
      last_slot = int32_t(at - seen.begin());
      if (at == seen.end()) seen.push_back(int64_t(c));
      last = c;
    }
    out->source[i] = last_slot;
    out->within[i] = s - chunk_starts[c];
  }
  std::vector<int32_t> order(seen.size()), rank(seen.size());
  for (size_t j = 0; j < seen.size(); ++j) order[j] = int32_t(j);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return seen[a] < seen[b]; });
  out->chunks.resize(seen.size());
  for (size_t r = 0; r < order.size(); ++r) {
    rank[size_t(order[r])] = int32_t(r);
    out->chunks[r] = seen[size_t(order[r])];
  }
  for (auto& j : out->source) j = rank[size_t(j)];
  return true;
}

template <typename Index>
bool chunk_uses(const Index* sequences, int64_t count, const Ownership& owner,
                const int64_t* chunk_starts, size_t chunk_count, ChunkUses* out) {
  std::vector<int64_t> slot(chunk_count, -1);  // chunk -> its place in out->chunks
  for (int64_t p = 0; p < count; ++p) {
    if (!owner.owns(p)) continue;
    const int64_t s = int64_t(sequences[p]);
    const size_t c = chunk_of(s, chunk_starts, chunk_count);
    if (!found(s, c, chunk_starts, chunk_count)) return false;
    if (slot[c] < 0) {
      slot[c] = int64_t(out->chunks.size());
      out->chunks.push_back(int64_t(c));
      out->first.push_back(p);
      out->last.push_back(p);
    }
    out->last[size_t(slot[c])] = p;
  }
  return true;
}

int64_t first_fit(const int64_t* lengths, size_t n, int64_t* rows, int64_t* starts) {
  int64_t width = 0;
  for (size_t i = 0; i < n; ++i) width = std::max(width, lengths[i]);
  std::vector<int64_t> used;
  size_t open_from = 0;  // rows before it are full
  for (size_t i = 0; i < n; ++i) {
    while (open_from < used.size() && used[open_from] == width) ++open_from;
    size_t row = open_from;
    while (row < used.size() && used[row] + lengths[i] > width) ++row;
    if (row == used.size()) used.push_back(0);
    rows[i] = int64_t(row);
    starts[i] = used[row];
    used[row] += lengths[i];
  }
  return int64_t(used.size());
}

bool segment_of(const int64_t* offsets, size_t count, const int64_t* positions, size_t n,
                int64_t* segment) {
  for (size_t i = 0; i < n; ++i) {
    const int64_t p = positions[i];
    if (count == 0 || p < offsets[0] || p >= offsets[count]) return false;
    segment[i] = int64_t(std::upper_bound(offsets, offsets + count + 1, p) - offsets) - 1;
  }
  return true;
}

#define MB_WALK(L, I)                                                                      \
  template WalkResult walk<L, I>(const L*, const I*, int64_t, int64_t, const Ownership&,  \
                                 const WalkLimits&, std::vector<int64_t>*);
#define MB_WALK_ALL(I)                                                                     \
  MB_WALK(int8_t, I) MB_WALK(int16_t, I) MB_WALK(int32_t, I) MB_WALK(int64_t, I)           \
  MB_WALK(uint8_t, I) MB_WALK(uint16_t, I) MB_WALK(uint32_t, I) MB_WALK(uint64_t, I)
MB_WALK_ALL(int32_t)
MB_WALK_ALL(int64_t)
#undef MB_WALK_ALL
#undef MB_WALK

template bool chunk_uses<int32_t>(const int32_t*, int64_t, const Ownership&, const int64_t*, size_t,
                                  ChunkUses*);
template bool chunk_uses<int64_t>(const int64_t*, int64_t, const Ownership&, const int64_t*, size_t,
                                  ChunkUses*);

}  // namespace mb::engine
