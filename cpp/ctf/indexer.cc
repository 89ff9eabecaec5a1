// CTF indexer implementation (see indexer.h).
#include "indexer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "bytes.h"

namespace mb::ctf {
namespace {

constexpr int64_t kProgressStep = int64_t(16) << 20;

bool is_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

struct LineInfo {
  bool has_id = false;
  bool id_overflow = false;
  uint64_t id = 0;
  bool is_row = false;    // anything besides the id, delimiters and comments
  bool has_main = false;  // names the main stream
};

const uint8_t* find_byte(const uint8_t* p, const uint8_t* end, uint8_t c) {
  const void* hit = std::memchr(p, c, size_t(end - p));
  return hit ? static_cast<const uint8_t*>(hit) : end;
}

bool names_alias(const uint8_t* line, const uint8_t* end, const std::string& alias) {
  const size_t n = alias.size();
  for (const uint8_t* p = find_byte(line, end, kNamePrefix); p < end;
       p = find_byte(p + 1, end, kNamePrefix)) {
    if (size_t(end - p - 1) < n || std::memcmp(p + 1, alias.data(), n) != 0) continue;
    const uint8_t* after = p + 1 + n;
    if (after == end || !is_name_byte(*after)) return true;
  }
  return false;
}

LineInfo classify(const uint8_t* p, const uint8_t* end, const std::string& main_alias) {
  LineInfo info;
  const uint8_t* line = p;
  if (p < end && is_digit(*p)) {
    info.has_id = true;
    for (; p < end && is_digit(*p); ++p) {
      uint64_t digit = *p - '0';
      if (info.id > (std::numeric_limits<uint64_t>::max() - digit) / 10) info.id_overflow = true;
      info.id = info.id * 10 + digit;
    }
  }
  for (;;) {
    while (p < end && is_column_delimiter(*p)) ++p;
    if (p == end) break;
    if (*p == kNamePrefix && p + 1 < end && p[1] == kCommentMark) {
      p = find_byte(p + 2, end, kNamePrefix);
      continue;
    }
    info.is_row = true;
    break;
  }
  if (info.is_row && !main_alias.empty()) info.has_main = names_alias(line, end, main_alias);
  return info;
}

}  // namespace

struct StreamingIndexer::Impl {
  explicit Impl(const IndexOptions& options) : options(options) {}

  size_t feed(const uint8_t* data, size_t size, int64_t base_offset, bool final) {
    if (finished) throw std::logic_error("this indexer has already finished");
    if (base_offset != consumed) {
      throw std::invalid_argument("a block should start where the previous one was consumed");
    }
    if (out.status != IndexStatus::kOk || size == 0) return 0;
    const uint8_t* end = data + size;
    if (!final) {  // whole lines only: stop after the last '\n'
      const uint8_t* q = end;
      while (q > data && q[-1] != kRowDelimiter) --q;
      end = q;
      if (end == data) return 0;
    }
    data_ = data;
    base_ = base_offset;
    const uint8_t* p = data;
    if (!started && !start(&p, end)) return size_t(end - data);
    while (p < end) {
      const uint8_t* eol = find_byte(p, end, kRowDelimiter);
      const uint8_t* next = eol < end ? eol + 1 : end;
      if (!line(p, eol, next)) return size_t(end - data);
      ++line_no;
      p = next;
    }
    consumed += end - data;
    return size_t(end - data);
  }

  IndexResult finish() {
    if (finished) throw std::logic_error("this indexer has already finished");
    finished = true;
    if (out.status == IndexStatus::kOk) {
      if (!started) {
        out.status = IndexStatus::kEmptyFile;
        out.status_offset = consumed;
        out.status_line = line_no;
      } else {
        close_sequence(consumed);
        out.total_lines = line_no - 1;
      }
    }
    return std::move(out);
  }

  bool fail(IndexStatus status, const uint8_t* at) {
    out.status = status;
    out.status_offset = offset(at);
    out.status_line = line_no;
    return false;
  }

  int64_t offset(const uint8_t* at) const { return base_ + (at - data_); }

