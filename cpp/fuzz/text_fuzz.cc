// libFuzzer harness for the text kernels (mb::text), the tf.data shuffle
// order (mb::tfdata::ShuffleOrder) and interleave order
// (mb::tfdata::InterleaveOrder: every element exactly once, in order within
// its input, and a cursor restored halfway continues the same), built by
// tools/fuzz.sh.
//
// Input: b[0] options (vocabulary size, keep mode), b[1..8] shuffle seed
// bytes, then text whose '\n'-separated lines are the corpus. Violations trap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "text/tokens.h"
#include "tfdata/interleave.h"
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

// Runs `order` to the end, feeding lengths[known..]; appends (input, position).
void run_interleave(mb::tfdata::InterleaveOrder& order, const std::vector<int64_t>& lengths,
                    int64_t limit, std::vector<int64_t>* in, std::vector<int64_t>* pos) {
  while (!order.done() && int64_t(in->size()) < limit) {
    std::vector<int64_t> a(3), b(3);
    const int64_t got = order.advance(std::min<int64_t>(3, limit - int64_t(in->size())),
                                      a.data(), b.data());
    in->insert(in->end(), a.begin(), a.begin() + got);
    pos->insert(pos->end(), b.begin(), b.begin() + got);
    if (order.needs_input()) {
      if (order.known_inputs() < int64_t(lengths.size())) {
        order.add_input(lengths[size_t(order.known_inputs())]);
      } else {
        order.end_inputs();
      }
    }
  }
}

void check_interleave(const std::vector<int64_t>& lengths, int64_t cycle, int64_t block,
                      int64_t cut) {
  mb::tfdata::InterleaveOrder order(cycle, block);
  std::vector<int64_t> in, pos;
  run_interleave(order, lengths, 1 << 20, &in, &pos);
  int64_t total = 0;
  for (int64_t l : lengths) total += l;
  CHECK(int64_t(in.size()) == total && order.emitted() == total);
  std::vector<int64_t> next(lengths.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {  // each input's elements once, in order
    CHECK(in[i] >= 0 && in[i] < int64_t(lengths.size()) && pos[i] == next[size_t(in[i])]++);
  }
  mb::tfdata::InterleaveOrder head(cycle, block);
  std::vector<int64_t> in1, pos1;
  run_interleave(head, lengths, cut, &in1, &pos1);
  std::vector<int64_t> slot_len(size_t(cycle), 0);
  for (int64_t c = 0; c < cycle; ++c) {
    const int64_t j = head.slot_inputs()[size_t(c)];
    if (j >= 0) slot_len[size_t(c)] = lengths[size_t(j)];
  }
  mb::tfdata::InterleaveOrder tail(cycle, block);
  CHECK(tail.restore(head.ci(), head.bi(), head.taken(), head.exhausted(),
                     head.slot_inputs().data(), head.slot_positions().data(), slot_len.data()));
  for (int64_t j = head.taken(); j < head.known_inputs(); ++j) tail.add_input(lengths[size_t(j)]);
  std::vector<int64_t> in2, pos2;
  run_interleave(tail, lengths, 1 << 20, &in2, &pos2);
  in1.insert(in1.end(), in2.begin(), in2.end());
  pos1.insert(pos1.end(), pos2.begin(), pos2.end());
  CHECK(in1 == in && pos1 == pos);
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
  std::vector<int64_t> lengths;  // the interleave's inputs: the first 24 line lengths mod 13
  for (size_t r = 0; r < starts.size() && r < 24; ++r) lengths.push_back((ends[r] - starts[r]) % 13);
  check_interleave(lengths, 1 + int64_t(seed & 3), 1 + int64_t((seed >> 2) & 3),
                   int64_t((seed >> 8) % 64));
  return 0;
}
