// tf.train.SequenceExample decoding: the context as an Example's features, the
// feature lists as steps (one Feature each) of flat per-feature columns.
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "example.h"
#include "example_wire.h"

namespace mb::tfrecord {
namespace {

using wire::Span;

// The wanted feature lists of one record: the steps' Feature spans, merged as
// protobuf merges them (a later map entry replaces, repeated values concatenate).
class ListsParser {
 public:
  explicit ListsParser(const std::vector<FeatureSpec>& specs) : lists_(specs.size()) {
    for (size_t i = 0; i < specs.size(); ++i) index_[std::string_view(specs[i].name)] = int(i);
  }

  void reset() {
    for (auto& l : lists_) l = List{};
  }

  bool parse_lists(Span s) {  // one serialized `FeatureLists` message
    wire::Reader r{s.p, s.p + s.n};
    while (!r.done()) {
      uint32_t field, wire;
      if (!r.tag(&field, &wire)) return false;
      if (field != 1 || wire != 2) {
        if (!r.skip(wire)) return false;
        continue;
      }
      Span entry, key;
      if (!r.bytes(&entry) || !wire::parse_entry(entry, &key, &values_)) return false;
      List merged;
      merged.present = true;
      for (const Span& v : values_) {
        if (!steps_of(v, &merged.steps)) return false;
      }
      auto it = index_.find(std::string_view(reinterpret_cast<const char*>(key.p), key.n));
      if (it != index_.end()) lists_[size_t(it->second)] = std::move(merged);
    }
    return true;
  }

  struct List {
    bool present = false;
    std::vector<Span> steps;
  };
  const List& list(size_t i) const { return lists_[i]; }

 private:
  static bool steps_of(Span s, std::vector<Span>* steps) {  // a `FeatureList` message
    wire::Reader r{s.p, s.p + s.n};
    while (!r.done()) {
      uint32_t field, wire;
      if (!r.tag(&field, &wire)) return false;
      Span f;
      if (field == 1 && wire == 2) {
        if (!r.bytes(&f)) return false;
        steps->push_back(f);
      } else if (!r.skip(wire)) {
        return false;
      }
    }
    return true;
  }

  std::vector<List> lists_;
  std::unordered_map<std::string_view, int> index_;
  std::vector<Span> values_;
};

struct Bad {
  DecodeError error = DecodeError::kNone;
  int64_t feature = -1;
  int64_t step = -1;
  Kind kind = Kind::kNone;
};

bool parse_record(Span rec, wire::FeaturesParser& ctx, ListsParser& lists) {
  ctx.reset();
  lists.reset();
  wire::Reader r{rec.p, rec.p + rec.n};
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.tag(&field, &wire)) return false;
    Span s;
    if (field == 1 && wire == 2) {
      if (!r.bytes(&s) || !ctx.parse_features(s)) return false;
    } else if (field == 2 && wire == 2) {
      if (!r.bytes(&s) || !lists.parse_lists(s)) return false;
    } else if (!r.skip(wire)) {
      return false;
    }
  }
  return true;
}

Bad emit_context(const wire::FeaturesParser& ctx, const std::vector<FeatureSpec>& specs,
                 FeatureValues* out) {
  for (size_t k = 0; k < specs.size(); ++k) {
    const wire::FeatureState& st = ctx.state(k);
    if (!st.present || st.kind == Kind::kNone) {
      out[k].counts.push_back(-1);
      continue;
    }
    int64_t count = 0;
    const wire::Emit e = wire::emit_feature(st, specs[k].kind, true, &out[k], &count);
    if (e != wire::Emit::kOk) {
      return {e == wire::Emit::kMalformed ? DecodeError::kMalformed : DecodeError::kKindMismatch,
              int64_t(k), -1, st.kind};
    }
    out[k].counts.push_back(count);
  }
  return {};
}

Bad emit_lists(const ListsParser& lists, const std::vector<FeatureSpec>& specs, size_t offset,
               FeatureValues* out) {
  for (size_t k = 0; k < specs.size(); ++k) {
    const ListsParser::List& l = lists.list(k);
    out[k].steps.push_back(l.present ? int64_t(l.steps.size()) : -1);
    for (size_t t = 0; t < l.steps.size(); ++t) {
      wire::FeatureState st;
      int64_t count = 0;
      if (!wire::parse_feature(l.steps[t], &st)) {
        return {DecodeError::kMalformed, int64_t(offset + k), int64_t(t), Kind::kNone};
      }
      const wire::Emit e = wire::emit_feature(st, specs[k].kind, true, &out[k], &count);
      if (e != wire::Emit::kOk) {
        return {e == wire::Emit::kMalformed ? DecodeError::kMalformed : DecodeError::kKindMismatch,
                int64_t(offset + k), int64_t(t), st.kind};
      }
      out[k].counts.push_back(count);
    }
  }
  return {};
}

}  // namespace

DecodeResult decode_sequence_examples(const RecordSpan* records, size_t n,
                                      const std::vector<FeatureSpec>& context,
                                      const std::vector<FeatureSpec>& sequence) {
  DecodeResult result;
  result.features.resize(context.size() + sequence.size());
  wire::FeaturesParser ctx(context);
  ListsParser lists(sequence);
  std::vector<size_t> sizes;
  for (size_t i = 0; i < n; ++i) {
    wire::remember(result.features, &sizes);
    Bad bad;
    if (!parse_record(Span{records[i].p, records[i].n}, ctx, lists)) {
      bad.error = DecodeError::kMalformed;
    } else {
      bad = emit_context(ctx, context, result.features.data());
      if (bad.error == DecodeError::kNone) {
        bad = emit_lists(lists, sequence, context.size(), result.features.data() + context.size());
      }
    }
    if (bad.error != DecodeError::kNone) {
      wire::truncate(result.features, sizes);
      result.error = bad.error;
      result.error_record = int64_t(i);
      result.error_feature = bad.feature;
      result.error_step = bad.step;
      result.error_kind = bad.kind;
      return result;
    }
    result.records = int64_t(i) + 1;
  }
  return result;
}

}  // namespace mb::tfrecord
