#include "text/tokens.h"

#include <algorithm>
#include <cstring>

namespace mb::text {

namespace {

constexpr uint8_t kSpace = ' ';

// The first min(8, n) bytes of p as a little-endian integer.
uint64_t prefix_of(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  const size_t k = n < 8 ? n : 8;
  for (size_t i = 0; i < k; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

uint64_t hash_of(const uint8_t* p, size_t n, uint64_t prefix) {
  uint64_t h = (prefix ^ (uint64_t(n) * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  for (size_t i = 8; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

// Calls f(begin, length) for each token of [p, end).
template <typename F>
void for_each_token(const uint8_t* p, const uint8_t* end, F&& f) {
  while (p < end) {
    while (p < end && *p == kSpace) ++p;
    const uint8_t* begin = p;
    while (p < end && *p != kSpace) ++p;
    if (p > begin && !f(begin, size_t(p - begin))) return;
  }
}

// Row indices in range, their byte ranges inside the buffer, keep counts not negative.
bool rows_valid(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n) {
  for (int64_t r = 0; r < n; ++r) {
    if (rows[r] < 0 || rows[r] >= lines.count || keep[r] < 0) return false;
    const int64_t s = lines.starts[rows[r]], e = lines.ends[rows[r]];
    if (s < 0 || e < s || uint64_t(e) > lines.size) return false;
  }
  return true;
}

}  // namespace

bool valid(const Lines& lines) {
  for (int64_t i = 0; i < lines.count; ++i) {
    const int64_t s = lines.starts[i], e = lines.ends[i];
    if (s < 0 || e < s || uint64_t(e) > lines.size) return false;
  }
  return true;
}

void count_tokens(const Lines& lines, int32_t* out) {
  for (int64_t i = 0; i < lines.count; ++i) {
    int32_t n = 0;
    const uint8_t* p = lines.data + lines.starts[i];
    const uint8_t* end = lines.data + lines.ends[i];
    bool in_token = false;
    for (; p < end; ++p) {
      const bool space = *p == kSpace;
      n += int32_t(!space && !in_token);
      in_token = !space;
    }
    out[i] = n;
  }
}

Vocab::Vocab(const std::vector<std::string>& words) {
  offsets_.reserve(words.size() + 1);
  offsets_.push_back(0);
  for (const auto& w : words) {
    storage_ += w;
    offsets_.push_back(int64_t(storage_.size()));
  }
  size_t capacity = 16;
  while (capacity < 2 * words.size() + 1) capacity <<= 1;
  slots_.assign(capacity, Slot{0, 0, -1});
  mask_ = capacity - 1;
  const auto* base = reinterpret_cast<const uint8_t*>(storage_.data());
  for (size_t id = 0; id < words.size(); ++id) {
    const uint8_t* p = base + offsets_[id];
    const size_t n = size_t(offsets_[id + 1] - offsets_[id]);
    if (find(p, n, -1) >= 0) continue;  // a duplicate keeps its first id
    const uint64_t prefix = prefix_of(p, n);
    uint64_t i = hash_of(p, n, prefix) & mask_;
    while (slots_[i].id >= 0) i = (i + 1) & mask_;
    slots_[i] = Slot{prefix, uint32_t(n), int32_t(id)};
  }
}

int32_t Vocab::find(const uint8_t* p, size_t n, int32_t missing) const {
  const uint64_t prefix = prefix_of(p, n);
  for (uint64_t i = hash_of(p, n, prefix) & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id < 0) return missing;
    if (slot.prefix != prefix || slot.length != n) continue;
    if (n <= 8) return slot.id;
    const auto* base = reinterpret_cast<const uint8_t*>(storage_.data());
    const uint8_t* word = base + offsets_[size_t(slot.id)];
    if (std::memcmp(word + 8, p + 8, n - 8) == 0) return slot.id;
  }
}

bool encode(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
            const Vocab& vocab, const EncodeSpec& spec, int32_t* out) {
  if (!rows_valid(lines, rows, keep, n) || spec.width < 0) return false;
  const int64_t extra = int64_t(spec.sos >= 0) + int64_t(spec.eos >= 0);
  for (int64_t r = 0; r < n; ++r) {
    if (keep[r] + extra > spec.width) return false;
    int32_t* row = out + r * spec.width;
    int64_t k = 0;
    if (spec.sos >= 0) row[k++] = spec.sos;
    int32_t left = keep[r];
    const uint8_t* p = lines.data + lines.starts[rows[r]];
    const uint8_t* end = lines.data + lines.ends[rows[r]];
    for_each_token(p, end, [&](const uint8_t* t, size_t len) {
      if (left == 0) return false;
      row[k++] = vocab.find(t, len, spec.unknown);
      return --left > 0;
    });
    if (left > 0) return false;  // fewer tokens than keep[r]
    if (spec.eos >= 0) row[k++] = spec.eos;
    std::fill(row + k, row + spec.width, spec.pad);
  }
  return true;
}

bool encode_target(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
                   const Vocab& vocab, int32_t unknown, int32_t sos, int32_t eos, int32_t pad,
                   int64_t width, int32_t* target_input, int32_t* target_output) {
  if (!rows_valid(lines, rows, keep, n)) return false;
  for (int64_t r = 0; r < n; ++r) {
    if (keep[r] + 1 > width) return false;
    int32_t* in = target_input + r * width;
    int32_t* out = target_output + r * width;
    in[0] = sos;
    int64_t k = 0;
    int32_t left = keep[r];
    const uint8_t* p = lines.data + lines.starts[rows[r]];
    const uint8_t* end = lines.data + lines.ends[rows[r]];
    for_each_token(p, end, [&](const uint8_t* t, size_t len) {
      if (left == 0) return false;
      const int32_t id = vocab.find(t, len, unknown);
      out[k] = id;
      in[++k] = id;
      return --left > 0;
    });
    if (left > 0) return false;
    out[k] = eos;
    std::fill(in + k + 1, in + width, pad);
    std::fill(out + k + 1, out + width, pad);
  }
  return true;
}

bool encode_chars(const Lines& lines, const int64_t* rows, const int32_t* keep, int64_t n,
                  int64_t width_words, int32_t pad, int32_t* out) {
  if (!rows_valid(lines, rows, keep, n) || width_words < 0) return false;
  const int64_t width = width_words * kCharMaxLen;
  for (int64_t r = 0; r < n; ++r) {
    if (keep[r] > width_words) return false;
    int32_t* row = out + r * width;
    int32_t words = 0;
    const uint8_t* p = lines.data + lines.starts[rows[r]];
    const uint8_t* end = lines.data + lines.ends[rows[r]];
    for_each_token(p, end, [&](const uint8_t* t, size_t len) {
      if (words == keep[r]) return false;
      int32_t* w = row + int64_t(words) * kCharMaxLen;
      const size_t take = std::min<size_t>(len, kCharMaxLen - 2);
      w[0] = 258 + 1;  // BOW
      for (size_t i = 0; i < take; ++i) w[1 + i] = int32_t(t[i]) + 1;
      w[1 + take] = 259 + 1;  // EOW
      std::fill(w + 2 + take, w + kCharMaxLen, 260 + 1);  // PAD
      return ++words < keep[r];
    });
    if (words < keep[r]) return false;
    std::fill(row + int64_t(words) * kCharMaxLen, row + width, pad);
  }
  return true;
}

}  // namespace mb::text
