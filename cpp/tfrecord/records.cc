#include "records.h"

#include <algorithm>
#include <cstring>

#include "crc32c.h"

namespace mb::tfrecord {
namespace {

uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}

enum class Step { kRecord, kBad, kStop };

// Examines the frame at `pos`; on kRecord/kBad sets `length`.
Step next_frame(const uint8_t* buf, size_t size, int64_t pos, bool verify, int64_t* length,
                Status* status) {
  const uint64_t avail = uint64_t(size) - uint64_t(pos);
  if (avail < uint64_t(kHeaderBytes)) {
    *status = Status::kTruncated;
    return Step::kStop;
  }
  const uint8_t* h = buf + pos;
  if (load_u32(h + 8) != masked_crc32c(h, 8)) {
    *status = Status::kHeaderCrc;
    return Step::kStop;
  }
  const uint64_t n = load_u64(h);
  if (n > avail - uint64_t(kFrameOverhead) || avail < uint64_t(kFrameOverhead)) {
    *status = Status::kTruncated;
    return Step::kStop;
  }
  *length = int64_t(n);
  if (verify) {
    const uint8_t* d = h + kHeaderBytes;
    if (load_u32(d + n) != masked_crc32c(d, size_t(n))) return Step::kBad;
  }
  return Step::kRecord;
}

// Shared walk: calls on_record(frame, length) for every good record.
template <typename OnRecord>
void walk(const uint8_t* buf, size_t size, int64_t pos, const Limits& limits,
          std::vector<int64_t>* bad, int64_t* next, Status* status, int64_t* status_offset,
          OnRecord&& on_record) {
  int64_t records = 0, bytes = 0;
  *status = Status::kOk;
  while (pos >= 0 && uint64_t(pos) < size) {
    if (limits.max_records >= 0 && records >= limits.max_records) break;
    if (limits.max_bytes >= 0 && records > 0 && bytes >= limits.max_bytes) break;
    int64_t n = 0;
    const Step step = next_frame(buf, size, pos, limits.verify_data, &n, status);
    if (step == Step::kStop) {
      *status_offset = pos;
      break;
    }
    if (step == Step::kBad) {
      if (!limits.skip_bad_data) {
        *status = Status::kDataCrc;
        *status_offset = pos;
        break;
      }
      bad->push_back(pos);
    } else {
      on_record(pos, n);
      bytes += n;
    }
    ++records;
    pos += n + kFrameOverhead;
  }
  *next = pos;
}

}  // namespace

ScanResult scan(const uint8_t* buf, size_t size, int64_t pos, const Limits& limits) {
  ScanResult r;
  walk(buf, size, pos, limits, &r.bad, &r.next, &r.status, &r.status_offset,
       [&r](int64_t frame, int64_t n) {
         r.frames.push_back(frame);
         r.lengths.push_back(n);
       });
  return r;
}

ReadResult read(const uint8_t* buf, size_t size, int64_t pos, const Limits& limits) {
  // Walk first (frames, lengths, CRCs), then size the output once and copy:
  // growing it record by record costs more than the whole walk.
  ReadResult r;
  Buffer<int64_t> lengths;
  walk(buf, size, pos, limits, &r.bad, &r.next, &r.status, &r.status_offset,
       [&r, &lengths](int64_t frame, int64_t n) {
         r.frames.push_back(frame);
         lengths.push_back(n);
       });
  const size_t count = r.frames.size();
  r.ends.resize(count);
  int64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    total += lengths[i];
    r.ends[i] = total;
  }
  r.data.resize(size_t(total));
  uint8_t* out = r.data.data();
  for (size_t i = 0; i < count; ++i) {
    if (lengths[i] > 0) std::memcpy(out, buf + r.frames[i] + kHeaderBytes, size_t(lengths[i]));
    out += lengths[i];
  }
  return r;
}

