// CTF parser implementation: one pass per sequence, rows split on '\n'.
// The grammar and the skip rules are documented in docs/ctf-format.md; the
// pure-Python reference (minibatcher.formats.ctf.reference) mirrors this file.
#include "parser.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "bytes.h"
#include "number.h"

namespace mb::ctf {
namespace {

constexpr int64_t kInt32IndexLimit = int64_t(1) << 31;
constexpr size_t kMaxTrackedUnknownNames = 256;
// Sparse entries ("i:v" plus a delimiter) take at least 4 bytes; reserving
// for that bound costs address space only (untouched pages are not resident).
constexpr uint64_t kMaxSparseReserve = uint64_t(1) << 24;

struct UnknownName {
  std::string name;
  int64_t offset;
  int64_t line;
  int64_t sequence;
  int64_t count;
};

template <typename T>
class ChunkParser {
 public:
  ChunkParser(const std::vector<StreamSpec>& streams, const ParseSettings& settings)
      : set_(settings), specs_(streams), seen_(streams.size(), 0),
        sequence_(size_t(settings.first_sequence)) {
    result_.streams.resize(streams.size());
    // Hints only: never reserve beyond what the bytes can hold.
    const uint64_t rows = std::min<uint64_t>(set_.rows_hint, set_.bytes_hint / 2 + 1);
    for (size_t k = 0; k < specs_.size(); ++k) {
      auto& out = result_.streams[k];
      out.sequence_samples.reserve(size_t(std::min<uint64_t>(set_.sequences_hint, rows + 1)));
      if (specs_[k].sparse) {
        out.indptr.reserve(static_cast<size_t>(rows) + 1);
        out.indptr.push_back(0);
        const size_t entries = size_t(std::min<uint64_t>(set_.bytes_hint / 4 + 1, kMaxSparseReserve));
        out.values.reserve(entries);
        (specs_[k].dim > kInt32IndexLimit ? out.indices64.reserve(entries)
                                          : out.indices32.reserve(entries));
      } else {
        const uint64_t dim = uint64_t(specs_[k].dim);
        if (rows <= (uint64_t(1) << 32) / dim) out.values.reserve(size_t(rows * dim));
      }
    }
  }

  void feed(const uint8_t* data, int64_t base_offset, const SequenceSpan* sequences, size_t count) {
    data_ = data;
    base_offset_ = base_offset;
    for (size_t s = 0; s < count && !result_.aborted; ++s, ++sequence_) parse_sequence(sequences[s]);
  }

  bool aborted() const { return result_.aborted; }
  int64_t next_sequence() const { return int64_t(sequence_); }

  bool append(ChunkParser& later) {
    if (result_.errors || result_.aborted || later.result_.errors || later.result_.aborted ||
        later.unknown_.size() >= kMaxTrackedUnknownNames) {
      return false;
    }
    if (later.set_.first_sequence != int64_t(sequence_) || later.specs_.size() != specs_.size()) {
      throw std::logic_error("append: the later parser should begin where this one ends");
    }
    for (size_t k = 0; k < specs_.size(); ++k) {
      append_stream(result_.streams[k], later.result_.streams[k]);
    }
    // Warnings are recorded while fewer than warning_limit were seen before them.
    int64_t shown = result_.dense_short;
    for (const Issue& i : later.result_.issues) {
      if (i.code != int32_t(IssueCode::kDenseShort) || shown++ < set_.warning_limit) {
        result_.issues.push_back(i);
      }
    }
    result_.dense_short += later.result_.dense_short;
    result_.unknown_inputs += later.result_.unknown_inputs;
    for (auto& u : later.unknown_) add_unknown(std::move(u));
    sequence_ = later.sequence_;
    later.result_ = ParseResult<T>();
    later.unknown_.clear();
    return true;
  }

  ParseResult<T> finish() {
    for (const auto& u : unknown_) {
      result_.issues.push_back({int32_t(IssueCode::kUnknownInput), -1, u.offset, u.line,
                                u.sequence, int64_t(u.name.size()), u.count});
    }
    return std::move(result_);
  }

 private:
  void issue(IssueCode code, int32_t stream, const uint8_t* at, int64_t a = 0, int64_t b = 0) {
    result_.issues.push_back({int32_t(code), stream, base_offset_ + (at - data_), line_,
                              int64_t(sequence_), a, b});
  }

  void charge() {
    if (++result_.errors >= set_.error_limit) result_.aborted = true;
  }

