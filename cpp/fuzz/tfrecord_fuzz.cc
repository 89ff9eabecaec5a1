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
// Invariants (trapped): read(), scan() and frame_chunk() walk the same frames; every frame
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

// check_frames one record after the other (what the grouped version must match).
CheckResult check_one_by_one(const uint8_t* d, size_t n, const int64_t* frames,
                             const int64_t* lengths, size_t count, bool verify) {
  CheckResult r;
  for (size_t i = 0; i < count; ++i) {
    const int64_t pos = frames[i], len = lengths[i];
    if (pos < 0 || len < 0 || uint64_t(pos) + uint64_t(len) + kFrameOverhead > n) {
      r.status = Status::kTruncated;
    } else if (mask_crc(crc32c_portable(0, d + pos, 8)) !=
                   (uint32_t(d[pos + 8]) | uint32_t(d[pos + 9]) << 8 |
                    uint32_t(d[pos + 10]) << 16 | uint32_t(d[pos + 11]) << 24)) {
      r.status = Status::kHeaderCrc;
    } else {
      uint64_t stored = 0;
      for (int b = 7; b >= 0; --b) stored = (stored << 8) | d[pos + b];
      const uint8_t* c = d + pos + kHeaderBytes + len;
      const uint32_t crc = uint32_t(c[0]) | uint32_t(c[1]) << 8 | uint32_t(c[2]) << 16 |
                           uint32_t(c[3]) << 24;
      if (stored != uint64_t(len)) {
        r.status = Status::kLength;
      } else if (verify &&
                 crc != mask_crc(crc32c_portable(0, d + pos + kHeaderBytes, size_t(len)))) {
        r.status = Status::kDataCrc;
      }
    }
    if (r.status != Status::kOk) {
      r.failed = int64_t(i);
      return r;
    }
  }
  return r;
}

// The grouped, interleaved CRCs of check_frames and crc32c_many against one record
// at a time: many frame lists cut from the buffer (real frames repeated past a
// group of 48, lengths off by one, made-up offsets), and digest_rows against the
// bytes it copies.
void check_grouped_crcs(const uint8_t* d, size_t n, const std::vector<int64_t>& frames,
                        const std::vector<int64_t>& lengths, const uint8_t* h) {
  std::vector<int64_t> f, len;
  for (size_t k = 0; k < 100 && !frames.empty(); ++k) {
    const size_t i = (k * (h[3] | 1u)) % frames.size();
    f.push_back(frames[i]);
    len.push_back(lengths[i] + (k % 37 == 36 ? int64_t(h[2] % 3) - 1 : 0));
  }
  f.push_back(int64_t(h[1]) * 7);
  len.push_back(int64_t(h[2]));
  for (bool verify : {false, true}) {
    const CheckResult a = check_frames(d, n, f.data(), len.data(), f.size(), verify);
    const CheckResult b = check_one_by_one(d, n, f.data(), len.data(), f.size(), verify);
    check(a.status == b.status && a.failed == b.failed);
  }
  std::vector<const uint8_t*> ptr;
  std::vector<size_t> size;
  for (size_t i = 0; i < n && ptr.size() < 50; i += 1 + h[1] % 16) {
    ptr.push_back(d + i);
    size.push_back((n - i) % (1 + size_t(h[2])));
  }
  std::vector<uint32_t> crcs(ptr.size());
  crc32c_many(ptr.data(), size.data(), ptr.size(), crcs.data());
  for (size_t i = 0; i < ptr.size(); ++i) check(crcs[i] == crc32c_portable(0, ptr[i], size[i]));
  std::vector<uint8_t> rows(12 * frames.size());
  digest_rows(d, frames.data(), lengths.data(), frames.size(), rows.data());
  for (size_t i = 0; i < frames.size(); ++i) {
    uint64_t stored = 0;
    for (int b = 7; b >= 0; --b) stored = (stored << 8) | rows[12 * i + b];
    check(stored == uint64_t(lengths[i]));
    check(std::memcmp(rows.data() + 12 * i + 8, d + frames[i] + kHeaderBytes + lengths[i], 4) ==
          0);
  }
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
  check_grouped_crcs(d, n, frames, lengths, h);
  // A chunk of a file read in order: scan's frames, the first data CRC that
  // fails as check_frames finds it, the stored CRCs digest_rows takes.
  const ChunkResult k = frame_chunk(d, n, limits.verify_data);
  Limits plain;
  plain.verify_data = false;
  const ScanResult all = scan(d, n, 0, plain);
  check(k.frames.size() == all.frames.size() && k.next == all.next && k.status == all.status &&
        k.status_offset == all.status_offset && k.crcs.size() == k.frames.size());
  std::vector<uint8_t> chunk_rows(12 * k.frames.size());
  digest_rows(d, k.frames.data(), k.lengths.data(), k.frames.size(), chunk_rows.data());
  for (size_t i = 0; i < k.frames.size(); ++i) {
    check(k.frames[i] == all.frames[i] && k.lengths[i] == all.lengths[i]);
    check(std::memcmp(chunk_rows.data() + 12 * i + 8, &k.crcs[i], 4) == 0);  // little-endian
  }
  const CheckResult whole = check_frames(d, n, all.frames.data(), all.lengths.data(),
                                         all.frames.size(), limits.verify_data);
  check(k.first_bad == (whole.status == Status::kDataCrc ? whole.failed : -1));
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
