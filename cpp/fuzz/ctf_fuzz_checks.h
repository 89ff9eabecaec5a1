// Options decoding and invariant checks of the CTF fuzz harness (ctf_fuzz.cc).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ctf/bytes.h"
#include "ctf/indexer.h"
#include "ctf/number.h"
#include "ctf/parser.h"

namespace {

using mb::ctf::IndexOptions;
using mb::ctf::IndexResult;
using mb::ctf::IndexStatus;
using mb::ctf::Issue;
using mb::ctf::IssueCode;
using mb::ctf::ParseRequest;
using mb::ctf::ParseResult;
using mb::ctf::SequenceSpan;
using mb::ctf::StreamSpec;

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

constexpr size_t kHeader = 8;


struct Options {
  IndexOptions index;
  bool use_double = false;
  bool number_check = false;
  bool whole_file = false;
  std::vector<StreamSpec> streams;
  int32_t main_stream = -1;
  int64_t error_limit = 1;
  int64_t warning_limit = 64;
  bool skip_incomplete = false;
  int64_t chunk_size = 1;
  int slices = 0;
  uint8_t seed_byte = 0;
};

Options decode(const uint8_t* h) {
  static const char* const kAliases[4][3] = {
      {"a", "b", "c"}, {"F0", "F1", "F2"}, {"F", "L", "features"}, {"A", "B", "labels"}};
  static const int64_t kDense[8] = {1, 2, 3, 4, 5, 10, 100, 784};
  static const int64_t kSparse[8] = {1, 2, 3, 5, 100, int64_t(1) << 31, (int64_t(1) << 31) + 1,
                                     (int64_t(1) << 31) + 1};
  static const int64_t kWarnings[8] = {0, 1, 2, 3, 5, 8, 64, 1000};
  Options o;
  o.index.skip_sequence_ids = h[0] & 1;
  o.use_double = (h[0] >> 1) & 1;
  const int main_choice = (h[0] >> 2) & 3;
  const int alias_set = (h[0] >> 4) & 3;
  o.number_check = (h[0] >> 6) & 1;
  o.whole_file = (h[0] >> 7) & 1;
  const int count = 1 + (h[1] & 3) % 3;
  o.skip_incomplete = (h[1] >> 2) & 1;
  for (int k = 0; k < count; ++k) {
    const uint8_t b = h[2 + k];
    StreamSpec s;
    s.alias = kAliases[alias_set][k];
    s.sparse = (b >> 3) & 1;
    const int code = b & 7;
    s.dim = s.sparse ? kSparse[code] : kDense[code];
    if (s.sparse && code == 7 && ((b >> 4) & 1)) s.dim = INT64_MAX;
    o.streams.push_back(s);
  }
  if (main_choice > 0) {
    const int k = main_choice - 1;
    if (k < count) {
      o.index.main_alias = o.streams[size_t(k)].alias;
      o.main_stream = k;
    } else {
      o.index.main_alias = "zz";  // names no configured stream
    }
  }
  o.error_limit = (h[5] & 0x80) ? 1000 : 1 + (h[5] & 15);
  o.warning_limit = kWarnings[(h[5] >> 4) & 7];
  o.chunk_size = int64_t(1) << (h[6] & 15);
  o.slices = (h[6] >> 4) % 5;
  o.seed_byte = h[7];
  return o;
}

struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
};

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int64_t count_newlines(const uint8_t* p, const uint8_t* end) {
  int64_t n = 0;
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

bool is_error_code(int32_t code) { return code >= 1 && code <= 12; }

// Charged to the budget: the error codes, and a stream missing from a sequence
// with nothing rejected in it when such sequences are skipped.
bool is_charged(const Issue& is, bool skip_incomplete) {
  return is_error_code(is.code) ||
         (skip_incomplete && is.code == int32_t(IssueCode::kEmptyInput) && is.a == 0);
}

// Errors that reject a sample or a row (all but a duplicate input).
bool rejects(int32_t code) {
  return is_error_code(code) && code != int32_t(IssueCode::kDuplicateInput);
}

bool is_known_code(int32_t code) {
  return is_error_code(code) || code == int32_t(IssueCode::kEmptyInput) ||
         code == int32_t(IssueCode::kDenseShort) || code == int32_t(IssueCode::kUnknownInput);
}

// ---------------------------------------------------------------------------
// Index invariants.

bool is_index_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// True when `offset` may start a row: a line start, or the first non-space
// byte after an optional UTF-8 BOM and leading whitespace.
bool at_row_start(const uint8_t* data, int64_t offset) {
  if (offset == 0 || data[offset - 1] == '\n') return true;
  int64_t i = 0;
  if (offset >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;
  for (; i < offset; ++i) {
    if (!is_index_space(data[i])) return false;
  }
  return true;
}

void check_index(const uint8_t* data, size_t size, const Options& o, const IndexResult& idx) {
  const int64_t fsize = int64_t(size);
  if (idx.status != IndexStatus::kOk) {
    CHECK(idx.status != IndexStatus::kCancelled);
    CHECK(idx.status_offset >= 0 && idx.status_offset <= fsize);
    CHECK(idx.status_line >= 1);
    if (idx.status == IndexStatus::kEmptyFile) {
      for (size_t i = 0; i < size; ++i) {
        if (i < 3 && size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) continue;
        CHECK(is_index_space(data[i]));
      }
    }
    return;
  }
  const size_t n = idx.offsets.size();
  CHECK(idx.keys.size() == n && idx.sizes.size() == n && idx.rows.size() == n &&
        idx.lines.size() == n);
  CHECK(idx.dropped_offsets.size() == idx.dropped_lines.size());
  if (o.index.skip_sequence_ids) CHECK(idx.line_mode);
  // Line number of every byte offset: 1 + newlines before it.
  std::vector<int64_t> line_at(size + 1);
  line_at[0] = 1;
  for (size_t i = 0; i < size; ++i) line_at[i + 1] = line_at[i] + (data[i] == '\n');
  CHECK(idx.total_lines >= 0 && idx.total_lines <= line_at[size]);
  CHECK(idx.ignored_lines >= 0 && idx.ignored_lines <= idx.total_lines);
  int64_t prev_end = 0, rows = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t off = idx.offsets[i], sz = idx.sizes[i];
    CHECK(off >= 0 && sz > 0 && off <= fsize && sz <= fsize - off);
    CHECK(off >= prev_end);  // increasing and non-overlapping
    prev_end = off + sz;
    CHECK(prev_end == fsize || data[prev_end - 1] == '\n');
    CHECK(at_row_start(data, off));
    CHECK(idx.lines[i] == line_at[size_t(off)]);
    if (i > 0) CHECK(idx.lines[i] > idx.lines[i - 1]);
    CHECK(idx.rows[i] >= 1 && idx.rows[i] <= line_at[size_t(prev_end)] - idx.lines[i] + 1);
    rows += idx.rows[i];
    if (idx.line_mode) {
      CHECK(idx.rows[i] == 1);
      CHECK(idx.keys[i] == uint64_t(idx.lines[i] - 1));
      CHECK(count_newlines(data + off, data + prev_end) <= 1);
    } else {
      // The sequence starts with its id.
      uint64_t key = 0;
      int64_t p = off;
      CHECK(p < fsize && mb::ctf::is_digit(data[p]));
      for (; p < fsize && mb::ctf::is_digit(data[p]); ++p) key = key * 10 + (data[p] - '0');
      CHECK(key == idx.keys[i]);
    }
  }
  CHECK(rows <= idx.total_lines);
  for (size_t i = 0; i < idx.dropped_offsets.size(); ++i) {
    const int64_t off = idx.dropped_offsets[i];
    CHECK(off >= 0 && off < fsize);
    CHECK(at_row_start(data, off));
    CHECK(idx.dropped_lines[i] == line_at[size_t(off)]);
  }
  // Without a main alias every sequence has a row: nothing is dropped.
  if (o.index.main_alias.empty()) CHECK(idx.dropped_offsets.empty());
}

// The streaming indexer fed in random blocks (each unconsumed tail passed
// again, as the Python caller does) gives exactly the one-shot result.
template <typename RngT>
void check_streaming_index(const uint8_t* data, size_t size, const Options& o,
                           const IndexResult& whole, RngT& rng) {
  mb::ctf::StreamingIndexer indexer(o.index);
  size_t done = 0, grow = 1;
  while (done < size && indexer.status() == IndexStatus::kOk) {
    // A random block; after a block without a complete line, a bigger one
    // (as the Python caller grows its buffer for a long line).
    const size_t want = grow * (1 + size_t(rng.below(rng.below(4) == 0 ? size - done : 64)));
    size_t stop = std::min(size, done + want);
    // Exact-size copy: ASan reports any read past the block.
    const std::vector<uint8_t> block(data + done, data + stop);
    const size_t consumed = indexer.feed(block.data(), block.size(), int64_t(done), stop == size);
    CHECK(consumed <= block.size());
    if (indexer.status() != IndexStatus::kOk) break;
    if (stop == size) CHECK(consumed == block.size());
    if (consumed > 0) CHECK(block[consumed - 1] == '\n' || stop == size);
    done += consumed;
    grow = consumed == 0 ? grow * 2 : 1;
    CHECK(indexer.consumed() == int64_t(done));
  }
  const IndexResult r = indexer.finish();
  CHECK(r.status == whole.status);
  if (r.status != IndexStatus::kOk) {
    CHECK(r.status_offset == whole.status_offset && r.status_line == whole.status_line);
    return;
  }
  CHECK(r.line_mode == whole.line_mode && r.total_lines == whole.total_lines &&
        r.ignored_lines == whole.ignored_lines);
  CHECK(std::equal(r.keys.begin(), r.keys.end(), whole.keys.begin(), whole.keys.end()));
  CHECK(std::equal(r.offsets.begin(), r.offsets.end(), whole.offsets.begin(), whole.offsets.end()));
  CHECK(std::equal(r.sizes.begin(), r.sizes.end(), whole.sizes.begin(), whole.sizes.end()));
  CHECK(std::equal(r.rows.begin(), r.rows.end(), whole.rows.begin(), whole.rows.end()));
  CHECK(std::equal(r.lines.begin(), r.lines.end(), whole.lines.begin(), whole.lines.end()));
  CHECK(std::equal(r.dropped_offsets.begin(), r.dropped_offsets.end(),
                   whole.dropped_offsets.begin(), whole.dropped_offsets.end()));
  CHECK(std::equal(r.dropped_lines.begin(), r.dropped_lines.end(), whole.dropped_lines.begin(),
                   whole.dropped_lines.end()));
}

// ---------------------------------------------------------------------------
// Parse invariants.

template <typename T>
void check_parse(const ParseRequest& req, const std::vector<StreamSpec>& specs,
                 const ParseResult<T>& r, size_t file_size) {
  CHECK(r.streams.size() == specs.size());
  // Issues.
  int64_t charged = 0, short_issues = 0, unknown_issues = 0, unknown_total = 0;
  bool fatal = false;
  std::vector<int64_t> skipped;  // sequences without a sample of some stream (skip mode)
  // Rejections so far in the current sequence (issues come in file order,
  // except the unknown-input summaries appended at the end).
  int64_t current = -1;
  bool rejected_sequence = false;
  std::vector<int64_t> rejected_lines;
  for (size_t i = 0; i < r.issues.size(); ++i) {
    const Issue& is = r.issues[i];
    if (is.sequence != current) {
      current = is.sequence;
      rejected_sequence = false;
      rejected_lines.clear();
    }
    // One location, one error: a row without samples or a sequence that is
    // short or lost a stream is charged only when nothing in it was rejected.
    const bool rejected_row = !rejected_lines.empty() && rejected_lines.back() == is.line;
    if (is.code == int32_t(IssueCode::kRowWithoutSamples)) CHECK(!rejected_row);
    if (is.code == int32_t(IssueCode::kTooFewSamples)) CHECK(!rejected_sequence);
    if (is.code == int32_t(IssueCode::kEmptyInput)) {
      CHECK(is.a == (rejected_sequence ? 1 : 0));
      skipped.push_back(is.sequence);
    }
    if (rejects(is.code)) {
      rejected_sequence = true;
      if (rejected_lines.empty() || rejected_lines.back() != is.line) {
        rejected_lines.push_back(is.line);
      }
    }
    CHECK(is_known_code(is.code));
    CHECK(is.stream >= -1 && is.stream < int32_t(specs.size()));
    CHECK(is.offset >= 0 && is.offset <= int64_t(file_size));
    CHECK(is.sequence >= 0 && size_t(is.sequence) < req.count);
    const SequenceSpan& span = req.sequences[is.sequence];
    const int64_t rel = is.offset - req.base_offset;
    CHECK(rel >= span.offset && rel <= span.offset + span.size);
    CHECK(is.line == span.line + count_newlines(req.data + span.offset, req.data + rel));
    if (is_charged(is, req.skip_incomplete)) ++charged;
    if (is.code == int32_t(IssueCode::kEmptyInput) && !req.skip_incomplete) fatal = true;
    if (is.code == int32_t(IssueCode::kDenseShort)) {
      ++short_issues;
      CHECK(is.stream >= 0 && !specs[size_t(is.stream)].sparse);
      CHECK(is.a >= 0 && is.a < is.b && is.b == specs[size_t(is.stream)].dim);
    }
    if (is.code == int32_t(IssueCode::kDenseTooLong)) {
      CHECK(is.stream >= 0 && !specs[size_t(is.stream)].sparse);
      CHECK(is.a > is.b && is.b == specs[size_t(is.stream)].dim);
    }
    if (is.code == int32_t(IssueCode::kSparseIndexRange)) {
      CHECK(is.stream >= 0 && specs[size_t(is.stream)].sparse);
      CHECK(uint64_t(is.a) >= uint64_t(specs[size_t(is.stream)].dim));
    }
    if (is.code == int32_t(IssueCode::kUnknownInput)) {
      ++unknown_issues;
      CHECK(is.a >= 1 && is.b >= 1);
      unknown_total += is.b;
      CHECK(req.data[rel] == '|');
    }
  }
  CHECK(charged == r.errors);
  CHECK(r.errors <= req.error_limit);
  CHECK(short_issues == std::min(req.warning_limit, r.dense_short));
  CHECK(unknown_issues <= 256);
  CHECK(unknown_total <= r.unknown_inputs);
  if (unknown_issues < 256) CHECK(unknown_total == r.unknown_inputs);
  if (r.aborted) {
    CHECK(fatal || r.errors >= req.error_limit);
  } else {
    CHECK(!fatal && r.errors < req.error_limit);
  }
  // Buffers.
  for (size_t k = 0; k < specs.size(); ++k) {
    const auto& s = r.streams[k];
    const int64_t dim = specs[k].dim;
    CHECK(s.samples >= 0);
    if (specs[k].sparse) {
      const bool wide = dim > (int64_t(1) << 31);
      CHECK(s.indptr.size() == size_t(s.samples) + 1);
      CHECK(s.indptr.front() == 0);
      for (size_t i = 1; i < s.indptr.size(); ++i) CHECK(s.indptr[i] >= s.indptr[i - 1]);
      CHECK(s.indptr.back() == int64_t(s.values.size()));
      if (wide) {
        CHECK(s.indices32.empty() && s.indices64.size() == s.values.size());
        for (int64_t x : s.indices64) CHECK(x >= 0 && x < dim);
      } else {
        CHECK(s.indices64.empty() && s.indices32.size() == s.values.size());
        for (int32_t x : s.indices32) CHECK(x >= 0 && int64_t(x) < dim);
      }
    } else {
      CHECK(s.indices32.empty() && s.indices64.empty() && s.indptr.empty());
      CHECK(s.values.size() == size_t(s.samples) * size_t(dim));
    }
    if (!r.aborted) {
      CHECK(s.sequence_samples.size() == req.count);
      int64_t sum = 0;
      for (size_t q = 0; q < s.sequence_samples.size(); ++q) {
        const int64_t n = s.sequence_samples[q];
        CHECK(n >= 0);
        if (n == 0) CHECK(std::find(skipped.begin(), skipped.end(), int64_t(q)) != skipped.end());
        sum += n;
      }
      CHECK(sum == s.samples);
    } else {
      CHECK(s.sequence_samples.size() <= req.count);
    }
  }
}

}  // namespace
