// libFuzzer harness for the engine's bookkeeping, gather and assemble kernels
// (cpp/engine/select.h, gather.h, assemble.h; built by tools/fuzz.sh).
//
// Input: b[0] selects the kernel, the rest fills small arrays (missing bytes
// read as zero). Out-of-range pieces, decreasing CSR offsets and negative
// lengths must be reported (false / ok == false), never read out of bounds;
// accepted results are checked against direct computations. Violations trap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/assemble.h"
#include "engine/gather.h"
#include "engine/select.h"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  uint8_t byte() { return p < end ? *p++ : 0; }
  int64_t small(int64_t bound) { return int64_t(byte()) % bound; }
  int64_t signed_small() { return int64_t(int8_t(byte())); }
};

void fuzz_walk(Reader& in) {
  const int64_t n = in.small(40);
  std::vector<int64_t> lengths(size_t(n) + 1), sequences(size_t(n) + 1);
  std::vector<int32_t> chunks(size_t(n) + 1);
  for (int64_t p = 0; p < n; ++p) {
    lengths[p] = in.signed_small() % 9;  // negative lengths must be refused
    sequences[p] = in.byte();
    chunks[p] = int32_t(in.small(6));
  }
  mb::engine::Ownership owner;
  owner.workers = 1 + in.small(3);
  owner.rank = in.small(owner.workers);
  owner.counter_base = in.small(owner.workers);
  if (in.byte() & 1) owner.source_chunk = chunks.data();
  const mb::engine::WalkLimits limits{in.signed_small(), in.signed_small(), in.signed_small(),
                                      bool(in.byte() & 1), bool(in.byte() & 1)};
  const int64_t start = in.small(n + 1);
  std::vector<int64_t> selected;
  const auto r = mb::engine::walk(lengths.data(), sequences.data(), start, n, owner, limits,
                                  &selected);
  CHECK(r.stop >= start && r.stop <= n);
  if (!r.ok) return;
  CHECK(r.stopped == (r.stop < n));
  int64_t g = 0, l = 0;
  size_t k = 0;
  for (int64_t p = start; p < r.stop; ++p) {
    CHECK(lengths[p] >= 0);
    g += lengths[p];
    if (owner.owns(p)) {
      CHECK(k < selected.size() && selected[k++] == sequences[p]);
      l += lengths[p];
    }
  }
  CHECK(k == selected.size() && g == r.global_taken && l == r.local_taken);
  CHECK(r.at_least_one == (limits.at_least_one && selected.empty()));
}

void fuzz_locate_and_uses(Reader& in) {
  const size_t chunk_count = 1 + size_t(in.small(8));
  std::vector<int64_t> starts(chunk_count + 1, 0);
  for (size_t c = 0; c < chunk_count; ++c) starts[c + 1] = starts[c] + in.signed_small() % 5;
  const size_t n = size_t(in.small(30));
  std::vector<int64_t> sequences(n);
  for (auto& s : sequences) s = in.signed_small() % 24;
  mb::engine::Located located;
  if (mb::engine::locate(sequences.data(), n, starts.data(), chunk_count, &located)) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t c = located.chunks[size_t(located.source[i])];
      CHECK(starts[c] <= sequences[i] && sequences[i] < starts[c + 1]);
      CHECK(located.within[i] == sequences[i] - starts[c]);
    }
  }
  mb::engine::Ownership owner;
  owner.workers = 1 + in.small(3);
  owner.rank = in.small(owner.workers);
  mb::engine::ChunkUses uses;
  if (mb::engine::chunk_uses(sequences.data(), int64_t(n), owner, starts.data(), chunk_count,
                             &uses)) {
    for (size_t u = 0; u < uses.chunks.size(); ++u) {
      CHECK(uses.first[u] <= uses.last[u] && owner.owns(uses.first[u]));
      CHECK(u == 0 || uses.first[u - 1] < uses.first[u]);
    }
  }
}

void fuzz_first_fit(Reader& in) {
  const size_t n = size_t(in.small(40));
  std::vector<int64_t> lengths(n), rows(n), starts(n);
  int64_t width = 0;
  for (auto& x : lengths) width = std::max(width, x = in.small(9));
  const int64_t count = mb::engine::first_fit(lengths.data(), n, rows.data(), starts.data());
  std::vector<int64_t> used(size_t(count), 0);
  for (size_t i = 0; i < n; ++i) {
    CHECK(rows[i] >= 0 && rows[i] < count && starts[i] == used[size_t(rows[i])]);
    used[size_t(rows[i])] += lengths[i];
    CHECK(used[size_t(rows[i])] <= width);
  }
}

