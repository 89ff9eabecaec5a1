// nanobind binding of the HTK/MLF core (cpp/htk): argument checks, the GIL
// released around every kernel, results handed to NumPy without copies.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../common/buffer.h"
#include "../htk/features.h"
#include "../htk/mlf.h"
#include "../htk/scp.h"
#include "../htk/text.h"
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;
using mb::bindings::owned_numpy;

namespace {

template <typename T>
using Vec1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using AnyArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

void check(bool ok, const std::string& message) {
  if (!ok) throw nb::value_error(message.c_str());
}

nb::bytes bytes_of(const std::string& s) { return nb::bytes(s.data(), s.size()); }

nb::dict parse_scp(Vec1<uint8_t> data, const std::string& prefix, const std::string& scp_dir) {
  mb::htk::ScpResult r;
  {
    nb::gil_scoped_release release;
    r = mb::htk::parse_scp(reinterpret_cast<const char*>(data.data()), data.shape(0),
                           {prefix, scp_dir});
  }
  nb::dict out;
  out["lines"] = owned_numpy(std::move(r.lines));
  out["offsets"] = owned_numpy(std::move(r.offsets));
  out["issues"] = owned_numpy(std::move(r.issues));
  out["keys"] = owned_numpy(std::move(r.keys));
  out["key_ends"] = owned_numpy(std::move(r.key_ends));
  out["key_text"] = bytes_of(r.key_text);
  out["path_index"] = owned_numpy(std::move(r.path_index));
  nb::list paths;
  for (const auto& p : r.paths) paths.append(bytes_of(p));
  out["paths"] = paths;
  out["starts"] = owned_numpy(std::move(r.starts));
  out["ends"] = owned_numpy(std::move(r.ends));
  out["blank_lines"] = r.blank_lines;
  return out;
}

nb::dict parse_mlf(Vec1<uint8_t> data, std::optional<std::vector<std::string>> states,
                   int64_t label_dim) {
  mb::htk::StateTable table;
  if (states) {
    const int64_t duplicate = table.build(*states);
    check(duplicate < 0, "the state list repeats the name at index " + std::to_string(duplicate));
  }
  mb::htk::MlfResult r;
  {
    nb::gil_scoped_release release;
    mb::htk::MlfOptions options{states ? &table : nullptr, label_dim};
    r = mb::htk::parse_mlf(reinterpret_cast<const char*>(data.data()), data.shape(0), options);
  }
  nb::dict out;
  out["header_ok"] = r.header_ok;
  out["lines"] = owned_numpy(std::move(r.lines));
  out["offsets"] = owned_numpy(std::move(r.offsets));
  out["issues"] = owned_numpy(std::move(r.issues));
  out["issue_lines"] = owned_numpy(std::move(r.issue_lines));
  out["issue_offsets"] = owned_numpy(std::move(r.issue_offsets));
  out["issue_a"] = owned_numpy(std::move(r.issue_a));
  out["issue_b"] = owned_numpy(std::move(r.issue_b));
  out["keys"] = owned_numpy(std::move(r.keys));
  out["key_ends"] = owned_numpy(std::move(r.key_ends));
  out["key_text"] = bytes_of(r.key_text);
  out["run_ends"] = owned_numpy(std::move(r.run_ends));
  out["frames"] = owned_numpy(std::move(r.frames));
  out["run_class"] = owned_numpy(std::move(r.run_class));
  out["run_length"] = owned_numpy(std::move(r.run_length));
  out["total_lines"] = r.total_lines;
  return out;
}

nb::dict read_headers(Vec1<int64_t> fds, Vec1<int64_t> sizes, bool verify_crc) {
  check(fds.shape(0) == sizes.shape(0), "fds and sizes should have the same length");
  const size_t n = fds.shape(0);
  std::vector<mb::htk::Header> headers(n);
  {
    nb::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) {
      headers[i] = mb::htk::read_header(int(fds.data()[i]), sizes.data()[i], verify_crc);
    }
  }
  std::vector<int32_t> issue(n), period(n), sample_size(n), kind(n), dim(n);
  std::vector<int64_t> samples(n), data_start(n), available(n);
  std::vector<uint8_t> swap(n);
  std::vector<int32_t> crc_stored(n), crc_computed(n);
  nb::list a, b, guid;
  for (size_t i = 0; i < n; ++i) {
    const auto& h = headers[i];
    issue[i] = h.issue;
    period[i] = h.period;
    sample_size[i] = h.sample_size;
    kind[i] = h.kind;
    dim[i] = h.dim;
    samples[i] = h.samples;
    data_start[i] = h.data_start;
    available[i] = h.available;
    swap[i] = h.swap;
    crc_stored[i] = h.crc_stored;
    crc_computed[i] = h.crc_computed;
    a.append(owned_numpy(std::vector<float>(h.a)));
    b.append(owned_numpy(std::vector<float>(h.b)));
    guid.append(nb::bytes(reinterpret_cast<const char*>(h.guid), 16));
  }
  nb::dict out;
  out["issue"] = owned_numpy(std::move(issue));
  out["period"] = owned_numpy(std::move(period));
  out["sample_size"] = owned_numpy(std::move(sample_size));
  out["kind"] = owned_numpy(std::move(kind));
  out["dim"] = owned_numpy(std::move(dim));
  out["samples"] = owned_numpy(std::move(samples));
  out["data_start"] = owned_numpy(std::move(data_start));
  out["available"] = owned_numpy(std::move(available));
  out["swap"] = owned_numpy(std::move(swap));
  out["crc_stored"] = owned_numpy(std::move(crc_stored));
  out["crc_computed"] = owned_numpy(std::move(crc_computed));
  out["a"] = a;
  out["b"] = b;
  out["guid"] = guid;
  return out;
}

