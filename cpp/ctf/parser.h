// CTF parser: bytes of indexed sequences -> flat per-stream buffers.
//
// Pure C++17, no Python. The caller (the binding) owns the file mapping and
// passes the bytes of one chunk plus the spans of its sequences; the parser
// returns dense values, sparse values/indices/indptr and per-sequence sample
// counts for every configured stream, and a list of located issues. Error
// budgets, messages and logging live in Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/buffer.h"

namespace mb::ctf {

struct StreamSpec {
  std::string alias;  // the name used in the file after '|'
  int64_t dim = 0;
  bool sparse = false;
};

// Issue codes shared with Python (minibatcher.formats.ctf.issues).
enum class IssueCode : int32_t {
  // Errors charged to the error budget.
  kExpectedNamePrefix = 1,   // a = offending byte
  kBadNameStart = 2,         // a = byte after '|' (-1 at end of data)
  kBadNumber = 3,            // a = offending byte (-1 at end), b = NumberError
  kBadValueEnd = 4,          // a = byte that follows a complete value
  kDenseTooLong = 5,         // a = values found, b = dim
  kSparseIndexMissing = 6,   // a = offending byte (-1 at end)
  kSparseIndexOverflow = 7,  // index does not fit into 64 bits
  kSparseIndexRange = 8,     // a = index, b = dim
  kSparseColonMissing = 9,   // a = offending byte (-1 at end), b = index
  kDuplicateInput = 10,      // stream repeated on one row
  kRowWithoutSamples = 11,   // a row with content but no sample, none of it rejected by an
                             // error above (e.g. only unknown inputs); a row that lost its
                             // samples to errors is not charged again
  kTooFewSamples = 12,       // a = samples of the longest defining stream, b = rows; only
                             // when no sample or row of the sequence was rejected
  // A stream has no sample in a sequence (the first such stream). Fatal unless
  // skip_incomplete is set; then the sequence is skipped, and the issue is
  // charged when a == 0 (no sample or row of the sequence was rejected, so the
  // stream is simply missing) and not when a == 1 (it follows from errors
  // charged above).
  kEmptyInput = 20,
  // Warnings, never charged.
  kDenseShort = 30,          // a = values found, b = dim (zero-filled)
  kUnknownInput = 31,        // a = name length, b = occurrences in this call
};

struct Issue {
  int32_t code;
  int32_t stream;     // stream index, -1 when not about one stream
  int64_t offset;     // absolute byte offset in the file
  int64_t line;       // 1-based line number
  int64_t sequence;   // index of the sequence within the request
  int64_t a;
  int64_t b;
};

// One sequence of the request: bytes [offset, offset + size) of the buffer.
struct SequenceSpan {
  int64_t offset;   // relative to the buffer start
  int64_t size;
  int64_t rows;     // expected rows (index length)
  int64_t line;     // 1-based line of its first byte
};

struct ParseRequest {
  const uint8_t* data = nullptr;
  size_t size = 0;
  int64_t base_offset = 0;   // file offset of data[0]
  const SequenceSpan* sequences = nullptr;
  size_t count = 0;
  int32_t main_stream = -1;  // stream that defines the minibatch size, or -1
  int64_t error_limit = 1;   // stop once this many errors are recorded
  int64_t warning_limit = 64;
  bool skip_incomplete = false;  // a sequence without a sample of some stream is skipped
};

template <typename T>
struct StreamBuffers {
  Buffer<T> values;
  Buffer<int32_t> indices32;  // sparse, dim <= 2^31
  Buffer<int64_t> indices64;  // sparse, larger dims
  Buffer<int64_t> indptr;     // sparse, per-sample nnz prefix; starts at 0
  Buffer<int64_t> sequence_samples;
  int64_t samples = 0;
};

template <typename T>
struct ParseResult {
  std::vector<StreamBuffers<T>> streams;
  std::vector<Issue> issues;
  int64_t errors = 0;            // charged issues recorded (see IssueCode)
  int64_t dense_short = 0;       // all zero-filled samples (issues keep the first few)
  int64_t unknown_inputs = 0;    // all skipped samples of unknown names
  bool aborted = false;          // stopped early: error limit or fatal issue
};

// Limits of one chunk parse and size hints for reserving its output.
struct ParseSettings {
  int32_t main_stream = -1;   // stream that defines the minibatch size, or -1
  int64_t error_limit = 1;    // stop once this many errors are recorded
  int64_t warning_limit = 64;
  uint64_t rows_hint = 0;     // expected rows of the whole chunk (from the index)
  uint64_t bytes_hint = 0;    // bytes of the whole chunk
  uint64_t sequences_hint = 0;
  bool skip_incomplete = false;  // see IssueCode::kEmptyInput
  int64_t first_sequence = 0;    // index of the first sequence fed (issues count from it)
};

// Parses one chunk fed as consecutive blocks of whole sequences, so that the
// caller reads the file in small pieces; the output accumulates across blocks.
// Issue `sequence` fields count sequences across all blocks.
template <typename T>
class StreamingParser {
 public:
  StreamingParser(const std::vector<StreamSpec>& streams, const ParseSettings& settings);
  ~StreamingParser();
  StreamingParser(const StreamingParser&) = delete;
  StreamingParser& operator=(const StreamingParser&) = delete;

  // `data[0]` is at file offset `base_offset`; spans are relative to `data`.
  void feed(const uint8_t* data, size_t size, int64_t base_offset, const SequenceSpan* sequences,
            size_t count);
  bool aborted() const;
  int64_t next_sequence() const;  // index of the next sequence to feed
  // Appends what `later` parsed: the sequences right after this parser's
  // (`later` began at first_sequence == next_sequence()), as if they had been
  // fed here. Returns false, changing neither parser, when the result could
  // differ from feeding them here: either parser charged an error or aborted
  // (error budgets run across sequences), or `later` tracks the most unknown
  // names (names it did not track might be tracked here). Else `later` is spent.
  bool append(StreamingParser& later);
  ParseResult<T> finish();  // moves the result out; the parser is spent

 private:
  struct Impl;
  Impl* impl_;
};

extern template class StreamingParser<float>;
extern template class StreamingParser<double>;

// One-shot parse of a request (one block).
template <typename T>
ParseResult<T> parse_chunk(const ParseRequest& request, const std::vector<StreamSpec>& streams);

extern template ParseResult<float> parse_chunk<float>(const ParseRequest&,
                                                      const std::vector<StreamSpec>&);
extern template ParseResult<double> parse_chunk<double>(const ParseRequest&,
                                                        const std::vector<StreamSpec>&);

}  // namespace mb::ctf