void fuzz_gather(Reader& in) {
  const size_t source_count = 1 + size_t(in.small(3));
  std::vector<std::vector<uint8_t>> values(source_count), indices(source_count);
  std::vector<std::vector<int64_t>> indptr(source_count), offsets(source_count);
  std::vector<mb::engine::DenseSource> dense;
  std::vector<mb::engine::CsrSource> csr;
  for (size_t s = 0; s < source_count; ++s) {
    const int64_t rows = in.small(6);
    values[s].resize(size_t(rows) * 2 + 1);
    for (auto& v : values[s]) v = in.byte();
    indices[s] = values[s];
    indptr[s].resize(size_t(rows) + 1);
    for (auto& x : indptr[s]) x = in.small(int64_t(values[s].size()) + 2);  // may decrease
    offsets[s] = {0, in.small(rows + 2), rows};
    dense.push_back({values[s].data(), rows});
    csr.push_back({values[s].data(), indices[s].data(), indptr[s].data(), rows,
                   int64_t(values[s].size())});
  }
  const size_t n = size_t(in.small(8));
  std::vector<int32_t> source(n);
  std::vector<int64_t> start(n), length(n), within(n);
  for (size_t i = 0; i < n; ++i) {
    source[i] = int32_t(in.signed_small() % 4);
    start[i] = in.signed_small() % 7;
    length[i] = in.signed_small() % 4;
    within[i] = in.signed_small() % 3;
  }
  const mb::engine::Pieces pieces{source.data(), start.data(), length.data(), n};
  mb::HeapBuffer<uint8_t> out;
  if (mb::engine::gather_dense(dense.data(), source_count, 2, pieces, &out)) {
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t bytes = size_t(length[i]) * 2;
      CHECK(bytes == 0 ||
            std::memcmp(out.data() + at, values[source[i]].data() + start[i] * 2, bytes) == 0);
      at += bytes;
    }
    CHECK(at == out.size());
  }
  // The same into a caller's buffer of a fuzzed size: the same bytes when they fit,
  // nothing written past the capacity either way.
  std::vector<uint8_t> into(size_t(in.small(40)) + 8, 0xA5);
  const size_t capacity = into.size() - 8;
  size_t written = 0;
  const bool fits = mb::engine::gather_dense_into(dense.data(), source_count, 2, pieces,
                                                  into.data(), capacity, &written);
  for (size_t i = capacity; i < into.size(); ++i) CHECK(into[i] == 0xA5);
  if (fits) {
    CHECK(written == out.size() && written <= capacity);
    CHECK(written == 0 || std::memcmp(into.data(), out.data(), written) == 0);
  }
  mb::engine::CsrOutput csr_out;
  if (mb::engine::gather_csr(csr.data(), source_count, 1, 1, pieces, &csr_out)) {
    CHECK(csr_out.indptr.back() == int64_t(csr_out.values.size()));
  }
  std::vector<const int64_t*> pointers;
  std::vector<int64_t> counts;
  for (const auto& o : offsets) {
    pointers.push_back(o.data());
    counts.push_back(int64_t(o.size()));
  }
  std::vector<int64_t> s_out(n), l_out(n);
  if (mb::engine::sequence_ranges(pointers.data(), counts.data(), source_count, source.data(),
                                  within.data(), n, s_out.data(), l_out.data())) {
    for (size_t i = 0; i < n; ++i) CHECK(s_out[i] == offsets[size_t(source[i])][size_t(within[i])]);
  }
}

// A fuzzed chunk of three streams (dense rows of 2 bytes, CSR of 1-byte values and indices,
// 2-byte rows with a context window); offsets may point past the values (must be refused).
struct FuzzChunk {
  std::vector<int64_t> offsets, indptr, bounds;
  std::vector<uint8_t> dense, values, context;
  int32_t left = 0, right = 0;

  explicit FuzzChunk(Reader& in) {
    const int64_t sequences = in.small(4), rows = in.small(8);
    offsets.push_back(0);
    for (int64_t i = 0; i < sequences; ++i) offsets.push_back(offsets.back() + in.small(3));
    dense.resize(size_t(rows) * 2);
    for (auto& v : dense) v = in.byte();
    context = dense;
    indptr.push_back(0);
    for (int64_t r = 0; r < rows; ++r) indptr.push_back(indptr.back() + in.small(3));
    values.resize(size_t(indptr.back()));
    for (auto& v : values) v = in.byte();
    bounds = {0, std::min<int64_t>(rows, in.small(rows + 1)), rows};
    left = int32_t(in.small(3));
    right = int32_t(in.small(3));
  }

  std::vector<mb::engine::ChunkStream> streams(int32_t left_seen) const {
    std::vector<mb::engine::ChunkStream> s(3);
    for (auto& c : s) c.offsets = offsets.data(), c.offset_count = int64_t(offsets.size());
    s[0].values = dense.data(), s[0].value_bytes = dense.size();
    s[1].values = values.data(), s[1].value_bytes = values.size();
    s[1].indices = values.data(), s[1].index_bytes = values.size(), s[1].index_item = 1;
    s[1].indptr = indptr.data(), s[1].indptr_count = int64_t(indptr.size());
    s[2].values = context.data(), s[2].value_bytes = context.size();
    s[2].bounds = bounds.data(), s[2].bound_count = int64_t(bounds.size());
    s[2].left = left_seen, s[2].right = right;
    return s;
  }
};

