// libFuzzer harness for the TFRecord core (tools/fuzz.sh builds it with
// AddressSanitizer and UndefinedBehaviorSanitizer).
//
// Input layout: a 4-byte header, then the bytes.
//   h[0] bit0 verify data CRCs, bit1 skip bad records, bit2 decode the bytes as
//        Examples instead of framing them, bit3 TF's strict kind rules, bit4 decode
//        SequenceExamples (context a, b; feature lists c, a), bit5 through spans
//   h[1] max_records = h[1] % 9 - 1 (-1: no limit)
//   h[2] max_bytes = h[2] < 128 ? h[2] : -1
//   h[3] kinds of the three decoded features a, b, c (2 bits each, 0 -> 1)
//
// Invariants (trapped): read() and scan() walk the same frames; every frame
// returned lies inside the buffer with its length; the hardware and portable
// CRCs agree; the decoded counts and values are consistent with each other.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tfrecord/crc32c.h"
#include "tfrecord/example.h"
#include "tfrecord/records.h"

using namespace mb::tfrecord;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void fuzz_framing(const uint8_t* d, size_t n, const uint8_t* h) {
  Limits limits;
  limits.verify_data = h[0] & 1;
  limits.skip_bad_data = h[0] & 2;
  limits.max_records = int64_t(h[1] % 9) - 1;
  limits.max_bytes = h[2] < 128 ? h[2] : -1;
  const ReadResult r = read(d, n, 0, limits);
  Limits scan_limits = limits;
  scan_limits.max_bytes = -1;
  const ScanResult s = scan(d, n, 0, scan_limits);
  check(r.ends.size() == r.frames.size());
  check(r.next >= 0 && uint64_t(r.next) <= n);
  int64_t prev = 0;
  for (size_t i = 0; i < r.frames.size(); ++i) {
    const int64_t len = r.ends[i] - prev;
    check(len >= 0 && r.frames[i] >= 0);
    check(uint64_t(r.frames[i]) + uint64_t(len) + kFrameOverhead <= n);
    check(len == 0 || std::memcmp(r.data.data() + prev, d + r.frames[i] + kHeaderBytes,
                                  size_t(len)) == 0);
    prev = r.ends[i];
  }
  if (limits.max_bytes < 0) {
    check(s.frames.size() == r.frames.size() && s.next == r.next && s.status == r.status);
    for (size_t i = 0; i < s.frames.size(); ++i) check(s.frames[i] == r.frames[i]);
  }
  check(crc32c_portable(0, d, n) == crc32c_extend(0, d, n));
  // Read by position: the frames found check out in place (reversed order),
  // and a made-up frame list (any offsets and lengths) is refused, never read.
  std::vector<int64_t> frames(s.frames.rbegin(), s.frames.rend());
  std::vector<int64_t> lengths(s.lengths.rbegin(), s.lengths.rend());
  const CheckResult c = check_frames(d, n, frames.data(), lengths.data(), frames.size(),
                                     limits.verify_data);
  check(c.status == Status::kOk || (limits.verify_data && limits.skip_bad_data == false &&
                                    c.status == Status::kDataCrc));
  const int64_t odd[] = {int64_t(h[1]) - 3, int64_t(n) - 12, int64_t(h[2])};
  const int64_t odd_len[] = {int64_t(h[2]), 0, int64_t(n)};
  const CheckResult bad = check_frames(d, n, odd, odd_len, 3, true);
  check(bad.failed >= -1 && bad.failed < 3);
}

