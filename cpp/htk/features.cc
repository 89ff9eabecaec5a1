// HTK parameter files (see features.h).
#include "features.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../engine/gather.h"

namespace mb::htk {
namespace {

constexpr int64_t kBlockBytes = int64_t(16) << 20;  // largest single pread

bool host_is_little() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }
uint16_t bswap16(uint16_t v) { return __builtin_bswap16(v); }

template <typename V>
V load(const uint8_t* p, bool swap) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  if (!swap) return v;
  if constexpr (sizeof(V) == 4) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = bswap32(u);
    std::memcpy(&v, &u, 4);
  } else {
    uint16_t u;
    std::memcpy(&u, &v, 2);
    u = bswap16(u);
    std::memcpy(&v, &u, 2);
  }
  return v;
}

// Reads exactly `n` bytes at `offset` (kShortRead at end of file, kIoError with errno).
ReadFailure read_exact(int fd, uint8_t* dst, int64_t n, int64_t offset, int32_t* error) {
  while (n > 0) {
    const ssize_t got = pread(fd, dst, size_t(std::min(n, kBlockBytes)), off_t(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      *error = errno;
      return ReadFailure::kIoError;
    }
    if (got == 0) return ReadFailure::kShortRead;
    dst += got;
    n -= got;
    offset += got;
  }
  return ReadFailure::kNone;
}

// The fixed part: 12 bytes (+ GUID, + A/B vectors), from `bytes` of `have` bytes.
Header parse_fixed(const uint8_t* bytes, int64_t have, int64_t size) {
  Header h;
  if (have < 12) {
    h.issue = int32_t(HeaderIssue::kTooShort);
    return h;
  }
  const uint32_t raw_period = load<uint32_t>(bytes + 4, false);
  h.swap = bswap32(raw_period) < raw_period;
  const int32_t samples = load<int32_t>(bytes, h.swap);
  h.period = load<int32_t>(bytes + 4, h.swap);
  h.sample_size = load<uint16_t>(bytes + 8, h.swap);
  h.kind = load<uint16_t>(bytes + 10, h.swap);
  const int32_t base = h.kind & kBaseMask;
  if (base != 6 && base != 7 && base != 9 && base != 11 && base != kFestream) {
    h.issue = int32_t(HeaderIssue::kUnsupportedKind);
    return h;
  }
  if (h.kind & kHasVq) {
    h.issue = int32_t(HeaderIssue::kVq);
    return h;
  }
  const bool compressed = (h.kind & kCompressed) != 0;
  const int32_t value_bytes = compressed ? 2 : 4;
  if (h.sample_size == 0 || h.sample_size % value_bytes != 0) {
    h.issue = int32_t(HeaderIssue::kBadSampleSize);
    return h;
  }
  h.dim = h.sample_size / value_bytes;
  int64_t at = 12;
  if (h.kind == kFestream) {
    if (have < at + 16) {
      h.issue = int32_t(HeaderIssue::kTooShort);
      return h;
    }
    std::memcpy(h.guid, bytes + at, 16);
    at += 16;
  }
  h.samples = samples;
  if (compressed) {
    h.samples -= 4;  // A and B take the space of 4 frames
    if (have < at + 8 * int64_t(h.dim)) {
      h.issue = int32_t(HeaderIssue::kTooShort);
      return h;
    }
    h.a.resize(size_t(h.dim));
    h.b.resize(size_t(h.dim));
    for (int32_t k = 0; k < h.dim; ++k) {
      h.a[size_t(k)] = load<float>(bytes + at + 4 * k, h.swap);
      h.b[size_t(k)] = load<float>(bytes + at + 4 * (int64_t(h.dim) + k), h.swap);
    }
    at += 8 * int64_t(h.dim);
  }
  h.data_start = at;
  if (h.samples < 0) {
    h.issue = int32_t(HeaderIssue::kBadSampleCount);
    return h;
  }
  const int64_t room = std::max<int64_t>(0, size - h.data_start);
  h.available = std::min<int64_t>(h.samples, room / h.sample_size);
  const int64_t need = h.data_start + h.samples * h.sample_size + ((h.kind & kHasCrc) ? 2 : 0);
  if (size < need) h.issue = int32_t(HeaderIssue::kTruncated);
  return h;
}

void check_crc(int fd, Header* h) {
  const int64_t first = h->kind == kFestream ? 28 : 12;
  const int64_t end = h->data_start + h->samples * h->sample_size;
  std::vector<uint8_t> block(size_t(std::min<int64_t>(kBlockBytes, std::max<int64_t>(end - first, 2))));
  uint32_t crc = 0;
  int32_t error = 0;
  for (int64_t at = first; at < end;) {
    const int64_t n = std::min<int64_t>(int64_t(block.size()), end - at);
    if (read_exact(fd, block.data(), n, at, &error) != ReadFailure::kNone) {
      h->issue = int32_t(HeaderIssue::kReadError);
      return;
    }
    crc = crc_update(crc, block.data(), n / 2, h->swap);
    at += n;
  }
  uint8_t stored[2];
  if (read_exact(fd, stored, 2, end, &error) != ReadFailure::kNone) {
    h->issue = int32_t(HeaderIssue::kReadError);
    return;
  }
  h->crc_stored = load<uint16_t>(stored, h->swap);
  h->crc_computed = uint16_t(crc);
  if (h->crc_stored != h->crc_computed) h->issue = int32_t(HeaderIssue::kBadCrc);
}

template <typename T>
void decode(const Header& h, const uint8_t* src, int64_t frames, T* out) {
  const int64_t n = frames * h.dim;
  if (h.kind & kCompressed) {
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = size_t(i % h.dim);
      const float x = (float(load<int16_t>(src + 2 * i, h.swap)) + h.b[k]) / h.a[k];
      out[i] = T(x);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = T(load<float>(src + 4 * i, h.swap));
  }
}

}  // namespace

