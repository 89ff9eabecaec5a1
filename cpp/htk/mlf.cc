// MLF parser (see mlf.h).
#include "mlf.h"

#include <charconv>
#include <cmath>

#include "text.h"

namespace mb::htk {
namespace {

constexpr std::string_view kHeader = "#!MLF!#";
constexpr double kTimeUnitsPerFrame = 100000.0;  // HTK times are in 100 ns; frames are 10 ms
constexpr double kMaxFrames = 2147483647.0;

std::string_view strip(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && is_blank(s[b])) ++b;
  return rstrip(s.substr(b));
}

// A non-negative decimal number (CNTK reads times with strtod).
bool parse_number(std::string_view s, double* out) {
  if (s.empty() || s[0] == '-') return false;
  if (s.size() <= 15) {  // fast path: plain integers are exact in a double
    int64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
    if (i == s.size()) {
      *out = double(v);
      return true;
    }
  }
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v) || v < 0) {
    return false;
  }
  *out = v;
  return true;
}

bool parse_class_id(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 9) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

class Parser {
 public:
  Parser(const MlfOptions& o, MlfResult* r) : o_(o), r_(*r) {}

  void line(std::string_view raw, int64_t number, int64_t offset) {
    const std::string_view s = strip(raw);
    if (s.empty()) return;
    if (state_ == kHeaderState) {
      if (s != kHeader) {
        r_.header_ok = false;
        state_ = kDone;
      } else {
        state_ = kName;
      }
      return;
    }
    if (state_ == kDone) return;
    if (state_ != kName && s == ".") {
      finish();
      state_ = kName;
      return;
    }
    if (state_ != kName && s.front() == '"') {  // a new name inside an entry: '.' is missing
      fail(MlfIssue::kUnterminated, number, offset);
      finish();
      state_ = kName;
    }
    if (state_ == kName) {
      if (s != kHeader) name(s, number, offset);
      return;
    }
    if (state_ == kBody) label(s, number, offset);
  }

  void end() {
    if (state_ == kHeaderState) r_.header_ok = false;
    if (state_ == kBody || state_ == kSkip) {
      fail(MlfIssue::kUnterminated, r_.lines.back(), r_.offsets.back());
      finish();
    }
  }

 private:
  enum State { kHeaderState, kName, kBody, kSkip, kDone };

  void name(std::string_view s, int64_t number, int64_t offset) {
    r_.lines.push_back(number);
    r_.offsets.push_back(offset);
    r_.issues.push_back(int32_t(MlfIssue::kNone));
    r_.issue_lines.push_back(0);
    r_.issue_offsets.push_back(0);
    r_.issue_a.push_back(0);
    r_.issue_b.push_back(0);
    first_run_ = r_.run_class.size();
    previous_end_ = 0;
    std::string_view key;
    if (s.size() >= 3 && s.front() == '"' && s.back() == '"') {
      key = s.substr(1, s.size() - 2);
      if (key.substr(0, 2) == "*/") key.remove_prefix(2);
      key = strip_extension(key);
      state_ = kBody;
    } else {
      key = s;
      fail(MlfIssue::kBadName, number, offset);
    }
    r_.keys.push_back(key_hash(key));
    r_.key_text.append(key);
    r_.key_ends.push_back(int64_t(r_.key_text.size()));
  }

  void fail(MlfIssue issue, int64_t number, int64_t offset, int64_t a = 0, int64_t b = 0) {
    const size_t i = r_.issues.size() - 1;
    if (r_.issues[i] == int32_t(MlfIssue::kNone)) {
      r_.issues[i] = int32_t(issue);
      r_.issue_lines[i] = number;
      r_.issue_offsets[i] = offset;
      r_.issue_a[i] = a;
      r_.issue_b[i] = b;
    }
    state_ = kSkip;
  }

  void finish() {
    const size_t i = r_.issues.size() - 1;
    if (r_.issues[i] == int32_t(MlfIssue::kNone) && r_.run_class.size() == first_run_) {
      r_.issues[i] = int32_t(MlfIssue::kNoLabels);
      r_.issue_lines[i] = r_.lines[i];
      r_.issue_offsets[i] = r_.offsets[i];
    }
    if (r_.issues[i] != int32_t(MlfIssue::kNone)) {
      r_.run_class.resize(first_run_);
      r_.run_length.resize(first_run_);
      previous_end_ = 0;
    }
    r_.run_ends.push_back(int64_t(r_.run_class.size()));
    r_.frames.push_back(previous_end_);
  }

