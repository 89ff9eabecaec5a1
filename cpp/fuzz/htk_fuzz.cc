// libFuzzer target for the HTK/MLF core: SCP and MLF parsing, HTK headers and
// frame reads (through a memfd), checksums and the context gather. The first
// byte picks the parser; every result is checked for internal consistency.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "htk/features.h"
#include "htk/mlf.h"
#include "htk/scp.h"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

void fuzz_scp(const uint8_t* data, size_t size) {
  const bool prefix = size && (data[0] & 1);
  const auto r = mb::htk::parse_scp(reinterpret_cast<const char*>(data), size,
                                    {prefix ? "/p/" : "", "/scp"});
  const size_t n = r.lines.size();
  require(r.issues.size() == n && r.keys.size() == n && r.key_ends.size() == n &&
          r.path_index.size() == n && r.starts.size() == n && r.ends.size() == n);
  int64_t previous = 0;
  for (size_t i = 0; i < n; ++i) {
    require(r.key_ends[i] >= previous && size_t(r.key_ends[i]) <= r.key_text.size());
    previous = r.key_ends[i];
    require(r.path_index[i] >= -1 && r.path_index[i] < int64_t(r.paths.size()));
    require((r.issues[i] == 0) == (r.path_index[i] >= 0));
    require(r.starts[i] <= r.ends[i] && (r.starts[i] < 0) == (r.ends[i] < 0));
  }
}

void fuzz_mlf(const uint8_t* data, size_t size) {
  mb::htk::StateTable table;
  require(table.build({"s0", "s1", "sil", "a", "b"}) < 0);
  const bool with_states = size && (data[0] & 1);
  const auto r = mb::htk::parse_mlf(reinterpret_cast<const char*>(data), size,
                                    {with_states ? &table : nullptr, 4});
  const size_t n = r.keys.size();
  require(r.run_ends.size() == n && r.frames.size() == n && r.issues.size() == n);
  require(r.run_class.size() == r.run_length.size());
  int64_t first = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t frames = 0;
    for (int64_t k = first; k < r.run_ends[i]; ++k) {
      require(r.run_class[size_t(k)] >= 0 && r.run_class[size_t(k)] < 5 && r.run_length[size_t(k)] >= 0);
      frames += r.run_length[size_t(k)];
    }
    require(frames == r.frames[i]);
    require(r.issues[i] == 0 || r.run_ends[i] == first);
    first = r.run_ends[i];
  }
}

void fuzz_file(const uint8_t* data, size_t size) {
  const int fd = memfd_create("htk", 0);
  if (fd < 0) return;
  if (size && write(fd, data, size) != ssize_t(size)) {
    close(fd);
    return;
  }
  const auto h = mb::htk::read_header(fd, int64_t(size), true);
  const auto p = mb::htk::parse_header(data, int64_t(size));
  require(p.issue == h.issue || h.issue == int32_t(mb::htk::HeaderIssue::kBadCrc) ||
          p.issue == int32_t(mb::htk::HeaderIssue::kTooShort));
  if ((h.issue == 0 || h.issue == int32_t(mb::htk::HeaderIssue::kTruncated)) && h.available > 0) {
    require(h.data_start + h.available * h.sample_size <= int64_t(size));
    std::vector<float> out(size_t(h.available) * size_t(h.dim));
    mb::htk::FrameRange range{fd, 0, 0, h.available};
    require(mb::htk::read_frames<float>(&h, &range, 1, h.dim, out.data()).code == 0);
    std::vector<double> twice(out.size());
    require(mb::htk::read_frames<double>(&h, &range, 1, h.dim, twice.data()).code == 0);
    mb::htk::FrameRange past{fd, 0, 0, h.available + 1};
    require(mb::htk::read_frames<float>(&h, &past, 1, h.dim, out.data()).code == 3);
  }
  mb::htk::crc_update(0, data, int64_t(size / 2), size && (data[0] & 1));
  close(fd);
}

void fuzz_context(const uint8_t* data, size_t size) {
  if (size < 4) return;
  const int32_t left = data[0] % 4, right = data[1] % 4;
  const int64_t rows = 1 + data[2] % 16;
  std::vector<uint8_t> values(size_t(rows) * 2);
  std::vector<int64_t> bounds{0};
  for (size_t i = 3; i < size && bounds.back() < rows; ++i) {
    bounds.push_back(std::min<int64_t>(rows, bounds.back() + data[i] % 5));
  }
  if (bounds.back() != rows) bounds.push_back(rows);
  mb::htk::ContextSource source{values.data(), rows, bounds.data(), int64_t(bounds.size())};
  const int32_t which = 0;
  const int64_t start = data[3] % (rows + 2), length = size % (rows + 2);
  std::vector<uint8_t> out(size_t(std::max<int64_t>(length, 0)) * 2 * size_t(1 + left + right));
  const bool ok = mb::htk::context_gather(&source, 1, 2, &which, &start, &length, 1, left, right,
                                          out.data());
  require(ok == (start + length <= rows));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  ++data;
  --size;
  if (mode == 0) fuzz_scp(data, size);
  if (mode == 1) fuzz_mlf(data, size);
  if (mode == 2) fuzz_file(data, size);
  if (mode == 3) fuzz_context(data, size);
  return 0;
}