  // A charged issue. Every error but a duplicate input (whose sample is kept)
  // rejects a sample or a row: what follows from it is not charged again.
  void error(IssueCode code, int32_t stream, const uint8_t* at, int64_t a = 0, int64_t b = 0) {
    issue(code, stream, at, a, b);
    if (code != IssueCode::kDuplicateInput) {
      ++row_rejections_;
      ++sequence_rejections_;
    }
    charge();
  }

  int64_t byte_at(const uint8_t* at) const { return at < end_ ? int64_t(*at) : -1; }

  void skip_to_next_input() {
    while (p_ < end_ && *p_ != kNamePrefix && *p_ != kRowDelimiter) ++p_;
  }

  int32_t lookup(const uint8_t* name, size_t length) const {
    for (size_t k = 0; k < specs_.size(); ++k) {
      const std::string& alias = specs_[k].alias;
      if (alias.size() == length && std::memcmp(alias.data(), name, length) == 0) {
        return int32_t(k);
      }
    }
    return -1;
  }

  static void append_stream(StreamBuffers<T>& dst, StreamBuffers<T>& src) {
    const int64_t base = int64_t(dst.values.size());
    dst.values.insert(dst.values.end(), src.values.begin(), src.values.end());
    dst.indices32.insert(dst.indices32.end(), src.indices32.begin(), src.indices32.end());
    dst.indices64.insert(dst.indices64.end(), src.indices64.begin(), src.indices64.end());
    for (size_t i = 1; i < src.indptr.size(); ++i) dst.indptr.push_back(base + src.indptr[i]);
    dst.sequence_samples.insert(dst.sequence_samples.end(), src.sequence_samples.begin(),
                                src.sequence_samples.end());
    dst.samples += src.samples;
  }

  // A name first seen by a later parser: counted into this one's entry, or
  // tracked here while there is room (the order of first occurrences is kept).
  void add_unknown(UnknownName&& u) {
    for (auto& mine : unknown_) {
      if (mine.name == u.name) {
        mine.count += u.count;
        return;
      }
    }
    if (unknown_.size() < kMaxTrackedUnknownNames) unknown_.push_back(std::move(u));
  }

  void note_unknown(const uint8_t* name, size_t length) {
    ++result_.unknown_inputs;
    for (auto& u : unknown_) {
      if (u.name.size() == length && std::memcmp(u.name.data(), name, length) == 0) {
        ++u.count;
        return;
      }
    }
    if (unknown_.size() < kMaxTrackedUnknownNames) {
      unknown_.push_back({std::string(reinterpret_cast<const char*>(name), length),
                          base_offset_ + (name - 1 - data_), line_, int64_t(sequence_),
                          1});
    }
  }

  // Scans one value; on failure charges the error and returns false.
  bool value(int32_t k, T* out) {
    // Fast path: a short decimal (most values of real data) followed by a delimiter.
    const uint8_t* q = scan_short_decimal<T>(p_, end_, out);
    if (q != nullptr && (q == end_ || is_value_delimiter(*q) || ends_sample(*q))) {
      p_ = q;
      return true;
    }
    NumberScan scan = scan_number<T>(p_, end_, out);
    if (scan.error != NumberError::kNone) {
      error(IssueCode::kBadNumber, k, scan.end, byte_at(scan.end), int64_t(scan.error));
      p_ = scan.end;
      return false;
    }
    p_ = scan.end;
    if (p_ < end_ && !is_value_delimiter(*p_) && !ends_sample(*p_)) {
      error(IssueCode::kBadValueEnd, k, p_, *p_);
      return false;
    }
    return true;
  }

  bool dense_sample(int32_t k, const uint8_t* sample_start) {
    auto& out = result_.streams[k];
    const int64_t dim = specs_[k].dim;
    const size_t base = out.values.size();
    out.values.resize(base + size_t(dim));
    T* dst = out.values.data() + base;
    int64_t n = 0;
    for (;;) {
      while (p_ < end_ && is_value_delimiter(*p_)) ++p_;
      if (p_ == end_ || ends_sample(*p_)) break;
      T v;
      if (!value(k, &v)) {
        out.values.resize(base);
        return false;
      }
      if (n < dim) dst[n] = v;
      ++n;
    }
    if (n > dim) {
      out.values.resize(base);
      error(IssueCode::kDenseTooLong, k, sample_start, n, dim);
      return false;
    }
    if (n < dim) {
      std::fill(dst + n, dst + dim, T(0));
      if (result_.dense_short++ < set_.warning_limit) {
        issue(IssueCode::kDenseShort, k, sample_start, n, dim);
      }
    }
    ++out.samples;
    return true;
  }