struct HeaderArrays {
  Vec1<int64_t> data_start, available;
  Vec1<int32_t> sample_size, kind;
  Vec1<uint8_t> swap;
};

std::vector<mb::htk::Header> headers_of(const HeaderArrays& h, const std::vector<Vec1<float>>& a,
                                        const std::vector<Vec1<float>>& b, int32_t dim) {
  const size_t n = h.data_start.shape(0);
  check(h.available.shape(0) == n && h.sample_size.shape(0) == n && h.kind.shape(0) == n &&
            h.swap.shape(0) == n && a.size() == n && b.size() == n,
        "the header arrays should have the same length");
  std::vector<mb::htk::Header> out(n);
  for (size_t i = 0; i < n; ++i) {
    auto& x = out[i];
    x.data_start = h.data_start.data()[i];
    x.available = h.available.data()[i];
    x.sample_size = h.sample_size.data()[i];
    x.kind = h.kind.data()[i];
    x.swap = h.swap.data()[i] != 0;
    const bool compressed = (x.kind & mb::htk::kCompressed) != 0;
    check(x.sample_size == dim * (compressed ? 2 : 4), "a header's sample size does not match dim");
    check(x.data_start >= 12 && x.available >= 0, "a header has an invalid data start");
    if (compressed) {
      check(a[i].shape(0) == size_t(dim) && b[i].shape(0) == size_t(dim),
            "a compressed header needs A and B vectors of dim values");
      x.a.assign(a[i].data(), a[i].data() + dim);
      x.b.assign(b[i].data(), b[i].data() + dim);
    }
    x.dim = dim;
  }
  return out;
}

using OutArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

// Fills `out` (float32 or float64, rows x dim, allocated by the caller: NumPy's
// heap reuses blocks, where fresh mappings pay a page fault per page).
nb::object read_frames(Vec1<int64_t> fds, Vec1<int64_t> header_of, Vec1<int64_t> first,
                       Vec1<int64_t> count, Vec1<int64_t> data_start, Vec1<int64_t> available,
                       Vec1<int32_t> sample_size, Vec1<int32_t> kind, Vec1<uint8_t> swap,
                       const std::vector<Vec1<float>>& a, const std::vector<Vec1<float>>& b,
                       int32_t dim, bool is_double, OutArray out) {
  check(dim > 0, "dim should be positive");
  const auto headers = headers_of({data_start, available, sample_size, kind, swap}, a, b, dim);
  const size_t n = fds.shape(0);
  check(header_of.shape(0) == n && first.shape(0) == n && count.shape(0) == n,
        "fds, header_of, first and count should have the same length");
  std::vector<mb::htk::FrameRange> ranges(n);
  int64_t rows = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t h = header_of.data()[i];
    check(h >= 0 && size_t(h) < headers.size(), "a range names an unknown header");
    check(count.data()[i] >= 0, "frame counts should be non-negative");
    ranges[i] = {int(fds.data()[i]), h, first.data()[i], count.data()[i]};
    rows += count.data()[i];
  }
  const size_t value_bytes = is_double ? 8 : 4;
  check(out.nbytes() == size_t(rows) * size_t(dim) * value_bytes,
        "out should hold rows x dim values of the requested precision");
  mb::htk::ReadError err;
  {
    nb::gil_scoped_release release;
    err = is_double ? mb::htk::read_frames<double>(headers.data(), ranges.data(), n, dim,
                                                   static_cast<double*>(out.data()))
                    : mb::htk::read_frames<float>(headers.data(), ranges.data(), n, dim,
                                                  static_cast<float*>(out.data()));
  }
  if (err.code == 0) return nb::none();
  nb::dict failure;
  failure["range"] = err.range;
  failure["code"] = err.code;
  failure["errno"] = err.error;
  return failure;
}

