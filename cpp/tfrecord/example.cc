#include "example.h"

#include <cstring>
#include <string_view>

#include "example_wire.h"

namespace mb::tfrecord {
namespace wire {

bool Reader::skip(uint32_t wire) {
  uint64_t v;
  Span s;
  switch (wire) {
    case 0: return varint(&v);
    case 1: if (end - p < 8) return false; p += 8; return true;
    case 2: return bytes(&s);
    case 5: if (end - p < 4) return false; p += 4; return true;
    default: return false;  // groups (3, 4) and invalid wire types
  }
}

bool parse_feature(Span s, FeatureState* f) {
  Reader r{s.p, s.p + s.n};
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.tag(&field, &wire)) return false;
    if (field >= 1 && field <= 3 && wire == 2) {
      Span list;
      if (!r.bytes(&list)) return false;
      const Kind k = Kind(field);
      if (k != f->kind) f->lists.clear();
      f->kind = k;
      f->lists.push_back(list);
    } else if (!r.skip(wire)) {
      return false;
    }
  }
  return true;
}

// A map entry: key = 1, value = 2. Repeated keys: the last wins; repeated values merge.
bool parse_entry(Span s, Span* key, std::vector<Span>* values) {
  Reader r{s.p, s.p + s.n};
  *key = Span{s.p, 0};
  values->clear();
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.tag(&field, &wire)) return false;
    Span v;
    if (field == 1 && wire == 2) {
      if (!r.bytes(key)) return false;
    } else if (field == 2 && wire == 2) {
      if (!r.bytes(&v)) return false;
      values->push_back(v);
    } else if (!r.skip(wire)) {
      return false;
    }
  }
  return true;
}

constexpr size_t kLinearKeys = 8;  // up to this many wanted keys, compare them in turn

FeaturesParser::FeaturesParser(const std::vector<FeatureSpec>& specs) : state_(specs.size()) {
  for (size_t i = 0; i < specs.size(); ++i) {
    names_.emplace_back(specs[i].name);
    if (specs.size() > kLinearKeys) index_.emplace(names_.back(), int(i));
  }
}

void FeaturesParser::reset() {
  for (auto& s : state_) {  // keeps the lists' memory: no allocation per record
    s.kind = Kind::kNone;
    s.lists.clear();
    s.present = false;
  }
}

int FeaturesParser::find(Span key) const {
  const std::string_view k(reinterpret_cast<const char*>(key.p), key.n);
  if (names_.size() > kLinearKeys) {
    const auto it = index_.find(k);
    return it == index_.end() ? -1 : it->second;
  }
  int found = -1;  // the last spec of that name, as the map kept
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == k) found = int(i);
  }
  return found;
}

bool FeaturesParser::parse_features(Span s) {
  Reader r{s.p, s.p + s.n};
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.tag(&field, &wire)) return false;
    if (field != 1 || wire != 2) {
      if (!r.skip(wire)) return false;
      continue;
    }
    Span entry, key;
    if (!r.bytes(&entry) || !parse_entry(entry, &key, &values_)) return false;
    FeatureState& merged = merged_;  // the entry replaces any earlier entry with the same key
    merged.kind = Kind::kNone;
    merged.lists.clear();
    merged.present = true;
    for (const Span& v : values_) {
      if (!parse_feature(v, &merged)) return false;
    }
    const int i = find(key);
    if (i >= 0) std::swap(state_[size_t(i)], merged);  // memory goes round, not away
  }
  return true;
}

namespace {

// Appends the values of one list message; returns the count or -1 if malformed.
int64_t emit_list(Span s, Kind kind, FeatureValues* out) {
  Reader r{s.p, s.p + s.n};
  int64_t count = 0;
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.tag(&field, &wire)) return -1;
    if (field != 1) {
      if (!r.skip(wire)) return -1;
      continue;
    }
    if (kind == Kind::kBytes && wire == 2) {
      Span v;
      if (!r.bytes(&v)) return -1;
      const size_t at = out->bytes.size();
      out->bytes.resize(at + v.n);
      if (v.n) std::memcpy(out->bytes.data() + at, v.p, v.n);
      out->byte_ends.push_back(int64_t(out->bytes.size()));
      ++count;
    } else if (kind == Kind::kFloat && wire == 2) {
      Span v;
      if (!r.bytes(&v) || v.n % 4 != 0) return -1;
      const size_t at = out->floats.size();
      out->floats.resize(at + v.n / 4);
      if (v.n) std::memcpy(out->floats.data() + at, v.p, v.n);
      count += int64_t(v.n / 4);
    } else if (kind == Kind::kFloat && wire == 5) {
      if (r.end - r.p < 4) return -1;
      float x;
      std::memcpy(&x, r.p, 4);
      r.p += 4;
      out->floats.push_back(x);
      ++count;
    } else if (kind == Kind::kInt64 && wire == 2) {
      Span v;
      if (!r.bytes(&v)) return -1;
      Reader packed{v.p, v.p + v.n};
      while (!packed.done()) {
        uint64_t x;
        if (!packed.varint(&x)) return -1;
        out->ints.push_back(int64_t(x));
        ++count;
      }
    } else if (kind == Kind::kInt64 && wire == 0) {
      uint64_t x;
      if (!r.varint(&x)) return -1;
      out->ints.push_back(int64_t(x));
      ++count;
    } else if (!r.skip(wire)) {
      return -1;
    }
  }
  return count;
}

}  // namespace