namespace {

// The frame checks of check_frames before the data CRC (kOk when they pass).
Status check_header(const uint8_t* buf, size_t size, int64_t pos, int64_t len) {
  const bool inside = pos >= 0 && len >= 0 && uint64_t(pos) <= size &&
                      uint64_t(len) <= size - uint64_t(pos) &&
                      size - uint64_t(pos) - uint64_t(len) >= uint64_t(kFrameOverhead);
  if (!inside) return Status::kTruncated;
  const uint8_t* h = buf + pos;
  if (load_u32(h + 8) != masked_crc32c(h, 8)) return Status::kHeaderCrc;
  if (load_u64(h) != uint64_t(len)) return Status::kLength;
  return Status::kOk;
}

}  // namespace

size_t first_bad_crc(const uint8_t* buf, const int64_t* frames, const int64_t* lengths,
                     size_t n) {
  // In groups, several CRCs at once (crc32c_many): one CRC stream waits on the
  // instruction's latency.
  constexpr size_t kGroup = 48;
  const uint8_t* data[kGroup];
  size_t sizes[kGroup];
  uint32_t crcs[kGroup];
  for (size_t g = 0; g < n; g += kGroup) {
    const size_t end = std::min(n, g + kGroup);
    for (size_t i = g; i < end; ++i) {
      data[i - g] = buf + frames[i] + kHeaderBytes;
      sizes[i - g] = size_t(lengths[i]);
    }
    crc32c_many(data, sizes, end - g, crcs);
    for (size_t i = g; i < end; ++i) {
      if (load_u32(data[i - g] + sizes[i - g]) != mask_crc(crcs[i - g])) return i;
    }
  }
  return n;
}

CheckResult check_frames(const uint8_t* buf, size_t size, const int64_t* frames,
                         const int64_t* lengths, size_t n, bool verify) {
  // Records are checked in groups: every header of the group first, then the
  // data CRCs of the records before the first bad header. The first record
  // that fails, in order, is reported.
  constexpr size_t kGroup = 48;
  CheckResult r;
  for (size_t g = 0; g < n; g += kGroup) {
    const size_t end = std::min(n, g + kGroup);
    size_t good = end;  // records g .. good-1 have good headers
    Status header = Status::kOk;
    for (size_t i = g; i < end && header == Status::kOk; ++i) {
      header = check_header(buf, size, frames[i], lengths[i]);
      if (header != Status::kOk) good = i;
    }
    if (verify) {
      const size_t bad = g + first_bad_crc(buf, frames + g, lengths + g, good - g);
      if (bad < good) {
        r.status = Status::kDataCrc;
        r.failed = int64_t(bad);
        return r;
      }
    }
    if (header != Status::kOk) {
      r.status = header;
      r.failed = int64_t(good);
      return r;
    }
  }
  return r;
}

ChunkResult frame_chunk(const uint8_t* buf, size_t size, bool verify) {
  ChunkResult r;
  std::vector<int64_t> bad;
  Limits limits;
  limits.verify_data = false;
  walk(buf, size, 0, limits, &bad, &r.next, &r.status, &r.status_offset,
       [&r](int64_t frame, int64_t n) {
         r.frames.push_back(frame);
         r.lengths.push_back(n);
       });
  const size_t n = r.frames.size();
  if (verify) {
    const size_t first = first_bad_crc(buf, r.frames.data(), r.lengths.data(), n);
    r.first_bad = first < n ? int64_t(first) : -1;
  }
  r.crcs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    r.crcs[i] = load_u32(buf + r.frames[i] + kHeaderBytes + r.lengths[i]);
  }
  return r;
}

void digest_rows(const uint8_t* buf, const int64_t* frames, const int64_t* lengths, size_t n,
                 uint8_t* out) {
  for (size_t i = 0; i < n; ++i, out += 12) {
    const uint64_t len = uint64_t(lengths[i]);
    for (int b = 0; b < 8; ++b) out[b] = uint8_t(len >> (8 * b));
    std::memcpy(out + 8, buf + frames[i] + kHeaderBytes + lengths[i], 4);
  }
}

void frame(const uint8_t* data, size_t n, uint8_t* out) {
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(n) >> (8 * i));
  store_u32(out + 8, masked_crc32c(out, 8));
  if (n > 0) std::memcpy(out + kHeaderBytes, data, n);
  store_u32(out + kHeaderBytes + n, masked_crc32c(data, n));
}

}  // namespace mb::tfrecord
