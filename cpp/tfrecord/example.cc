#include "example.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

namespace mb::tfrecord {
namespace {

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

  bool skip(uint32_t wire) {
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
};

// The state of one Feature while its (possibly repeated) serializations merge.
struct FeatureState {
  Kind kind = Kind::kNone;
  std::vector<Span> lists;
  bool present = false;
};

class Decoder {
 public:
  explicit Decoder(const std::vector<FeatureSpec>& specs) : specs_(specs), state_(specs.size()) {
    for (size_t i = 0; i < specs.size(); ++i) index_[std::string_view(specs[i].name)] = int(i);
  }

  bool parse_example(Span rec) {
    for (auto& s : state_) s = FeatureState{};
    Reader r{rec.p, rec.p + rec.n};
    while (!r.done()) {
      uint32_t field, wire;
      if (!r.tag(&field, &wire)) return false;
      if (field == 1 && wire == 2) {
        Span features;
        if (!r.bytes(&features) || !parse_features(features)) return false;
      } else if (!r.skip(wire)) {
        return false;
      }
    }
    return true;
  }

  const FeatureState& state(size_t i) const { return state_[i]; }

 private:
  bool parse_features(Span s) {
    Reader r{s.p, s.p + s.n};
    while (!r.done()) {
      uint32_t field, wire;
      if (!r.tag(&field, &wire)) return false;
      if (field == 1 && wire == 2) {
        Span entry;
        if (!r.bytes(&entry) || !parse_entry(entry)) return false;
      } else if (!r.skip(wire)) {
        return false;
      }
    }
    return true;
  }

  // A map entry: key = 1, value = 2. Repeated keys: the last wins; repeated
  // values merge. The entry replaces any earlier entry with the same key.
  bool parse_entry(Span s) {
    Reader r{s.p, s.p + s.n};
    Span key{s.p, 0};
    values_.clear();
    while (!r.done()) {
      uint32_t field, wire;
      if (!r.tag(&field, &wire)) return false;
      Span v;
      if (field == 1 && wire == 2) {
        if (!r.bytes(&key)) return false;
      } else if (field == 2 && wire == 2) {
        if (!r.bytes(&v)) return false;
        values_.push_back(v);
      } else if (!r.skip(wire)) {
        return false;
      }
    }
    FeatureState merged;
    merged.present = true;
    for (const Span& v : values_) {
      if (!parse_feature(v, &merged)) return false;
    }
    auto it = index_.find(std::string_view(reinterpret_cast<const char*>(key.p), key.n));
    if (it != index_.end()) state_[size_t(it->second)] = std::move(merged);
    return true;
  }

  static bool parse_feature(Span s, FeatureState* f) {
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

  const std::vector<FeatureSpec>& specs_;
  std::vector<FeatureState> state_;
  std::unordered_map<std::string_view, int> index_;
  std::vector<Span> values_;
};

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

DecodeResult decode_examples(const uint8_t* data, const int64_t* ends, size_t n,
                             const std::vector<FeatureSpec>& specs) {
  DecodeResult result;
  result.features.resize(specs.size());
  for (auto& f : result.features) f.counts.reserve(n);
  Decoder decoder(specs);
  int64_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    const Span rec{data + start, size_t(ends[i] - start)};
    start = ends[i];
    auto fail = [&](DecodeError e, int64_t feature, Kind kind, const char* detail) {
      result.error = e;
      result.error_record = int64_t(i);
      result.error_feature = feature;
      result.error_kind = kind;
      result.error_detail = detail;
      for (auto& f : result.features) f.counts.resize(i);  // drop this record's partial output
      return result;
    };
    if (!decoder.parse_example(rec)) return fail(DecodeError::kMalformed, -1, Kind::kNone, "");
    for (size_t k = 0; k < specs.size(); ++k) {
      const FeatureState& st = decoder.state(k);
      FeatureValues& out = result.features[k];
      if (!st.present) {
        out.counts.push_back(-1);
        continue;
      }
      int64_t count = 0;
      if (st.kind != Kind::kNone && st.kind != specs[k].kind) {
        for (const Span& l : st.lists) {  // an empty list of another kind is fine
          FeatureValues scratch;
          const int64_t c = emit_list(l, st.kind, &scratch);
          if (c < 0) return fail(DecodeError::kMalformed, int64_t(k), st.kind, "list");
          count += c;
        }
        if (count > 0) return fail(DecodeError::kKindMismatch, int64_t(k), st.kind, "");
      } else {
        for (const Span& l : st.lists) {
          const int64_t c = emit_list(l, specs[k].kind, &out);
          if (c < 0) return fail(DecodeError::kMalformed, int64_t(k), st.kind, "list");
          count += c;
        }
      }
      out.counts.push_back(count);
    }
    result.records = int64_t(i) + 1;
  }
  return result;
}

}  // namespace mb::tfrecord
