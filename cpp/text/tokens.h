// Space-only tokenization and vocabulary lookup for tensorflow/nmt-style text
// pipelines: tf.compat.v1.string_split(line, ' ') (runs of ' ' collapse, no
// other separator), TF's whole-line vocabulary keys, and the padded id rows of
// nmt's get_iterator / get_infer_iterator. Pure C++: no Python headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mb::text {

// Lines are byte ranges [starts[i], ends[i]) of one buffer of `size` bytes.
struct Lines {
  const uint8_t* data;
  size_t size;
  const int64_t* starts;
  const int64_t* ends;
  int64_t count;
};

// Whether every range lies inside the buffer with start <= end.
bool valid(const Lines& lines);

// Number of ' '-separated non-empty tokens of each line (out[count]).
void count_tokens(const Lines& lines, int32_t* out);

// A hash table from a word's bytes to its id (open addressing, FNV-1a).
class Vocab {
 public:
  // words[i] gets id i; a repeated word keeps its first id (callers reject
  // duplicates with a clear message before building the table).
  explicit Vocab(const std::vector<std::string>& words);
  int64_t size() const { return int64_t(offsets_.size()) - 1; }
  // The id of the bytes [p, p+n), or `missing` when absent.
  int32_t find(const uint8_t* p, size_t n, int32_t missing) const;

 private:
  // A word's first 8 bytes and length live in its slot: most lookups (words of
  // up to 8 bytes, and misses) touch one cache line.
  struct Slot {
    uint64_t prefix;  // the first min(8, length) bytes, little-endian, zero-filled
    uint32_t length;
    int32_t id;       // -1 = empty
  };
  std::string storage_;            // all words, back to back
  std::vector<int64_t> offsets_;   // word i = storage_[offsets_[i], offsets_[i+1])
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
};

// One padded row per selected line: row r holds [sos] + the ids of the first
// keep[r] tokens of line rows[r] + [eos], then `pad` up to `width`. sos / eos
// < 0 mean none. Returns false (writing nothing useful) when an index is out
// of range, keep[r] is negative or a row does not fit in `width`.
struct EncodeSpec {
  int32_t unknown = 0;  // id of out-of-vocabulary tokens
  int32_t sos = -1;
  int32_t eos = -1;
  int32_t pad = 0;
  int64_t width = 0;
};
bool encode(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
            const Vocab& vocab, const EncodeSpec& spec, int32_t* out);

// nmt's target rows in one pass: target_input = [sos] + ids, target_output =
// ids + [eos], both padded with `pad` to `width` (>= max keep + 1).
bool encode_target(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
                   const Vocab& vocab, int32_t unknown, int32_t sos, int32_t eos, int32_t pad,
                   int64_t width, int32_t* target_input, int32_t* target_output);

// nmt's character encoding of the first keep[r] tokens of each selected line:
// every word becomes 50 ids [258, bytes[:48]..., 259, 260...] + 1, rows padded
// with `pad` up to width_words * 50 ids.
constexpr int kCharMaxLen = 50;
bool encode_chars(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
                  int64_t width_words, int32_t pad, int32_t* out);

}  // namespace mb::text