// Fills `out` (sum(length) rows of row_bytes * (1 + left + right) bytes).
void context_gather(const std::vector<AnyArray>& values, const std::vector<Vec1<int64_t>>& bounds,
                    size_t row_bytes, Vec1<int32_t> source, Vec1<int64_t> start,
                    Vec1<int64_t> length, int32_t left, int32_t right, OutArray out) {
  check(values.size() == bounds.size(), "values and bounds should list the same sources");
  check(row_bytes > 0 && left >= 0 && right >= 0, "row_bytes, left and right are invalid");
  const size_t pieces = source.shape(0);
  check(start.shape(0) == pieces && length.shape(0) == pieces,
        "source, start and length should have the same length");
  std::vector<mb::htk::ContextSource> sources;
  for (size_t i = 0; i < values.size(); ++i) {
    check(values[i].nbytes() % row_bytes == 0, "a source's size is not a multiple of row_bytes");
    sources.push_back({static_cast<const uint8_t*>(values[i].data()),
                       int64_t(values[i].nbytes() / row_bytes), bounds[i].data(),
                       int64_t(bounds[i].shape(0))});
  }
  uint64_t rows = 0;
  for (size_t p = 0; p < pieces; ++p) rows += uint64_t(std::max<int64_t>(0, length.data()[p]));
  const size_t width = row_bytes * size_t(1 + left + right);
  check(out.nbytes() == size_t(rows) * width, "out should hold every expanded row");
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::htk::context_gather(sources.data(), sources.size(), row_bytes, source.data(),
                                 start.data(), length.data(), pieces, left, right,
                                 static_cast<uint8_t*>(out.data()));
  }
  check(ok, "a context gather range lies outside its source, or its bounds are invalid");
}

nb::object key_hashes(Vec1<uint8_t> text, Vec1<int64_t> ends) {
  const size_t n = ends.shape(0);
  std::vector<uint64_t> out(n);
  int64_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t end = ends.data()[i];
    check(end >= begin && size_t(end) <= text.shape(0), "key ends should increase within the text");
    out[i] = mb::htk::key_hash(
        std::string_view(reinterpret_cast<const char*>(text.data()) + begin, size_t(end - begin)));
    begin = end;
  }
  return owned_numpy(std::move(out));
}

nb::int_ crc_of(Vec1<uint8_t> data, bool swap) {
  check(data.shape(0) % 2 == 0, "the checksum covers whole 16-bit words");
  return nb::int_(mb::htk::crc_update(0, data.data(), int64_t(data.shape(0) / 2), swap));
}

}  // namespace

void bind_htk(nb::module_& m) {
  m.def("htk_parse_scp", &parse_scp, "data"_a, "prefix"_a, "scp_dir"_a);
  m.def("htk_parse_mlf", &parse_mlf, "data"_a, "states"_a.none(), "label_dim"_a);
  m.def("htk_read_headers", &read_headers, "fds"_a, "sizes"_a, "verify_crc"_a);
  m.def("htk_read_frames", &read_frames, "fds"_a, "header_of"_a, "first"_a, "count"_a,
        "data_start"_a, "available"_a, "sample_size"_a, "kind"_a, "swap"_a, "a"_a, "b"_a, "dim"_a,
        "is_double"_a, "out"_a);
  m.def("context_gather", &context_gather, "values"_a, "bounds"_a, "row_bytes"_a, "source"_a,
        "start"_a, "length"_a, "left"_a, "right"_a, "out"_a);
  m.def("htk_key_hashes", &key_hashes, "text"_a, "ends"_a);
  m.def("htk_crc", &crc_of, "data"_a, "swap"_a);
}
