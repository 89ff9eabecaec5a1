// Internal pieces of the tf.train.Example / SequenceExample decoders shared by
// example.cc and example_sequence.cc: a bounds-checked cursor over protobuf
// wire data, the merge state of one Feature and of a Features map, and the
// emission of a Feature's values into flat columns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "example.h"

namespace mb::tfrecord::wire {

struct Span {
  const uint8_t* p;
  size_t n;
};

// A cursor over one message; every read checks bounds.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;

  bool done() const { return p >= end; }

  bool varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p >= end) return false;
      const uint8_t b = *p++;
      if (shift < 64) v |= uint64_t(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }

  bool tag(uint32_t* field, uint32_t* wire) {
    uint64_t t;
    if (!varint(&t)) return false;
    *field = uint32_t(t >> 3);
    *wire = uint32_t(t & 7);
    return (t >> 3) >= 1 && (t >> 3) <= 0x1FFFFFFF;
  }

  bool bytes(Span* out) {
    uint64_t n;
    if (!varint(&n) || n > uint64_t(end - p)) return false;
    *out = {p, size_t(n)};
    p += n;
    return true;
  }

  bool skip(uint32_t wire);
};

// The state of one Feature while its (possibly repeated) serializations merge.
struct FeatureState {
  Kind kind = Kind::kNone;
  std::vector<Span> lists;
  bool present = false;
};

// Merges one serialized Feature into `f` (a later oneof member replaces another).
bool parse_feature(Span s, FeatureState* f);

// The map-entry parts of one entry: its key and its (merging) value spans.
bool parse_entry(Span s, Span* key, std::vector<Span>* values);

// A `Features` map restricted to the wanted keys; merges repeated messages.
class FeaturesParser {
 public:
  explicit FeaturesParser(const std::vector<FeatureSpec>& specs);
  void reset();
  bool parse_features(Span s);  // one serialized `Features` message
  const FeatureState& state(size_t i) const { return state_[i]; }

 private:
  int find(Span key) const;  // the spec index of a key, -1 when it is not wanted

  std::vector<FeatureState> state_;
  std::vector<std::string_view> names_;
  std::unordered_map<std::string_view, int> index_;  // for many wanted keys
  std::vector<Span> values_;
  FeatureState merged_;  // reused: its list's memory outlives a record
};

enum class Emit : int { kOk = 0, kMalformed = 1, kKindMismatch = 2 };

// Appends the values of a merged Feature of the wanted kind to `out`; `count`
// gets the number of values. A list of another kind is kKindMismatch when
// `strict` or when it holds values (an empty one is accepted otherwise).
Emit emit_feature(const FeatureState& st, Kind want, bool strict, FeatureValues* out,
                  int64_t* count);

// The sizes of every column, and truncation back to them: a record that fails
// half-way leaves no values behind (counts always describe whole records).
void remember(const std::vector<FeatureValues>& features, std::vector<size_t>* sizes);
void truncate(std::vector<FeatureValues>& features, const std::vector<size_t>& sizes);

}  // namespace mb::tfrecord::wire
