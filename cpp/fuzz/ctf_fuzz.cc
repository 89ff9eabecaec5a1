// libFuzzer harness for the CTF indexer and parser (tools/fuzz.sh builds it
// with AddressSanitizer and UndefinedBehaviorSanitizer).
//
// Input layout: an 8-byte header that chooses the options, then the file.
//
//   h[0] flags   bit0    skip_sequence_ids
//                bit1    parse as double (float otherwise)
//                bit2-3  main alias: 0 none, 1..3 the alias of stream 0..2
//                        (an alias that names no stream when that stream is absent)
//                bit4-5  alias set: {a,b,c} {F0,F1,F2} {F,L,features} {A,B,labels}
//                bit6    differential check of scan_number against strtod/strtof
//                bit7    also parse every sequence in one request and compare
//                        with the per-chunk results
//   h[1]         streams = 1 + (h[1] & 3) % 3; bit2 skip_incomplete (a sequence
//                without a sample of some stream is skipped instead of fatal)
//   h[2..4]      stream k: bit3 sparse; bits0-2 dim code
//                        dense  {1, 2, 3, 4, 5, 10, 100, 784}
//                        sparse {1, 2, 3, 5, 100, 2^31, 2^31 + 1, 2^31 + 1 or
//                                INT64_MAX when bit4}
//   h[5]         bit7 ? error_limit 1000 : 1 + (h[5] & 15);
//                warning_limit {0, 1, 2, 3, 5, 8, 64, 1000}[(h[5] >> 4) & 7]
//   h[6]         chunk size 1 << (h[6] & 15); (h[6] >> 4) % 5 random sub-slice requests
//   h[7]         mixed into the seed of the sub-slice generator
//
// Inputs shorter than the header are padded with zero bytes. Invariants are
// checked with __builtin_trap() so that a violation is a crash for libFuzzer.
#include <memory>

#include "ctf_fuzz_checks.h"