  // Skips the BOM and leading whitespace (across blocks) and chooses the mode.
  bool start(const uint8_t** at, const uint8_t* end) {
    const uint8_t* p = *at;
    if (base_ == 0) {
      if (end - p >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF))) {
        return fail(IndexStatus::kUtf16Bom, p);
      }
      if (end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) p += 3;
    }
    for (; p < end && is_space(*p); ++p) {
      if (*p == kRowDelimiter) ++line_no;
    }
    *at = p;
    if (p == end) {
      consumed += end - data_;
      return false;
    }
    started = true;
    out.line_mode = options.skip_sequence_ids || *p == kNamePrefix;
    return true;
  }

  bool line(const uint8_t* p, const uint8_t* eol, const uint8_t* next) {
    const LineInfo info = classify(p, eol, options.main_alias);
    if (!info.is_row) {
      ++out.ignored_lines;
      return true;
    }
    const bool counts = options.main_alias.empty() || info.has_main;
    if (out.line_mode) {
      if (counts) {
        push(uint64_t(line_no - 1), offset(p), next - p, 1, line_no);
      } else {
        out.dropped_offsets.push_back(offset(p));
        out.dropped_lines.push_back(line_no);
      }
      return true;
    }
    if (info.has_id && info.id_overflow) return fail(IndexStatus::kSequenceIdOverflow, p);
    if (info.has_id && (!open || info.id != key)) {
      close_sequence(offset(p));
      open = true;
      key = info.id;
      seq_start = offset(p);
      seq_line = line_no;
      seq_rows = 0;
    } else if (!open) {
      return fail(IndexStatus::kExpectedSequenceId, p);
    }
    if (counts) ++seq_rows;
    return true;
  }

  void close_sequence(int64_t end) {
    if (!open) return;
    open = false;
    if (seq_rows == 0) {
      out.dropped_offsets.push_back(seq_start);
      out.dropped_lines.push_back(seq_line);
      return;
    }
    push(key, seq_start, end - seq_start, seq_rows, seq_line);
  }

  void push(uint64_t k, int64_t start, int64_t size, int64_t rows, int64_t line) {
    out.keys.push_back(k);
    out.offsets.push_back(start);
    out.sizes.push_back(size);
    out.rows.push_back(rows);
    out.lines.push_back(line);
  }

  const IndexOptions options;
  IndexResult out;
  const uint8_t* data_ = nullptr;  // the current block
  int64_t base_ = 0;               // its file offset
  int64_t consumed = 0;
  bool started = false;
  bool finished = false;
  int64_t line_no = 1;
  bool open = false;
  uint64_t key = 0;
  int64_t seq_start = 0;
  int64_t seq_line = 0;
  int64_t seq_rows = 0;
};

StreamingIndexer::StreamingIndexer(const IndexOptions& options) : impl_(new Impl(options)) {}

StreamingIndexer::~StreamingIndexer() { delete impl_; }

size_t StreamingIndexer::feed(const uint8_t* data, size_t size, int64_t base_offset, bool final) {
  return impl_->feed(data, size, base_offset, final);
}

IndexStatus StreamingIndexer::status() const { return impl_->out.status; }

int64_t StreamingIndexer::consumed() const { return impl_->consumed; }

IndexResult StreamingIndexer::finish() { return impl_->finish(); }

IndexResult build_index(const uint8_t* data, size_t size, const IndexOptions& options,
                        const std::function<bool(int64_t)>& progress) {
  StreamingIndexer indexer(options);
  size_t done = 0;
  while (done < size && indexer.status() == IndexStatus::kOk) {
    size_t stop = std::min(size, done + size_t(kProgressStep));
    if (stop < size) {  // extend to the end of the line
      const uint8_t* nl = find_byte(data + stop - 1, data + size, kRowDelimiter);
      stop = nl < data + size ? size_t(nl - data) + 1 : size;
    }
    indexer.feed(data + done, stop - done, int64_t(done), stop == size);
    done = stop;
    if (done < size && progress && indexer.status() == IndexStatus::kOk && !progress(done)) {
      IndexResult out = indexer.finish();
      out.status = IndexStatus::kCancelled;
      out.status_offset = int64_t(done);
      return out;
    }
  }
  return indexer.finish();
}


}  // namespace mb::ctf