uint32_t crc_update(uint32_t crc, const uint8_t* bytes, int64_t words, bool swap) {
  const bool big = host_is_little() == swap;  // the file's byte order
  auto word = [big](const uint8_t* p) -> uint64_t {
    return big ? (uint64_t(p[0]) << 8) | p[1] : uint64_t(p[0]) | (uint64_t(p[1]) << 8);
  };
  uint64_t c = crc;
  int64_t i = 0;
  for (; i + 3 <= words; i += 3) {  // three words at once: c < 36897 keeps this below 2^64
    const uint8_t* p = bytes + 2 * i;
    c = ((c << 48) | (word(p) << 32) | (word(p + 2) << 16) | word(p + 4)) % 36897;
  }
  for (; i < words; ++i) c = ((c << 16) | word(bytes + 2 * i)) % 36897;
  return uint32_t(c);
}

Header parse_header(const uint8_t* data, int64_t size) { return parse_fixed(data, size, size); }

Header read_header(int fd, int64_t file_size, bool verify_crc) {
  uint8_t head[28];
  int32_t error = 0;
  const int64_t first = std::min<int64_t>(file_size, 28);
  if (first < 12 || read_exact(fd, head, first, 0, &error) != ReadFailure::kNone) {
    Header h;
    h.issue = int32_t(first < 12 ? HeaderIssue::kTooShort : HeaderIssue::kReadError);
    return h;
  }
  Header h = parse_fixed(head, first, file_size);
  if (h.issue == int32_t(HeaderIssue::kTooShort) && h.dim > 0 && (h.kind & kCompressed)) {
    // the A/B vectors lie past the first 28 bytes: read them
    const int64_t at = h.kind == kFestream ? 28 : 12;
    const int64_t need = at + 8 * int64_t(h.dim);
    if (file_size >= need) {
      std::vector<uint8_t> bytes(static_cast<size_t>(need));
      if (read_exact(fd, bytes.data(), need, 0, &error) != ReadFailure::kNone) {
        h.issue = int32_t(HeaderIssue::kReadError);
        return h;
      }
      h = parse_fixed(bytes.data(), need, file_size);
    }
  }
  if (h.issue == 0 && verify_crc && (h.kind & kHasCrc)) check_crc(fd, &h);
  return h;
}

template <typename T>
ReadError read_frames(const Header* headers, const FrameRange* ranges, size_t count, int32_t dim,
                      T* out) {
  ReadError err;
  std::vector<uint8_t> buffer;
  size_t i = 0;
  while (i < count) {
    const FrameRange& r = ranges[i];
    const Header& h = headers[r.header];
    size_t j = i + 1;
    int64_t frames = r.count;
    while (j < count && ranges[j].fd == r.fd && ranges[j].header == r.header &&
           ranges[j].first == ranges[j - 1].first + ranges[j - 1].count) {
      frames += ranges[j].count;
      ++j;
    }
    for (size_t k = i; k < j; ++k) {
      if (ranges[k].first < 0 || ranges[k].count < 0 || h.dim != dim ||
          ranges[k].first + ranges[k].count > h.available) {
        err.range = int64_t(k);
        err.code = int32_t(ReadFailure::kOutOfRange);
        return err;
      }
    }
    const int64_t frames_per_block = std::max<int64_t>(1, kBlockBytes / h.sample_size);
    for (int64_t done = 0; done < frames;) {
      const int64_t n = std::min(frames_per_block, frames - done);
      const int64_t offset = h.data_start + (r.first + done) * h.sample_size;
      const int64_t bytes = n * h.sample_size;
      T* dst = out + done * dim;
      // float frames are read straight into the output and swapped in place
      const bool direct = std::is_same_v<T, float> && !(h.kind & kCompressed);
      uint8_t* target = reinterpret_cast<uint8_t*>(dst);
      if (!direct) {
        buffer.resize(size_t(bytes));
        target = buffer.data();
      }
      const ReadFailure rc = read_exact(r.fd, target, bytes, offset, &err.error);
      if (rc != ReadFailure::kNone) {
        err.range = int64_t(i);
        err.code = int32_t(rc);
        return err;
      }
      if (!direct) {
        decode(h, target, n, dst);
      } else if (h.swap) {
        uint32_t* words = reinterpret_cast<uint32_t*>(target);
        for (int64_t w = 0; w < n * dim; ++w) words[w] = bswap32(words[w]);
      }
      done += n;
    }
    out += frames * dim;
    i = j;
  }
  return err;
}

template ReadError read_frames<float>(const Header*, const FrameRange*, size_t, int32_t, float*);
template ReadError read_frames<double>(const Header*, const FrameRange*, size_t, int32_t, double*);

bool context_gather(const ContextSource* sources, size_t source_count, size_t row_bytes,
                    const int32_t* source, const int64_t* start, const int64_t* length,
                    size_t pieces, int32_t left, int32_t right, uint8_t* out) {
  std::vector<engine::ContextSource> engine_sources;  // the engine's kernel (one implementation)
  for (size_t s = 0; s < source_count; ++s) {
    engine_sources.push_back({sources[s].rows, sources[s].row_count, sources[s].bounds,
                              sources[s].bound_count});
    if (!engine::context_bounds_valid(engine_sources.back())) return false;
  }
  return engine::context_gather(engine_sources.data(), source_count, row_bytes,
                                {source, start, length, pieces}, left, right, out);
}

}  // namespace mb::htk
