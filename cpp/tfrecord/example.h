// tf.train.Example and tf.train.SequenceExample decoding for many records at
// once, straight from the protobuf wire format into flat per-feature arrays.
//
//   Example  { Features features = 1; }
//   SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
//   Features { map<string, Feature> feature = 1; }
//   FeatureLists { map<string, FeatureList> feature_list = 1; }
//   FeatureList { repeated Feature feature = 1; }
//   Feature  { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                           Int64List int64_list = 3; } }
//   *List    { repeated <bytes|float|int64> value = 1; }   (packed or not)
//
// Protobuf merge semantics are followed: repeated `features` fields and
// repeated map-entry values merge, a later map entry with the same key
// replaces an earlier one, a later oneof member replaces another member and
// merges with the same member; unknown fields are skipped. Groups and wire
// types 6/7 are malformed.
//
// `strict` gives TensorFlow's parsing rules (tf.io.parse_example): a list of
// another kind is a kind mismatch even when empty, and a Feature with no list
// at all counts as absent. Otherwise (the lenient default of ExampleDecoder) an
// empty list of another kind is accepted and a Feature with no list has 0 values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/buffer.h"

namespace mb::tfrecord {

enum class Kind : int { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

struct FeatureSpec {
  std::string name;
  Kind kind;  // the list kind wanted
};

struct FeatureValues {
  Buffer<int64_t> counts;     // values per record (per step for sequence features); -1: absent
  Buffer<int64_t> steps;      // sequence features: steps per record, -1 when the list is absent
  Buffer<int64_t> ints;       // kInt64
  Buffer<float> floats;       // kFloat
  Buffer<uint8_t> bytes;      // kBytes: the values back to back
  Buffer<int64_t> byte_ends;  // kBytes: end of value j in `bytes`
};

enum class DecodeError : int {
  kNone = 0,
  kMalformed = 1,     // not a valid Example / SequenceExample message
  kKindMismatch = 2,  // a wanted feature holds values of another kind
};

struct DecodeResult {
  std::vector<FeatureValues> features;  // one per spec, in spec order (context, then sequence)
  int64_t records = 0;                  // records decoded (all, unless error != kNone)
  DecodeError error = DecodeError::kNone;
  int64_t error_record = -1;
  int64_t error_feature = -1;  // spec index (kKindMismatch)
  int64_t error_step = -1;     // step of a sequence feature (kKindMismatch)
  Kind error_kind = Kind::kNone;
  std::string error_detail;
};

struct RecordSpan {
  const uint8_t* p;
  size_t n;
};

// Decodes records [0, n) whose bytes are data[ends[i-1] .. ends[i]) (ends[-1] = 0).
// Stops at the first bad record; the features then hold records [0, records).
DecodeResult decode_examples(const uint8_t* data, const int64_t* ends, size_t n,
                             const std::vector<FeatureSpec>& specs, bool strict = false);

// The same over records anywhere in memory.
DecodeResult decode_examples(const RecordSpan* records, size_t n,
                             const std::vector<FeatureSpec>& specs, bool strict);

// SequenceExamples: features [0, context.size()) are the context features (as
// decode_examples, strict), the rest the feature lists: `steps` per record and
// `counts` per step (a step's Feature without a list has 0 values; a list of
// another kind, even empty, is a kind mismatch).
DecodeResult decode_sequence_examples(const RecordSpan* records, size_t n,
                                      const std::vector<FeatureSpec>& context,
                                      const std::vector<FeatureSpec>& sequence);

}  // namespace mb::tfrecord
