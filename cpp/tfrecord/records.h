// TFRecord framing: walking the frames of a buffer, building a record index,
// and copying many records into one flat buffer in a single call.
//
// A frame is: uint64 length (little-endian), uint32 masked CRC-32C of those
// 8 bytes, `length` data bytes, uint32 masked CRC-32C of the data. There is
// no file header or footer.
//
// Every function works on a buffer holding the (uncompressed) stream from
// offset 0 to `size` and starts at frame offset `pos`. When a frame does not
// fit in the buffer the result says kTruncated and `next` is that frame's
// offset: a caller streaming a compressed file appends more bytes and calls
// again; at the end of the file it is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/buffer.h"

namespace mb::tfrecord {

constexpr int64_t kHeaderBytes = 12;  // length + its CRC
constexpr int64_t kFrameOverhead = 16;

enum class Status : int {
  kOk = 0,          // stopped at the end of the buffer or at a requested limit
  kTruncated = 1,   // the frame at `next` does not fit in the buffer
  kHeaderCrc = 2,   // the length's CRC does not match (the length cannot be trusted)
  kDataCrc = 3,     // the data's CRC does not match (the frame is at `status_offset`)
  kLength = 4,      // the frame does not hold the length the index recorded (the file changed)
};

struct Limits {
  int64_t max_records = -1;  // frames walked, skipped ones included (< 0: no limit)
  int64_t max_bytes = -1;    // data bytes per call (< 0: no limit); at least one record is taken
  bool verify_data = true;   // check the data CRC of every record
  bool skip_bad_data = false;  // a data CRC mismatch skips the record (listed in `bad`)
};

struct ScanResult {
  Buffer<int64_t> frames;   // frame offsets of the records found
  Buffer<int64_t> lengths;  // their data lengths
  std::vector<int64_t> bad;  // frame offsets of skipped records (data CRC)
  int64_t next = 0;          // offset of the first frame not consumed
  Status status = Status::kOk;
  int64_t status_offset = -1;  // the frame the status refers to
};

// Walks the frames from `pos`, checking every length CRC (and the data CRC
// when limits.verify_data), without copying data.
ScanResult scan(const uint8_t* buf, size_t size, int64_t pos, const Limits& limits);

struct ReadResult {
  // The records' bytes, back to back. A plain (malloc) vector: batches are a
  // few MiB at most and come and go, so the heap reuses their memory, while
  // fresh mapped pages would cost a page fault each.
  std::vector<uint8_t> data;
  Buffer<int64_t> ends;   // end offset of record i in `data`
  Buffer<int64_t> frames; // frame offset of record i in the stream
  std::vector<int64_t> bad;
  int64_t next = 0;
  Status status = Status::kOk;
  int64_t status_offset = -1;
};

// Like scan(), and copies the data of every record into one flat buffer.
ReadResult read(const uint8_t* buf, size_t size, int64_t pos, const Limits& limits);

// Read by position: checks `n` records whose frames start at buf[frames[i]]
// and hold lengths[i] data bytes (as a record index says): that every frame
// lies inside the buffer, its length field (and that field's CRC) against
// lengths[i], and with `verify` the data CRC. The caller then uses the data in
// place (buf[frames[i] + 12 ..]). Stops at the first record that fails:
// `failed` is its index (-1 when all are good).
struct CheckResult {
  Status status = Status::kOk;
  int64_t failed = -1;
};

CheckResult check_frames(const uint8_t* buf, size_t size, const int64_t* frames,
                         const int64_t* lengths, size_t n, bool verify);

// Frames a chunk of a file read in order (TFRecordFile's growing index): the
// frames scan() finds from offset 0 (length CRCs checked), then, with `verify`,
// the data CRC of each of them (several at a time, as check_frames), and the
// stored data CRC of every frame found (with its length, what the content digest
// is made of: digest_rows). `first_bad` is the index of the first record whose
// data CRC does not match (-1: none); the frames after it are still listed (the
// index holds every frame).
struct ChunkResult {
  Buffer<int64_t> frames;
  Buffer<int64_t> lengths;
  Buffer<uint32_t> crcs;  // the stored (masked) data CRC of each frame
  int64_t next = 0;
  Status status = Status::kOk;
  int64_t status_offset = -1;
  int64_t first_bad = -1;
};

ChunkResult frame_chunk(const uint8_t* buf, size_t size, bool verify);

// The index of the first of `n` records (frames inside the buffer, as the
// caller checked) whose data CRC does not match; `n` when all match.
size_t first_bad_crc(const uint8_t* buf, const int64_t* frames, const int64_t* lengths, size_t n);

// What a file's content digest is made of (TFRecordFile.content_digest): for
// each record, its length (8 bytes, little-endian) and its stored data CRC (4
// bytes), 12 bytes per record into `out`. The caller has checked that every
// frame lies inside the buffer (frames[i] + lengths[i] + 16 <= size).
void digest_rows(const uint8_t* buf, const int64_t* frames, const int64_t* lengths, size_t n,
                 uint8_t* out);

// Writes the frame of `n` data bytes into `out` (n + 16 bytes).
void frame(const uint8_t* data, size_t n, uint8_t* out);

}  // namespace mb::tfrecord