namespace {

// Accumulates per-chunk results so they can be compared with one request
// over the whole file.
template <typename T>
struct Concat {
  ParseResult<T> all;
  bool aborted = false;
  explicit Concat(size_t streams) {
    all.streams.resize(streams);
    for (auto& s : all.streams) s.indptr.push_back(0);
  }
  void add(const ParseResult<T>& r) {
    aborted = aborted || r.aborted;
    all.errors += r.errors;
    all.dense_short += r.dense_short;
    all.unknown_inputs += r.unknown_inputs;
    for (size_t k = 0; k < r.streams.size(); ++k) {
      auto& dst = all.streams[k];
      const auto& src = r.streams[k];
      const int64_t base = int64_t(dst.values.size());
      dst.values.insert(dst.values.end(), src.values.begin(), src.values.end());
      dst.indices32.insert(dst.indices32.end(), src.indices32.begin(), src.indices32.end());
      dst.indices64.insert(dst.indices64.end(), src.indices64.begin(), src.indices64.end());
      for (size_t i = 1; i < src.indptr.size(); ++i) dst.indptr.push_back(base + src.indptr[i]);
      dst.sequence_samples.insert(dst.sequence_samples.end(), src.sequence_samples.begin(),
                                  src.sequence_samples.end());
      dst.samples += src.samples;
    }
  }
};

template <typename V, typename A, typename B>
bool same_bits(const std::vector<V, A>& a, const std::vector<V, B>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

template <typename T>
void compare_whole(const Concat<T>& chunks, const ParseResult<T>& whole,
                   const std::vector<StreamSpec>& specs) {
  if (chunks.aborted || whole.aborted) return;
  CHECK(chunks.all.errors == whole.errors);
  CHECK(chunks.all.dense_short == whole.dense_short);
  CHECK(chunks.all.unknown_inputs == whole.unknown_inputs);
  for (size_t k = 0; k < specs.size(); ++k) {
    const auto& a = chunks.all.streams[k];
    const auto& b = whole.streams[k];
    CHECK(a.samples == b.samples);
    CHECK(same_bits(a.values, b.values));
    CHECK(same_bits(a.indices32, b.indices32));
    CHECK(same_bits(a.indices64, b.indices64));
    if (specs[k].sparse) CHECK(same_bits(a.indptr, b.indptr));
    CHECK(same_bits(a.sequence_samples, b.sequence_samples));
  }
}

// ---------------------------------------------------------------------------
// A chunk parsed in pieces (the deserializer's parse on idle cores): the front
// parser takes pieces [0, m), separate parsers the rest, appended in order; an
// append that refuses makes the front parser parse the rest itself. The result
// is the one-shot parse's, issues included.

bool same_issue(const Issue& a, const Issue& b) {
  return a.code == b.code && a.stream == b.stream && a.offset == b.offset && a.line == b.line &&
         a.sequence == b.sequence && a.a == b.a && a.b == b.b;
}

template <typename T>
void check_pieces(const ParseRequest& req, const std::vector<StreamSpec>& specs,
                  const ParseResult<T>& whole, Rng& rng) {
  if (req.count < 2) return;
  std::vector<size_t> cuts{0};
  const size_t pieces = 2 + size_t(rng.below(std::min<size_t>(req.count - 1, 5)));
  for (size_t i = 1; i < pieces; ++i) cuts.push_back(1 + size_t(rng.below(req.count - 1)));
  cuts.push_back(req.count);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const size_t front = 1 + size_t(rng.below(cuts.size() - 1));  // pieces the front parser takes
  mb::ctf::ParseSettings set;
  set.main_stream = req.main_stream;
  set.error_limit = req.error_limit;
  set.warning_limit = req.warning_limit;
  set.skip_incomplete = req.skip_incomplete;
  set.rows_hint = rng.below(64);
  set.bytes_hint = req.size;
  set.sequences_hint = req.count;
  auto feed = [&](mb::ctf::StreamingParser<T>& p, size_t piece) {
    p.feed(req.data, req.size, req.base_offset, req.sequences + cuts[piece],
           cuts[piece + 1] - cuts[piece]);
  };
  mb::ctf::StreamingParser<T> main(specs, set);
  for (size_t i = 0; i < front; ++i) feed(main, i);
  std::vector<std::unique_ptr<mb::ctf::StreamingParser<T>>> later;
  for (size_t i = front; i + 1 < cuts.size(); ++i) {
    set.first_sequence = int64_t(cuts[i]);
    later.push_back(std::make_unique<mb::ctf::StreamingParser<T>>(specs, set));
    feed(*later.back(), i);
  }
  for (size_t i = front; i + 1 < cuts.size() && !main.aborted(); ++i) {
    CHECK(main.next_sequence() == int64_t(cuts[i]));
    if (!main.append(*later[i - front])) {
      for (size_t k = i; k + 1 < cuts.size(); ++k) feed(main, k);
      break;
    }
  }
  const ParseResult<T> r = main.finish();
  CHECK(r.aborted == whole.aborted && r.errors == whole.errors);
  CHECK(r.dense_short == whole.dense_short && r.unknown_inputs == whole.unknown_inputs);
  CHECK(r.issues.size() == whole.issues.size());
  for (size_t i = 0; i < r.issues.size(); ++i) CHECK(same_issue(r.issues[i], whole.issues[i]));
  for (size_t k = 0; k < specs.size(); ++k) {
    const auto& a = r.streams[k];
    const auto& b = whole.streams[k];
    CHECK(a.samples == b.samples);
    CHECK(same_bits(a.values, b.values));
    CHECK(same_bits(a.indices32, b.indices32));
    CHECK(same_bits(a.indices64, b.indices64));
    CHECK(same_bits(a.indptr, b.indptr));
    CHECK(same_bits(a.sequence_samples, b.sequence_samples));
  }
}

// ---------------------------------------------------------------------------
// Number scanner against the C library.

template <typename T>
T c_library_value(const uint8_t* p, const uint8_t* end) {
  const std::string text(reinterpret_cast<const char*>(p), size_t(end - p));
  char* stop = nullptr;
  T expected;
  if constexpr (sizeof(T) == sizeof(float)) {
    expected = std::strtof(text.c_str(), &stop);
  } else {
    expected = std::strtod(text.c_str(), &stop);
  }
  CHECK(stop == text.c_str() + text.size());  // the C library accepts the same text
  return expected;
}

// The parser's inlined short-decimal path: where it answers, the C library agrees.
template <typename T>
void check_short_decimal_at(const uint8_t* p, const uint8_t* end) {
  T value{};
  const uint8_t* stop = mb::ctf::scan_short_decimal<T>(p, end, &value);
  if (stop == nullptr) return;
  CHECK(stop > p && stop <= end);
  const T expected = c_library_value<T>(p, stop);
  CHECK(std::memcmp(&value, &expected, sizeof(T)) == 0);
}

template <typename T>
void check_number_at(const uint8_t* p, const uint8_t* end) {
  check_short_decimal_at<T>(p, end);
  T value{};
  const mb::ctf::NumberScan scan = mb::ctf::scan_number<T>(p, end, &value);
  CHECK(scan.end >= p && scan.end <= end);
  if (scan.error != mb::ctf::NumberError::kNone) return;
  CHECK(scan.end > p);
  const std::string text(reinterpret_cast<const char*>(p), size_t(scan.end - p));
  char* stop = nullptr;
  errno = 0;
  T expected;
  if constexpr (sizeof(T) == sizeof(float)) {
    expected = std::strtof(text.c_str(), &stop);
  } else {
    expected = std::strtod(text.c_str(), &stop);
  }
  CHECK(stop == text.c_str() + text.size());  // the C library accepts the same text
  if (std::isnan(expected)) {
    CHECK(std::isnan(value));
    return;
  }
  CHECK(std::memcmp(&value, &expected, sizeof(T)) == 0);  // correctly rounded, same sign
}

void check_numbers(const uint8_t* data, size_t size) {
  int budget = 48;
  for (size_t i = 0; i < size && budget > 0; ++i) {
    const uint8_t c = data[i];
    const bool start = mb::ctf::is_digit(c) || c == '+' || c == '-' || c == '.' ||
                       (c | 0x20) == 'i' || (c | 0x20) == 'n';
    if (!start || (i > 0 && (mb::ctf::is_digit(data[i - 1]) || data[i - 1] == '.'))) continue;
    --budget;
    check_number_at<float>(data + i, data + size);
    check_number_at<double>(data + i, data + size);
  }
}

// ---------------------------------------------------------------------------

template <typename T>
void run(const uint8_t* data, size_t size, const Options& o) {
  const IndexResult idx = mb::ctf::build_index(data, size, o.index, nullptr);
  check_index(data, size, o, idx);

  Rng rng{fnv1a(data, size) ^ (uint64_t(o.seed_byte) << 56)};
  check_streaming_index(data, size, o, idx, rng);

  if (idx.status == IndexStatus::kOk) {
    const size_t n = idx.offsets.size();
    const std::vector<int64_t> starts =
        mb::ctf::chunk_starts(idx.offsets.data(), idx.sizes.data(), n, o.chunk_size);
    CHECK(!starts.empty() && starts.front() == 0 && starts.back() == int64_t(n));
    for (size_t c = 0; c + 1 < starts.size(); ++c) CHECK(starts[c] < starts[c + 1]);
    Concat<T> concat(o.streams.size());
    for (size_t c = 0; c + 1 < starts.size(); ++c) {
      const size_t first = size_t(starts[c]), last = size_t(starts[c + 1]) - 1;
      const int64_t begin = idx.offsets[first];
      const int64_t end = idx.offsets[last] + idx.sizes[last];
      // The greedy rule: every later sequence of the chunk fits (span so far
      // plus its size; gaps before it are not counted), the next one does not.
      for (size_t i = first + 1; i <= last; ++i) {
        CHECK(idx.offsets[i - 1] + idx.sizes[i - 1] - begin + idx.sizes[i] <= o.chunk_size);
      }
      if (c + 2 < starts.size()) {
        CHECK(idx.offsets[last] + idx.sizes[last] - begin + idx.sizes[last + 1] > o.chunk_size);
      }
      // Exact-size copy: ASan reports any read past the chunk.
      const std::vector<uint8_t> bytes(data + begin, data + end);
      std::vector<SequenceSpan> spans;
      for (size_t i = first; i <= last; ++i) {
        spans.push_back({idx.offsets[i] - begin, idx.sizes[i], idx.rows[i], idx.lines[i]});
      }
      ParseRequest req;
      req.data = bytes.data();
      req.size = bytes.size();
      req.base_offset = begin;
      req.sequences = spans.data();
      req.count = spans.size();
      req.main_stream = o.main_stream;
      req.error_limit = o.error_limit;
      req.warning_limit = o.warning_limit;
      req.skip_incomplete = o.skip_incomplete;
      const ParseResult<T> r = mb::ctf::parse_chunk<T>(req, o.streams);
      check_parse(req, o.streams, r, size);
      check_pieces(req, o.streams, r, rng);
      if (o.whole_file) concat.add(r);
    }
    if (o.whole_file && n > 0) {
      std::vector<SequenceSpan> spans;
      for (size_t i = 0; i < n; ++i) {
        spans.push_back({idx.offsets[i], idx.sizes[i], idx.rows[i], idx.lines[i]});
      }
      ParseRequest req;
      req.data = data;
      req.size = size;
      req.base_offset = 0;
      req.sequences = spans.data();
      req.count = n;
      req.main_stream = o.main_stream;
      req.error_limit = o.error_limit;
      req.warning_limit = o.warning_limit;
      req.skip_incomplete = o.skip_incomplete;
      const ParseResult<T> whole = mb::ctf::parse_chunk<T>(req, o.streams);
      check_parse(req, o.streams, whole, size);
      compare_whole(concat, whole, o.streams);
    }
  }

  // Requests the indexer did not produce: arbitrary byte ranges, rows and lines.
  for (int j = 0; j < o.slices; ++j) {
    const size_t begin = size_t(rng.below(size + 1));
    const size_t end = begin + size_t(rng.below(size - begin + 1));
    const std::vector<uint8_t> bytes(data + begin, data + end);
    const size_t len = bytes.size();
    std::vector<SequenceSpan> spans(1 + rng.below(3));
    for (auto& s : spans) {
      s.offset = int64_t(rng.below(len + 1));
      s.size = int64_t(rng.below(len - size_t(s.offset) + 1));
      s.rows = int64_t(rng.below(10));
      s.line = 1 + int64_t(rng.below(1u << 30));
    }
    ParseRequest req;
    req.data = bytes.data();
    req.size = len;
    req.base_offset = int64_t(begin);
    req.sequences = spans.data();
    req.count = spans.size();
    req.main_stream = int32_t(rng.below(o.streams.size() + 1)) - 1;
    req.error_limit = rng.below(4) == 0 ? 1 + int64_t(rng.below(3)) : o.error_limit;
    req.warning_limit = o.warning_limit;
    req.skip_incomplete = o.skip_incomplete;
    const ParseResult<T> r = mb::ctf::parse_chunk<T>(req, o.streams);
    check_parse(req, o.streams, r, size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t input_size) {
  uint8_t header[kHeader] = {};
  const size_t h = input_size < kHeader ? input_size : kHeader;
  if (h > 0) std::memcpy(header, input, h);
  const Options o = decode(header);
  // Exact-size copy of the file part so that ASan sees reads past its end.
  const std::vector<uint8_t> file(input + h, input + input_size);
  const uint8_t* data = file.empty() ? nullptr : file.data();
  if (o.number_check && data) check_numbers(data, file.size());
  if (o.use_double) {
    run<double>(data, file.size(), o);
  } else {
    run<float>(data, file.size(), o);
  }
  return 0;
}
