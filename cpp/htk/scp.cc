// SCP parser (see scp.h).
#include "scp.h"

#include <string_view>
#include <unordered_map>

#include "text.h"

namespace mb::htk {
namespace {

// A frame index: decimal digits only, below 2^31 (CNTK stores uint32).
bool parse_frame(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 10) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v >= (int64_t(1) << 31)) return false;
  *out = v;
  return true;
}

// CNTK's path rewriting (ConfigHelper::AdjustUtterancePath): a prefix goes
// right after the first '=' (or before the whole line); without a prefix the
// first "..." becomes the SCP file's folder.
std::string rewrite(std::string_view line, const ScpOptions& o) {
  std::string out(line);
  if (!o.prefix.empty()) {
    const size_t eq = out.find('=');
    out.insert(eq == std::string::npos ? 0 : eq + 1, o.prefix);
  } else {
    const size_t dots = out.find("...");
    if (dots != std::string::npos) out.replace(dots, 3, o.scp_dir);
  }
  return out;
}

struct Parsed {
  ScpIssue issue = ScpIssue::kNone;
  std::string_view logical, physical;
  int64_t start = -1, end = -1;
};

Parsed parse_line(std::string_view line) {
  Parsed p;
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) {
    p.logical = p.physical = line;
    const std::string_view ubyte = "-ubyte";
    if (line.size() >= ubyte.size() && line.substr(line.size() - ubyte.size()) == ubyte) {
      p.issue = ScpIssue::kIdxFile;
    }
    return p;
  }
  p.logical = line.substr(0, eq);
  std::string_view rest = line.substr(eq + 1);
  const size_t lb = rest.find('[');
  p.physical = rest.substr(0, lb);
  if (p.logical.empty()) p.issue = ScpIssue::kEmptyName;
  if (lb == std::string_view::npos) return p;
  std::string_view inner = rest.substr(lb + 1);
  const size_t comma = inner.find(',');
  if (comma == std::string_view::npos) {
    p.issue = ScpIssue::kMissingComma;
    return p;
  }
  const size_t rb = inner.find(']', comma);
  if (rb == std::string_view::npos) {
    p.issue = ScpIssue::kMissingBracket;
  } else if (rb + 1 != inner.size()) {
    p.issue = ScpIssue::kTrailingText;
  } else if (!parse_frame(inner.substr(0, comma), &p.start)) {
    p.issue = ScpIssue::kBadStart;
  } else if (!parse_frame(inner.substr(comma + 1, rb - comma - 1), &p.end)) {
    p.issue = ScpIssue::kBadEnd;
  } else if (p.start > p.end) {
    p.issue = ScpIssue::kStartAfterEnd;
  }
  return p;
}

}  // namespace

ScpResult parse_scp(const char* data, size_t size, const ScpOptions& options) {
  ScpResult r;
  std::unordered_map<std::string, int32_t> path_ids;
  LineReader reader(data, size);
  std::string_view raw;
  int64_t offset = 0;
  while (reader.next(&raw, &offset)) {
    const std::string_view trimmed = rstrip(raw);
    if (trimmed.find_first_not_of(" \t") == std::string_view::npos) {
      ++r.blank_lines;
      continue;
    }
    const std::string line = rewrite(trimmed, options);
    Parsed p = parse_line(line);
    if (p.issue == ScpIssue::kNone && p.physical.empty()) p.issue = ScpIssue::kEmptyPath;
    const std::string_view key = strip_extension(p.logical);
    r.lines.push_back(reader.line_number());
    r.offsets.push_back(offset);
    r.issues.push_back(int32_t(p.issue));
    r.keys.push_back(key_hash(key));
    r.key_text.append(key);
    r.key_ends.push_back(int64_t(r.key_text.size()));
    r.starts.push_back(p.issue == ScpIssue::kNone ? p.start : -1);
    r.ends.push_back(p.issue == ScpIssue::kNone ? p.end : -1);
    if (p.issue != ScpIssue::kNone) {
      r.path_index.push_back(-1);
      continue;
    }
    auto found = path_ids.find(std::string(p.physical));
    if (found == path_ids.end()) {
      found = path_ids.emplace(std::string(p.physical), int32_t(r.paths.size())).first;
      r.paths.emplace_back(p.physical);
    }
    r.path_index.push_back(found->second);
  }
  return r;
}

}  // namespace mb::htk
