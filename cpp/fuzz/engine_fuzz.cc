// libFuzzer harness for the engine's bookkeeping and gather kernels
// (cpp/engine/select.h, cpp/engine/gather.h; built by tools/fuzz.sh).
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
  mb::Buffer<uint8_t> out;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, data + size};
  switch (in.byte() % 4) {
    case 0: fuzz_walk(in); break;
    case 1: fuzz_locate_and_uses(in); break;
    case 2: fuzz_first_fit(in); break;
    default: fuzz_gather(in); break;
  }
  return 0;
}