// Dense rows of the picks computed directly (the reference of stream 0).
std::vector<uint8_t> dense_reference(const std::vector<FuzzChunk>& chunks,
                                     const mb::engine::PickList& p) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < p.count; ++i) {
    const FuzzChunk& c = chunks[size_t(p.source[i])];
    int64_t first = c.offsets[size_t(p.within[i])];
    int64_t n = c.offsets[size_t(p.within[i]) + 1] - first;
    if (p.first != nullptr) first += p.first[i], n = p.length[i];
    out.insert(out.end(), c.dense.begin() + first * 2, c.dense.begin() + (first + n) * 2);
  }
  return out;
}

void fuzz_assemble(Reader& in) {
  std::vector<FuzzChunk> chunks;
  const size_t count = 1 + size_t(in.small(3));
  for (size_t c = 0; c < count; ++c) chunks.emplace_back(in);
  std::vector<mb::engine::ChunkStream> streams;
  for (const auto& c : chunks) {  // the same window everywhere unless a byte says otherwise
    const auto s = c.streams(in.byte() % 8 ? chunks[0].left : c.left);
    streams.insert(streams.end(), s.begin(), s.end());
  }
  const size_t n = size_t(in.small(10));
  std::vector<int32_t> source(n);
  std::vector<int64_t> within(n), first(n), length(n);
  for (size_t i = 0; i < n; ++i) {
    source[i] = int32_t(in.small(int64_t(count)));
    within[i] = in.signed_small() % 4;
    first[i] = in.small(3);
    length[i] = in.signed_small() % 3;
  }
  mb::engine::PickList picks{source.data(), within.data(), n};
  if (in.byte() & 1) picks.first = first.data(), picks.length = length.data();
  const int32_t width = 1 + chunks[0].left + chunks[0].right;
  const mb::engine::StreamSpec specs[3] = {{2, false, bool(in.byte() & 1), true, true},
                                           {1, true, false, true, true},
                                           {size_t(2 * width), false, false, true, true}};
  std::vector<uint8_t> arena_bytes(size_t(in.small(200)) + 8, 0xA5);
  mb::engine::OutArena arena{arena_bytes.data(), arena_bytes.size() - 8, 0};
  std::vector<mb::engine::StreamResult> out;
  const auto status = mb::engine::assemble(streams.data(), count, 3, specs, picks, &arena, &out);
  for (size_t i = arena.capacity; i < arena_bytes.size(); ++i) CHECK(arena_bytes[i] == 0xA5);
  if (status != mb::engine::AssembleStatus::kOk) return;
  CHECK(out.size() == 3 && arena.used <= arena.capacity);
  const std::vector<uint8_t> want = dense_reference(chunks, picks);
  const auto& r = out[0];
  const uint8_t* got = r.where == mb::engine::StreamResult::kNew ? r.values.data()
                       : r.where == mb::engine::StreamResult::kArena
                           ? arena_bytes.data() + r.arena_offset
                           : chunks[0].dense.data() + r.view_first * 2;
  CHECK(want.empty() || std::memcmp(got, want.data(), want.size()) == 0);
  CHECK(out[1].indptr.back() == int64_t(out[1].values.size()));
  CHECK(out[2].where == mb::engine::StreamResult::kView ||
        (out[2].where == mb::engine::StreamResult::kNew ? out[2].values.size() : out[2].arena_bytes) ==
            want.size() * size_t(width));
}

void fuzz_segments(Reader& in) {
  const size_t count = size_t(in.small(6));
  std::vector<int64_t> offsets(count + 1, 0);
  for (size_t i = 0; i < count; ++i) offsets[i + 1] = offsets[i] + in.small(4);
  const size_t n = size_t(in.small(8));
  std::vector<int64_t> positions(n), segment(n);
  for (auto& p : positions) p = in.signed_small() % 20;
  if (!mb::engine::segment_of(offsets.data(), count, positions.data(), n, segment.data())) return;
  for (size_t i = 0; i < n; ++i) {
    const size_t s = size_t(segment[i]);
    CHECK(s < count && offsets[s] <= positions[i] && positions[i] < offsets[s + 1]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, data + size};
  switch (in.byte() % 6) {
    case 0: fuzz_walk(in); break;
    case 1: fuzz_locate_and_uses(in); break;
    case 2: fuzz_first_fit(in); break;
    case 3: fuzz_assemble(in); break;
    case 4: fuzz_segments(in); break;
    default: fuzz_gather(in); break;
  }
  return 0;
}