  bool sparse_entry(int32_t k, StreamBuffers<T>& out, bool wide) {
    if (!is_digit(*p_)) {
      error(IssueCode::kSparseIndexMissing, k, p_, *p_);
      return false;
    }
    uint64_t index;
    bool overflow;
    const uint8_t* after = scan_uint64(p_, end_, &index, &overflow);
    if (overflow) {
      error(IssueCode::kSparseIndexOverflow, k, p_);
      return false;
    }
    if (index >= uint64_t(specs_[k].dim)) {
      error(IssueCode::kSparseIndexRange, k, p_, int64_t(index), specs_[k].dim);
      return false;
    }
    p_ = after;
    if (p_ == end_ || *p_ != kIndexDelimiter) {
      error(IssueCode::kSparseColonMissing, k, p_, byte_at(p_), int64_t(index));
      return false;
    }
    ++p_;
    T v;
    if (p_ == end_) {
      error(IssueCode::kBadNumber, k, p_, -1, int64_t(NumberError::kExpectedDigit));
      return false;
    }
    if (!value(k, &v)) return false;
    out.values.push_back(v);
    if (wide) {
      out.indices64.push_back(int64_t(index));
    } else {
      out.indices32.push_back(int32_t(index));
    }
    return true;
  }

  bool sparse_sample(int32_t k) {
    auto& out = result_.streams[k];
    const bool wide = specs_[k].dim > kInt32IndexLimit;
    const size_t base_values = out.values.size();
    for (;;) {
      while (p_ < end_ && is_value_delimiter(*p_)) ++p_;
      if (p_ == end_ || ends_sample(*p_)) break;
      if (!sparse_entry(k, out, wide)) {
        out.values.resize(base_values);
        (wide ? out.indices64.resize(base_values) : out.indices32.resize(base_values));
        return false;
      }
    }
    out.indptr.push_back(int64_t(out.values.size()));
    ++out.samples;
    return true;
  }

  // One sample or comment starting at '|'. Returns 1 for a parsed sample.
  int sample(bool* content) {
    const uint8_t* bar = p_;
    if (p_ + 1 < end_ && p_[1] == kCommentMark) {
      p_ += 2;
      skip_to_next_input();
      return 0;
    }
    *content = true;
    const uint8_t* name = p_ + 1;
    if (name == end_ || !is_name_byte(*name)) {
      error(IssueCode::kBadNameStart, -1, bar, byte_at(name));
      p_ = name;
      skip_to_next_input();
      return 0;
    }
    const uint8_t* name_end = name;
    while (name_end < end_ && is_name_byte(*name_end)) ++name_end;
    const int32_t k = lookup(name, size_t(name_end - name));
    p_ = name_end;
    if (k < 0) {
      note_unknown(name, size_t(name_end - name));
      skip_to_next_input();
      return 0;
    }
    if (seen_[k]) {
      error(IssueCode::kDuplicateInput, k, bar);
      if (result_.aborted) return 0;
    }
    seen_[k] = 1;
    const bool ok = specs_[k].sparse ? sparse_sample(k) : dense_sample(k, bar);
    if (!ok) skip_to_next_input();
    return ok ? 1 : 0;
  }

  // Parses one physical line. Blank and comment-only lines are not rows.
  void row() {
    const uint8_t* row_start = p_;
    while (p_ < end_ && is_digit(*p_)) ++p_;
    std::fill(seen_.begin(), seen_.end(), 0);
    row_rejections_ = 0;
    bool content = false;
    int samples = 0;
    while (!result_.aborted) {
      while (p_ < end_ && is_column_delimiter(*p_)) ++p_;
      if (p_ == end_ || *p_ == kRowDelimiter) break;
      if (*p_ != kNamePrefix) {
        content = true;
        error(IssueCode::kExpectedNamePrefix, -1, p_, *p_);
        skip_to_next_input();
        continue;
      }
      samples += sample(&content);
    }
    if (content && samples == 0 && row_rejections_ == 0 && !result_.aborted) {
      error(IssueCode::kRowWithoutSamples, -1, row_start);
    }
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
  }

