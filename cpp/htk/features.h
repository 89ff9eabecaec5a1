// HTK parameter files (cntk-htk-mlf-and-randomizer.md §3, DECISIONS 13):
// the 12-byte header with per-file byte-order detection, parameter kinds and
// qualifiers, `_C` decompression, `_K` checksums, and frame-range reads with
// pread (archives are read by range; nothing else of the file is touched).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mb::htk {

// Qualifier bits of parmKind (octal, HTK's values).
constexpr int32_t kBaseMask = 077;
constexpr int32_t kHasEnergy = 0100;      // _E
constexpr int32_t kHasNullEnergy = 0200;  // _N
constexpr int32_t kHasDelta = 0400;       // _D
constexpr int32_t kHasAccs = 01000;       // _A
constexpr int32_t kCompressed = 02000;    // _C
constexpr int32_t kZeroMean = 04000;      // _Z
constexpr int32_t kHasCrc = 010000;       // _K
constexpr int32_t kHasZeroC = 020000;     // _0
constexpr int32_t kHasVq = 040000;        // _V
constexpr int32_t kHasThird = 0100000;    // _T
constexpr int32_t kFestream = 12;         // CNTK's FESTREAM: a 16-byte GUID follows the header

enum class HeaderIssue : int32_t {
  kNone = 0,
  kTooShort = 1,        // fewer bytes than the header (and GUID, A/B vectors) need
  kUnsupportedKind = 2, // base kind not MFCC, FBANK, USER, PLP or FESTREAM
  kVq = 3,              // _V (vector-quantized) files
  kBadSampleSize = 4,   // 0, or not a multiple of the value size
  kBadSampleCount = 5,  // negative (after the 4 A/B "frames" of _C)
  kTruncated = 6,       // the file ends before its last frame (or its checksum)
  kBadCrc = 7,          // the _K checksum does not match
  kReadError = 8,       // pread failed
};

struct Header {
  int32_t issue = 0;       // HeaderIssue
  int64_t samples = 0;     // frames in the file (the 4 A/B "frames" of _C removed)
  int32_t period = 0;      // sample period in 100 ns
  int32_t sample_size = 0; // bytes per frame
  int32_t kind = 0;        // parmKind with every qualifier
  bool swap = false;       // the file's byte order differs from the host's
  int64_t data_start = 0;  // byte offset of frame 0
  int32_t dim = 0;         // values per frame
  int64_t available = 0;   // frames actually present (< samples when truncated)
  uint16_t crc_stored = 0, crc_computed = 0;
  std::vector<float> a, b; // _C decompression vectors (host order)
  uint8_t guid[16] = {};
};

// Reads and checks the header of an open file of `file_size` bytes; with
// `verify_crc`, a _K file is read whole to check its checksum.
Header read_header(int fd, int64_t file_size, bool verify_crc);

// Parses a header from the first bytes of a file (no checksum); used by the
// fuzz target. `size` is the file size.
Header parse_header(const uint8_t* data, int64_t size);

// HTK's running checksum over 16-bit words: crc = (crc * 65536 + w) % 36897.
uint32_t crc_update(uint32_t crc, const uint8_t* bytes, int64_t words, bool swap);

struct FrameRange {
  int fd;
  int64_t header;  // index into the headers of the request
  int64_t first;   // first frame
  int64_t count;   // frames
};

enum class ReadFailure : int32_t {
  kNone = 0,
  kShortRead = 1,   // the file ended before the range: it shrank since it was indexed
  kIoError = 2,     // pread failed (ReadError::error holds errno)
  kOutOfRange = 3,  // a range outside the header's frames, or another dim: the caller's bug
};

struct ReadError {
  int64_t range = -1;  // the failing range
  int32_t code = 0;    // ReadFailure
  int32_t error = 0;   // errno
};

// Reads `ranges` (consecutive ranges of one file are read with one pread)
// into `out` (rows of `dim` values of T). All headers must share `dim`.
template <typename T>
ReadError read_frames(const Header* headers, const FrameRange* ranges, size_t count, int32_t dim,
                      T* out);

// Frames with neighbours: output row i of piece p is the concatenation of the
// rows clamp(r + j, ub, ue - 1), j = -left..right, where r is the piece's
// row i and [ub, ue) the sequence (bounds) that holds it. Checks the bounds,
// then runs the engine's kernel (mb::engine::context_gather, cpp/engine/gather.h).
struct ContextSource {
  const uint8_t* rows;
  int64_t row_count;
  const int64_t* bounds;  // increasing, bounds[0] == 0, bounds[n] == row_count
  int64_t bound_count;
};

bool context_gather(const ContextSource* sources, size_t source_count, size_t row_bytes,
                    const int32_t* source, const int64_t* start, const int64_t* length,
                    size_t pieces, int32_t left, int32_t right, uint8_t* out);

}  // namespace mb::htk
