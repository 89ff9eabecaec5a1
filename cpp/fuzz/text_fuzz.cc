// libFuzzer harness for the text kernels (mb::text) and the tf.data shuffle
// order (mb::tfdata::ShuffleOrder), built by tools/fuzz.sh.
//
// Input: b[0] options (vocabulary size, keep mode), b[1..8] shuffle seed
// bytes, then text whose '\n'-separated lines are the corpus. Violations trap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "text/tokens.h"
#include "tfdata/shuffle.h"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

// The tokens of [p, end) split on ' ' (empty tokens skipped): the reference.
std::vector<std::string> split(const uint8_t* p, const uint8_t* end) {
  std::vector<std::string> out;
  std::string cur;
  for (; p < end; ++p) {
    if (*p == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(char(*p));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void check_shuffle(uint64_t seed, int64_t buffer_size, int64_t length) {
  mb::tfdata::ShuffleOrder order(seed, seed >> 7, buffer_size, length);
  std::vector<int64_t> out(size_t(length) + 3);
  const int64_t got = order.advance(length + 3, out.data());
  CHECK(got == length && order.emitted() == length && order.end() == length);
  std::vector<uint8_t> seen(size_t(length), 0);
  for (int64_t i = 0; i < got; ++i) {
    CHECK(out[size_t(i)] >= 0 && out[size_t(i)] < length && !seen[size_t(out[size_t(i)])]);
    seen[size_t(out[size_t(i)])] = 1;
    // A position is emitted at most buffer_size - 1 steps before it is read.
    CHECK(out[size_t(i)] < i + buffer_size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const uint8_t options = data[0];
  uint64_t seed = 0;
  for (int i = 1; i <= 8; ++i) seed = (seed << 8) | data[i];
  const uint8_t* text = data + 9;
  const size_t n = size - 9;
  std::vector<int64_t> starts, ends;
  size_t s = 0;
  for (size_t i = 0; i <= n; ++i) {
    if (i == n || text[i] == '\n') {
      if (i > s || i < n) {
        starts.push_back(int64_t(s));
        ends.push_back(int64_t(i));
      }
      s = i + 1;
    }
  }
  const mb::text::Lines lines{text, n, starts.data(), ends.data(), int64_t(starts.size())};
  CHECK(mb::text::valid(lines));
  std::vector<int32_t> counts(starts.size());
  mb::text::count_tokens(lines, counts.data());

  // A vocabulary of the first tokens seen (with repeats: the first id wins).
  std::vector<std::string> words;
  const size_t vocab_size = options & 15;
  std::vector<std::vector<std::string>> tokens;
  for (size_t r = 0; r < starts.size(); ++r) {
    tokens.push_back(split(text + starts[r], text + ends[r]));
    CHECK(int32_t(tokens.back().size()) == counts[r]);
    for (const auto& t : tokens.back()) {
      if (words.size() < vocab_size) words.push_back(t);
    }
  }
  const mb::text::Vocab vocab(words);
  std::vector<int64_t> rows(starts.size());
  std::vector<int32_t> keep(starts.size());
  int32_t widest = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    rows[r] = int64_t(rows.size() - 1 - r);
    keep[r] = (options & 16) ? counts[size_t(rows[r])] : std::min(counts[size_t(rows[r])], 3);
    widest = std::max(widest, keep[r]);
  }
  const int64_t width = widest + 2;
  std::vector<int32_t> out(rows.size() * size_t(width)), in2(out.size()), out2(out.size());
  mb::text::EncodeSpec spec{-7, 5, 6, 9, width};
  CHECK(mb::text::encode(lines, rows.data(), keep.data(), int64_t(rows.size()), vocab, spec,
                         out.data()));
  CHECK(mb::text::encode_target(lines, rows.data(), keep.data(), int64_t(rows.size()), vocab, -7,
                                5, 6, 9, width, in2.data(), out2.data()));
  for (size_t r = 0; r < rows.size(); ++r) {
    const int32_t* row = out.data() + r * size_t(width);
    CHECK(row[0] == 5 && row[keep[r] + 1] == 6);
    for (int32_t k = 0; k < keep[r]; ++k) {
      const std::string& t = tokens[size_t(rows[r])][size_t(k)];
      const auto it = std::find(words.begin(), words.end(), t);
      const int32_t id = it == words.end() ? -7 : int32_t(it - words.begin());
      CHECK(row[1 + k] == id && in2[r * size_t(width) + 1 + size_t(k)] == id);
      CHECK(out2[r * size_t(width) + size_t(k)] == id);
    }
  }
  if (!rows.empty() && counts[size_t(rows[0])] < 1000) {  // asking for too many tokens fails
    std::vector<int32_t> more(keep);
    more[0] = counts[size_t(rows[0])] + 1;
    spec.width = more[0] + 2;
    std::vector<int32_t> big(rows.size() * size_t(spec.width));
    CHECK(!mb::text::encode(lines, rows.data(), more.data(), int64_t(rows.size()), vocab, spec,
                            big.data()));
  }
  std::vector<int32_t> chars(rows.size() * size_t(widest) * mb::text::kCharMaxLen);
  CHECK(mb::text::encode_chars(lines, rows.data(), keep.data(), int64_t(rows.size()), widest, 257,
                               chars.data()));
  check_shuffle(seed, 1 + int64_t(options >> 5), int64_t(std::min<size_t>(n, 300)));
  return 0;
}
