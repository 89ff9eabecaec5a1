// SCP (script) files: one utterance per line, `logical=physical[s,e]`,
// `logical=physical` or a bare path (cntk-htk-mlf-and-randomizer.md §2,
// DECISIONS 11: ranges are optional, blank lines are skipped).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mb::htk {

enum class ScpIssue : int32_t {
  kNone = 0,
  kMissingComma = 1,    // '[' without ',' (a=b[s])
  kMissingBracket = 2,  // no ']' after the end frame
  kTrailingText = 3,    // something after ']'
  kBadStart = 4,        // the start frame is not a non-negative integer
  kBadEnd = 5,          // the end frame is not a non-negative integer
  kStartAfterEnd = 6,   // s > e
  kEmptyName = 7,       // empty logical name
  kEmptyPath = 8,       // empty physical path
  kIdxFile = 9,         // a bare '-ubyte' path (MNIST idx files are not supported)
};

struct ScpOptions {
  std::string prefix;   // prefixPathInSCP, normalized ('/' separators, one trailing '/'), or ""
  std::string scp_dir;  // replaces the first "..." of a line when there is no prefix
};

struct ScpResult {
  // One row per non-blank line (also the malformed ones, with their issue).
  std::vector<int64_t> lines;       // 1-based line number
  std::vector<int64_t> offsets;     // byte offset of the line
  std::vector<int32_t> issues;      // ScpIssue
  std::vector<uint64_t> keys;       // key_hash(key)
  std::vector<int64_t> key_ends;    // key i is key_text[key_ends[i-1]:key_ends[i]]
  std::string key_text;
  std::vector<int32_t> path_index;  // index into paths (-1 for malformed lines)
  std::vector<std::string> paths;   // distinct physical paths in order of first use
  std::vector<int64_t> starts;      // first frame, or -1 for a whole file
  std::vector<int64_t> ends;        // last frame (inclusive), or -1
  int64_t blank_lines = 0;
};

ScpResult parse_scp(const char* data, size_t size, const ScpOptions& options);

}  // namespace mb::htk