Emit emit_feature(const FeatureState& st, Kind want, bool strict, FeatureValues* out,
                  int64_t* count) {
  *count = 0;
  if (st.kind != Kind::kNone && st.kind != want) {
    if (strict) return Emit::kKindMismatch;
    for (const Span& l : st.lists) {  // an empty list of another kind is fine
      FeatureValues scratch;
      const int64_t c = emit_list(l, st.kind, &scratch);
      if (c < 0) return Emit::kMalformed;
      *count += c;
    }
    return *count > 0 ? Emit::kKindMismatch : Emit::kOk;
  }
  for (const Span& l : st.lists) {
    const int64_t c = emit_list(l, want, out);
    if (c < 0) return Emit::kMalformed;
    *count += c;
  }
  return Emit::kOk;
}


void remember(const std::vector<FeatureValues>& features, std::vector<size_t>* sizes) {
  sizes->clear();
  for (const FeatureValues& v : features) {
    sizes->insert(sizes->end(), {v.counts.size(), v.steps.size(), v.ints.size(), v.floats.size(),
                                 v.bytes.size(), v.byte_ends.size()});
  }
}

void truncate(std::vector<FeatureValues>& features, const std::vector<size_t>& sizes) {
  for (size_t k = 0; k < features.size(); ++k) {
    FeatureValues& v = features[k];
    const size_t* s = sizes.data() + 6 * k;
    v.counts.resize(s[0]);
    v.steps.resize(s[1]);
    v.ints.resize(s[2]);
    v.floats.resize(s[3]);
    v.bytes.resize(s[4]);
    v.byte_ends.resize(s[5]);
  }
}

}  // namespace wire

namespace {

using wire::Span;

struct Failure {
  DecodeError error;
  int64_t feature;
  int64_t step;
  Kind kind;
};

DecodeResult& fail_at(DecodeResult& result, size_t i, const Failure& f) {
  result.error = f.error;
  result.error_record = int64_t(i);
  result.error_feature = f.feature;
  result.error_step = f.step;
  result.error_kind = f.kind;
  return result;
}

// Parses one Example and appends its features; false (and `f`) on a bad record.
bool decode_one(Span rec, wire::FeaturesParser& parser, const std::vector<FeatureSpec>& specs,
                bool strict, std::vector<FeatureValues>& out, Failure* f) {
  parser.reset();
  wire::Reader r{rec.p, rec.p + rec.n};
  while (!r.done()) {
    uint32_t field, wire;
    Span features;
    const bool ok = r.tag(&field, &wire) &&
                    (field == 1 && wire == 2 ? r.bytes(&features) && parser.parse_features(features)
                                             : r.skip(wire));
    if (!ok) {
      *f = {DecodeError::kMalformed, -1, -1, Kind::kNone};
      return false;
    }
  }
  for (size_t k = 0; k < specs.size(); ++k) {
    const wire::FeatureState& st = parser.state(k);
    if (!st.present || (strict && st.kind == Kind::kNone)) {
      out[k].counts.push_back(-1);
      continue;
    }
    int64_t count = 0;
    const wire::Emit e = wire::emit_feature(st, specs[k].kind, strict, &out[k], &count);
    if (e != wire::Emit::kOk) {
      *f = {e == wire::Emit::kMalformed ? DecodeError::kMalformed : DecodeError::kKindMismatch,
            int64_t(k), -1, st.kind};
      return false;
    }
    out[k].counts.push_back(count);
  }
  return true;
}

}  // namespace

DecodeResult decode_examples(const RecordSpan* records, size_t n,
                             const std::vector<FeatureSpec>& specs, bool strict) {
  DecodeResult result;
  result.features.resize(specs.size());
  size_t total = 0;  // a bytes feature's values lie in the records: room for all of them
  for (size_t i = 0; i < n; ++i) total += records[i].n;
  for (size_t k = 0; k < specs.size(); ++k) {
    FeatureValues& f = result.features[k];
    f.counts.reserve(n);
    if (specs[k].kind == Kind::kBytes) {
      f.bytes.reserve(total);  // growing it copied the values again and again
      f.byte_ends.reserve(n);
    }
  }
  wire::FeaturesParser parser(specs);
  std::vector<size_t> sizes;
  for (size_t i = 0; i < n; ++i) {
    wire::remember(result.features, &sizes);
    Failure f{};
    if (!decode_one(Span{records[i].p, records[i].n}, parser, specs, strict, result.features,
                    &f)) {
      wire::truncate(result.features, sizes);
      return fail_at(result, i, f);
    }
    result.records = int64_t(i) + 1;
  }
  return result;
}

DecodeResult decode_examples(const uint8_t* data, const int64_t* ends, size_t n,
                             const std::vector<FeatureSpec>& specs, bool strict) {
  std::vector<RecordSpan> spans(n);
  int64_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    spans[i] = {data + start, size_t(ends[i] - start)};
    start = ends[i];
  }
  return decode_examples(spans.data(), n, specs, strict);
}

}  // namespace mb::tfrecord
