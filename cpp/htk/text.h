// Text helpers shared by the SCP and MLF parsers: line splitting, sequence
// keys and their 64-bit hash (the join key between feature and label files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mb::htk {

// FNV-1a over the key's bytes, then the splitmix64 finalizer (a good spread
// of every bit). The Python reference computes the same function.
inline uint64_t key_hash(std::string_view key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

// The key of a logical name: everything before its last '.' (CNTK's rule,
// which may cross '/'); the whole name when it has no '.'.
inline std::string_view strip_extension(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Removes trailing spaces, tabs and carriage returns.
inline std::string_view rstrip(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && (is_blank(s[n - 1]) || s[n - 1] == '\r')) --n;
  return s.substr(0, n);
}

// Iterates over lines ended by "\n", "\r\n" or a lone "\r" (the last line
// may have no terminator). `offset` is the byte offset of the line start.
class LineReader {
 public:
  LineReader(const char* data, size_t size) : data_(data), size_(size) {}

  bool next(std::string_view* line, int64_t* offset) {
    if (pos_ >= size_) return false;
    const size_t start = pos_;
    size_t end = start;
    while (end < size_ && data_[end] != '\n' && data_[end] != '\r') ++end;
    pos_ = end;
    if (pos_ < size_) {
      if (data_[pos_++] == '\r' && pos_ < size_ && data_[pos_] == '\n') ++pos_;
    }
    ++line_number_;
    *line = std::string_view(data_ + start, end - start);
    *offset = int64_t(start);
    return true;
  }

  int64_t line_number() const { return line_number_; }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  int64_t line_number_ = 0;
};

}  // namespace mb::htk
