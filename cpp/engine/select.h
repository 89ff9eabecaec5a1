// Per-minibatch bookkeeping of the engine, moved out of Python loops:
// walking a sweep plan under CNTK's budget rules, locating sequences in
// chunks, first use / last use of every chunk, and CNTK's first-fit layout.
//
// Pure functions over caller-owned arrays. The binding validates sizes and
// index ranges before calling; the kernels only rely on what the comments
// state. See docs/design/order-and-timeline.md and packing-layout.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mb::engine {

// Which positions of a sweep belong to this worker: by source chunk
// (block randomizer: source_chunk[p] % workers == rank) when `source_chunk`
// is set, else round robin ((counter_base + p) % workers == rank, file order).
struct Ownership {
  const int32_t* source_chunk = nullptr;
  int64_t counter_base = 0;  // in [0, workers)
  int64_t workers = 1;
  int64_t rank = 0;

  bool owns(int64_t p) const {
    if (source_chunk != nullptr) return int64_t(source_chunk[p]) % workers == rank;
    return (counter_base + p % workers) % workers == rank;  // no overflow
  }
};

// The budgets of one walk (all non-negative).
struct WalkLimits {
  int64_t global_budget = 0;  // samples of any worker that may still be taken
  int64_t local_budget = 0;   // samples of this worker that may still be taken
  int64_t to_end = 0;         // samples from the walk's start to the epoch end
  bool at_least_one = false;  // take this worker's next sequence whatever its length
  bool stop_when_full = false;  // stop once either budget is used up (file order's rule)
};

struct WalkResult {
  int64_t stop = 0;            // first position not taken
  int64_t global_taken = 0;    // samples passed over (any worker)
  int64_t local_taken = 0;     // samples of this worker's sequences
  bool at_least_one = false;   // the limit's flag after the walk
  bool stopped = false;        // a rule stopped the walk before the end of the plan
  bool ok = true;              // false: a negative length, or samples summing past 2^62
};

// Walks positions [start, count) of a plan (budget lengths and original
// sequence indices in plan order), appending this worker's sequences to
// `selected`, exactly as the enumerators' loops:
//   stop_when_full and a budget is used up      -> stop
//   not at_least_one and the sequence overflows -> stop
//   the epoch end is reached                    -> stop
//   otherwise take it (this worker's: select it).
// A negative length, or lengths summing past 2^62, stop the walk with ok = false.
template <typename Length, typename Index>
WalkResult walk(const Length* lengths, const Index* sequences, int64_t start, int64_t count,
                const Ownership& owner, const WalkLimits& limits, std::vector<int64_t>* selected);

// Chunk of each sequence (chunk_starts: chunk_count + 1 non-decreasing
// offsets), the distinct chunks in increasing order, each sequence's index
// among them and its index within its chunk. Returns false when a sequence
// lies in no chunk (or chunk_starts is not sorted there).
struct Located {
  std::vector<int64_t> chunks;
  std::vector<int32_t> source;
  std::vector<int64_t> within;
};
bool locate(const int64_t* sequences, size_t n, const int64_t* chunk_starts, size_t chunk_count,
            Located* out);

// Chunks used by this worker's positions of a plan, in order of first use,
// with the first and last position using each; false as for locate().
struct ChunkUses {
  std::vector<int64_t> chunks;
  std::vector<int64_t> first;
  std::vector<int64_t> last;
};
template <typename Index>
bool chunk_uses(const Index* sequences, int64_t count, const Ownership& owner,
                const int64_t* chunk_starts, size_t chunk_count, ChunkUses* out);

// CNTK's InitAsPackedSequences: width = the longest sequence; each sequence,
// in order, goes to the first row with room, else a new row. Fills rows and
// starts (n each); returns the number of rows. Lengths must be non-negative.
int64_t first_fit(const int64_t* lengths, size_t n, int64_t* rows, int64_t* starts);

// The segment holding each position: the last s with offsets[s] <= positions[i]
// (offsets: count + 1 non-decreasing entries). Returns false when a position lies
// outside [offsets[0], offsets[count]).
bool segment_of(const int64_t* offsets, size_t count, const int64_t* positions, size_t n,
                int64_t* segment);

}  // namespace mb::engine