// Counts and values agree: every present count is covered by values, byte
// ends are increasing offsets inside the bytes.
void check_column(const FeatureValues& f, Kind kind, size_t rows) {
  check(f.counts.size() == rows);
  int64_t total = 0;
  for (int64_t c : f.counts) {
    check(c >= -1);
    total += c > 0 ? c : 0;
  }
  if (kind == Kind::kInt64) check(int64_t(f.ints.size()) == total);
  if (kind == Kind::kFloat) check(int64_t(f.floats.size()) == total);
  if (kind == Kind::kBytes) {
    check(int64_t(f.byte_ends.size()) == total);
    for (size_t j = 0; j < f.byte_ends.size(); ++j) {
      check(f.byte_ends[j] >= (j ? f.byte_ends[j - 1] : 0));
      check(uint64_t(f.byte_ends[j]) <= f.bytes.size());
    }
    check(f.byte_ends.empty() ? f.bytes.empty() : uint64_t(f.byte_ends.back()) == f.bytes.size());
  }
}

std::vector<FeatureSpec> specs_from(uint8_t bits, const char* const* names) {
  std::vector<FeatureSpec> specs;
  for (int k = 0; k < 2 + (names[2] != nullptr); ++k) {
    const int kind = (bits >> (2 * k)) & 3;
    specs.push_back({names[k], Kind(kind == 0 ? 1 : kind)});
  }
  return specs;
}

void fuzz_examples(const uint8_t* d, size_t n, const uint8_t* h) {
  // Split the bytes into records at each 0xFF byte.
  std::vector<int64_t> ends;
  for (size_t i = 0; i < n; ++i) {
    if (d[i] == 0xFF) ends.push_back(int64_t(i));
  }
  ends.push_back(int64_t(n));
  std::vector<RecordSpan> spans;
  int64_t start = 0;
  for (int64_t e : ends) {
    spans.push_back({d + start, size_t(e - start)});
    start = e;
  }
  const bool strict = h[0] & 8;
  static const char* const kExample[] = {"a", "b", "c"};
  static const char* const kContext[] = {"a", "b", nullptr};
  static const char* const kLists[] = {"c", "a", nullptr};
  if (h[0] & 16) {
    const auto context = specs_from(h[3], kContext);
    const auto lists = specs_from(uint8_t(h[3] >> 4), kLists);
    const DecodeResult r = decode_sequence_examples(spans.data(), spans.size(), context, lists);
    check((r.error == DecodeError::kNone) == (r.records == int64_t(spans.size())));
    for (size_t k = 0; k < context.size(); ++k) {
      check_column(r.features[k], context[k].kind, size_t(r.records));
    }
    for (size_t k = 0; k < lists.size(); ++k) {
      const FeatureValues& f = r.features[context.size() + k];
      check(f.steps.size() == size_t(r.records));
      size_t steps = 0;
      for (int64_t s : f.steps) steps += s > 0 ? size_t(s) : 0;
      check_column(f, lists[k].kind, steps);
      for (int64_t c : f.counts) check(c >= 0);
    }
    return;
  }
  const auto specs = specs_from(h[3], kExample);
  const DecodeResult r = (h[0] & 32)
      ? decode_examples(spans.data(), spans.size(), specs, strict)
      : decode_examples(d, ends.data(), ends.size(), specs, strict);
  check(r.records <= int64_t(ends.size()));
  check((r.error == DecodeError::kNone) == (r.records == int64_t(ends.size())));
  for (size_t k = 0; k < specs.size(); ++k) check_column(r.features[k], specs[k].kind,
                                                         size_t(r.records));
  if (strict) {  // strict rules only ever refuse more, never decode differently
    const DecodeResult lenient = decode_examples(d, ends.data(), ends.size(), specs, false);
    check(lenient.records >= r.records);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t h[4] = {0, 0, 0, 0};
  std::memcpy(h, data, size < 4 ? size : 4);
  const uint8_t* d = size > 4 ? data + 4 : data;
  const size_t n = size > 4 ? size - 4 : 0;
  std::vector<uint8_t> copy(d, d + n);  // exact-size buffer: ASan sees any overread
  if (h[0] & 4) {
    fuzz_examples(copy.data(), copy.size(), h);
  } else {
    fuzz_framing(copy.data(), copy.size(), h);
  }
  return 0;
}
