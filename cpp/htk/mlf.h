// Master label files (MLF): CNTK's grammar (cntk-htk-mlf-and-randomizer.md §5)
// with DECISIONS 12: label lines may be separated by any run of spaces or
// tabs; gaps, overlaps, a first frame other than 0, unknown labels and bad
// class ids make the entry invalid (the caller charges one error per entry).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mb::htk {

enum class MlfIssue : int32_t {
  kNone = 0,
  kNoHeader = 1,        // the first non-empty line is not #!MLF!# (fatal)
  kBadName = 2,         // a name line without quotes at both ends
  kTooFewColumns = 3,   // fewer than 3 columns (4 without a state list)
  kBadTime = 4,         // a start or end time that is not a non-negative number
  kEndBeforeStart = 5,  // end < start
  kGap = 6,             // a range starts after the previous one ended (a = expected, b = got)
  kOverlap = 7,         // a range starts before the previous one ended
  kFirstFrame = 8,      // the first range does not start at frame 0 (b = its start)
  kUnknownLabel = 9,    // not in the state list
  kBadClassId = 10,     // column 4 is not a non-negative integer (no state list)
  kClassIdTooLarge = 11,// class id >= label_dim (a = id)
  kColumnCount = 12,    // without a state list exactly 4 columns are required
  kNoLabels = 13,       // an entry without label lines
  kUnterminated = 14,   // the entry has no terminating '.' line
  kTooLong = 15,        // more than 2^31 frames
};

// Label name -> class id, an open-addressing table over the names.
class StateTable {
 public:
  // Returns the index of a duplicate name, or -1.
  int64_t build(const std::vector<std::string>& names);
  int32_t find(std::string_view name) const;
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<int32_t> slots_;  // -1 empty, else index into names_
  uint64_t mask_ = 0;
};

struct MlfOptions {
  const StateTable* states = nullptr;  // nullptr: 4-column lines with the class id in column 4
  int64_t label_dim = 0;
};

struct MlfResult {
  bool header_ok = true;
  // One row per entry (valid or not).
  std::vector<int64_t> lines;      // line of the name
  std::vector<int64_t> offsets;    // byte offset of the name line
  std::vector<int32_t> issues;     // MlfIssue (kNone: valid)
  std::vector<int64_t> issue_lines;
  std::vector<int64_t> issue_offsets;
  std::vector<int64_t> issue_a, issue_b;
  std::vector<uint64_t> keys;
  std::vector<int64_t> key_ends;
  std::string key_text;
  std::vector<int64_t> run_ends;   // entry i owns runs [run_ends[i-1], run_ends[i])
  std::vector<int64_t> frames;     // frames of the entry (end of its last range)
  // One row per label line of the valid entries.
  std::vector<int32_t> run_class;
  std::vector<int32_t> run_length;
  int64_t total_lines = 0;
};

MlfResult parse_mlf(const char* data, size_t size, const MlfOptions& options);

}  // namespace mb::htk