  // Splits on runs of spaces and tabs; returns the number of tokens (up to 5 kept).
  static size_t tokens(std::string_view s, std::string_view* out) {
    size_t n = 0, i = 0;
    while (i < s.size()) {
      while (i < s.size() && is_blank(s[i])) ++i;
      if (i == s.size()) break;
      const size_t b = i;
      while (i < s.size() && !is_blank(s[i])) ++i;
      if (n < 5) out[n] = s.substr(b, i - b);
      ++n;
    }
    return n;
  }

  bool frames(std::string_view t0, std::string_view t1, int64_t* fs, int64_t* fe) const {
    double ts = 0, te = 0;
    if (!parse_number(t0, &ts) || !parse_number(t1, &te)) return false;
    if (te - ts >= kTimeUnitsPerFrame - 1) {  // HTK time units, rounded to frames
      ts = ts / kTimeUnitsPerFrame + 0.5;
      te = te / kTimeUnitsPerFrame + 0.5;
    }
    *fs = ts > kMaxFrames ? int64_t(kMaxFrames) + 1 : int64_t(ts);
    *fe = te > kMaxFrames ? int64_t(kMaxFrames) + 1 : int64_t(te);
    return true;
  }

  void label(std::string_view s, int64_t number, int64_t offset) {
    std::string_view t[5];
    const size_t n = tokens(s, t);
    const bool with_states = o_.states != nullptr;
    if (n < (with_states ? 3u : 4u)) return fail(MlfIssue::kTooFewColumns, number, offset, int64_t(n));
    int64_t fs = 0, fe = 0;
    if (!frames(t[0], t[1], &fs, &fe)) return fail(MlfIssue::kBadTime, number, offset);
    if (fe > int64_t(kMaxFrames) || fs > int64_t(kMaxFrames)) {
      return fail(MlfIssue::kTooLong, number, offset);
    }
    if (fe < fs) return fail(MlfIssue::kEndBeforeStart, number, offset, fs, fe);
    if (fs != previous_end_) {
      if (r_.run_class.size() == first_run_) return fail(MlfIssue::kFirstFrame, number, offset, 0, fs);
      return fail(fs > previous_end_ ? MlfIssue::kGap : MlfIssue::kOverlap, number, offset,
                  previous_end_, fs);
    }
    int64_t id = -1;
    if (with_states) {
      id = o_.states->find(t[2]);
      if (id < 0) return fail(MlfIssue::kUnknownLabel, number, offset);
    } else {
      if (n != 4) return fail(MlfIssue::kColumnCount, number, offset, int64_t(n));
      if (!parse_class_id(t[3], &id)) return fail(MlfIssue::kBadClassId, number, offset);
    }
    if (o_.label_dim > 0 && id >= o_.label_dim) {
      return fail(MlfIssue::kClassIdTooLarge, number, offset, id, o_.label_dim);
    }
    r_.run_class.push_back(int32_t(id));
    r_.run_length.push_back(int32_t(fe - fs));
    previous_end_ = fe;
  }

  const MlfOptions& o_;
  MlfResult& r_;
  State state_ = kHeaderState;
  size_t first_run_ = 0;
  int64_t previous_end_ = 0;
};

uint64_t name_hash(std::string_view s) { return key_hash(s); }

}  // namespace

int64_t StateTable::build(const std::vector<std::string>& names) {
  names_ = names;
  uint64_t capacity = 16;
  while (capacity < 2 * names_.size() + 1) capacity <<= 1;
  mask_ = capacity - 1;
  slots_.assign(size_t(capacity), -1);
  for (size_t i = 0; i < names_.size(); ++i) {
    uint64_t h = name_hash(names_[i]) & mask_;
    while (slots_[h] >= 0) {
      if (names_[size_t(slots_[h])] == names_[i]) return int64_t(i);
      h = (h + 1) & mask_;
    }
    slots_[h] = int32_t(i);
  }
  return -1;
}

int32_t StateTable::find(std::string_view name) const {
  if (slots_.empty()) return -1;
  uint64_t h = name_hash(name) & mask_;
  while (slots_[h] >= 0) {
    if (names_[size_t(slots_[h])] == name) return slots_[h];
    h = (h + 1) & mask_;
  }
  return -1;
}

MlfResult parse_mlf(const char* data, size_t size, const MlfOptions& options) {
  MlfResult result;
  Parser parser(options, &result);
  LineReader reader(data, size);
  std::string_view line;
  int64_t offset = 0;
  while (reader.next(&line, &offset)) parser.line(line, reader.line_number(), offset);
  parser.end();
  result.total_lines = reader.line_number();
  return result;
}

}  // namespace mb::htk