  void finish_sequence(const SequenceSpan& span, const std::vector<int64_t>& start_samples) {
    const uint8_t* seq_start = data_ + span.offset;
    line_ = span.line;
    int64_t longest = 0;
    int32_t empty = -1;
    for (size_t k = 0; k < specs_.size(); ++k) {
      auto& out = result_.streams[k];
      const int64_t n = out.samples - start_samples[k];
      out.sequence_samples.push_back(n);
      if (n == 0 && empty < 0) empty = int32_t(k);
      if (set_.main_stream < 0 || set_.main_stream == int32_t(k)) longest = std::max(longest, n);
    }
    if (empty >= 0) {
      const bool follows = sequence_rejections_ > 0;
      issue(IssueCode::kEmptyInput, empty, seq_start, follows ? 1 : 0);
      if (!set_.skip_incomplete) {
        result_.aborted = true;
      } else if (!follows) {
        charge();
      }
      return;
    }
    if (longest < span.rows && sequence_rejections_ == 0) {
      error(IssueCode::kTooFewSamples, -1, seq_start, longest, span.rows);
    }
  }

  void parse_sequence(const SequenceSpan& span) {
    p_ = data_ + span.offset;
    end_ = p_ + span.size;
    line_ = span.line;
    sequence_rejections_ = 0;
    std::vector<int64_t> start_samples(specs_.size());
    for (size_t k = 0; k < specs_.size(); ++k) start_samples[k] = result_.streams[k].samples;
    while (p_ < end_ && !result_.aborted) row();
    if (!result_.aborted) finish_sequence(span, start_samples);
  }

  const ParseSettings set_;
  const std::vector<StreamSpec> specs_;
  ParseResult<T> result_;
  std::vector<UnknownName> unknown_;
  std::vector<uint8_t> seen_;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  int64_t line_ = 0;
  int64_t row_rejections_ = 0;       // samples or rows rejected by errors in this row
  int64_t sequence_rejections_ = 0;  // ... in this sequence
  size_t sequence_ = 0;  // across all blocks
  const uint8_t* data_ = nullptr;
  int64_t base_offset_ = 0;
};

}  // namespace

template <typename T>
struct StreamingParser<T>::Impl {
  ChunkParser<T> parser;
  bool finished = false;
};

template <typename T>
StreamingParser<T>::StreamingParser(const std::vector<StreamSpec>& streams,
                                    const ParseSettings& settings)
    : impl_(new Impl{ChunkParser<T>(streams, settings)}) {}

template <typename T>
StreamingParser<T>::~StreamingParser() {
  delete impl_;
}

template <typename T>
void StreamingParser<T>::feed(const uint8_t* data, size_t, int64_t base_offset,
                              const SequenceSpan* sequences, size_t count) {
  if (impl_->finished) throw std::logic_error("this parser has already finished");
  impl_->parser.feed(data, base_offset, sequences, count);
}

template <typename T>
bool StreamingParser<T>::aborted() const {
  return impl_->parser.aborted();
}

template <typename T>
int64_t StreamingParser<T>::next_sequence() const {
  return impl_->parser.next_sequence();
}

template <typename T>
bool StreamingParser<T>::append(StreamingParser& later) {
  if (impl_->finished || later.impl_->finished) {
    throw std::logic_error("this parser has already finished");
  }
  if (!impl_->parser.append(later.impl_->parser)) return false;
  later.impl_->finished = true;
  return true;
}

template <typename T>
ParseResult<T> StreamingParser<T>::finish() {
  if (impl_->finished) throw std::logic_error("this parser has already finished");
  impl_->finished = true;
  return impl_->parser.finish();
}

template class StreamingParser<float>;
template class StreamingParser<double>;

template <typename T>
ParseResult<T> parse_chunk(const ParseRequest& request, const std::vector<StreamSpec>& streams) {
  ParseSettings settings;
  settings.main_stream = request.main_stream;
  settings.error_limit = request.error_limit;
  settings.warning_limit = request.warning_limit;
  settings.skip_incomplete = request.skip_incomplete;
  settings.bytes_hint = request.size;
  settings.sequences_hint = request.count;
  for (size_t s = 0; s < request.count; ++s) {
    settings.rows_hint += uint64_t(std::max<int64_t>(request.sequences[s].rows, 0));
  }
  StreamingParser<T> parser(streams, settings);
  parser.feed(request.data, request.size, request.base_offset, request.sequences, request.count);
  return parser.finish();
}

template ParseResult<float> parse_chunk<float>(const ParseRequest&, const std::vector<StreamSpec>&);
template ParseResult<double> parse_chunk<double>(const ParseRequest&,
                                                 const std::vector<StreamSpec>&);

}  // namespace mb::ctf
