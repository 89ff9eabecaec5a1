// Binding of the text kernels (space-only tokenization, vocabulary lookup,
// padded id rows): validates arguments, releases the GIL around the loops.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../text/tokens.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T>
using In1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T>
nb::object owned(std::vector<T>&& values, size_t rows, size_t cols, bool two_d) {
  auto* heap = new std::vector<T>(std::move(values));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if (two_d) {
    size_t shape[2] = {rows, cols};
    return nb::ndarray<nb::numpy, T, nb::ndim<2>>(heap->data(), 2, shape, owner).cast();
  }
  size_t shape[1] = {heap->size()};
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), 1, shape, owner).cast();
}

// The lines; `check_all` validates every range (the kernels that read selected
// rows validate those rows themselves).
mb::text::Lines lines_of(const In1<uint8_t>& data, const In1<int64_t>& starts,
                         const In1<int64_t>& ends, bool check_all) {
  if (starts.shape(0) != ends.shape(0)) {
    throw nb::value_error("starts and ends should have the same length");
  }
  mb::text::Lines lines{data.data(), data.shape(0), starts.data(), ends.data(),
                        int64_t(starts.shape(0))};
  if (check_all && !mb::text::valid(lines)) {
    throw nb::value_error("a line range lies outside the text buffer (or ends before it starts)");
  }
  return lines;
}

void check_rows(const In1<int64_t>& rows, const In1<int32_t>& keep) {
  if (rows.shape(0) != keep.shape(0)) {
    throw nb::value_error("rows and keep should have the same length");
  }
}

nb::object count_tokens(In1<uint8_t> data, In1<int64_t> starts, In1<int64_t> ends) {
  const auto lines = lines_of(data, starts, ends, true);
  std::vector<int32_t> out(size_t(lines.count));
  {
    nb::gil_scoped_release release;
    mb::text::count_tokens(lines, out.data());
  }
  return owned(std::move(out), 0, 0, false);
}

nb::object encode(In1<uint8_t> data, In1<int64_t> starts, In1<int64_t> ends, In1<int64_t> rows,
                  In1<int32_t> keep, const mb::text::Vocab& vocab, int32_t unknown, int32_t sos,
                  int32_t eos, int32_t pad, int64_t width) {
  const auto lines = lines_of(data, starts, ends, false);
  check_rows(rows, keep);
  if (width < 0) throw nb::value_error("width should not be negative");
  const size_t n = rows.shape(0);
  std::vector<int32_t> out(n * size_t(width));
  mb::text::EncodeSpec spec{unknown, sos, eos, pad, width};
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::text::encode(lines, rows.data(), keep.data(), int64_t(n), vocab, spec, out.data());
  }
  if (!ok) {
    throw nb::value_error("a row index or its line range is out of range, a line has fewer "
                          "tokens than keep asks, or a row does not fit in width");
  }
  return owned(std::move(out), n, size_t(width), true);
}

nb::tuple encode_target(In1<uint8_t> data, In1<int64_t> starts, In1<int64_t> ends,
                        In1<int64_t> rows, In1<int32_t> keep, const mb::text::Vocab& vocab,
                        int32_t unknown, int32_t sos, int32_t eos, int32_t pad, int64_t width) {
  const auto lines = lines_of(data, starts, ends, false);
  check_rows(rows, keep);
  if (width < 1) throw nb::value_error("width should be at least 1");
  const size_t n = rows.shape(0);
  std::vector<int32_t> in(n * size_t(width)), out(n * size_t(width));
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::text::encode_target(lines, rows.data(), keep.data(), int64_t(n), vocab, unknown, sos,
                                 eos, pad, width, in.data(), out.data());
  }
  if (!ok) {
    throw nb::value_error("a row index or its line range is out of range, a line has fewer "
                          "tokens than keep asks, or a row does not fit in width");
  }
  return nb::make_tuple(owned(std::move(in), n, size_t(width), true),
                        owned(std::move(out), n, size_t(width), true));
}

nb::object encode_chars(In1<uint8_t> data, In1<int64_t> starts, In1<int64_t> ends,
                        In1<int64_t> rows, In1<int32_t> keep, int64_t width_words, int32_t pad) {
  const auto lines = lines_of(data, starts, ends, false);
  check_rows(rows, keep);
  if (width_words < 0) throw nb::value_error("width_words should not be negative");
  const size_t n = rows.shape(0), width = size_t(width_words) * mb::text::kCharMaxLen;
  std::vector<int32_t> out(n * width);
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = mb::text::encode_chars(lines, rows.data(), keep.data(), int64_t(n), width_words, pad,
                                out.data());
  }
  if (!ok) {
    throw nb::value_error("a row index or its line range is out of range, a line has fewer "
                          "tokens than keep asks, or a row does not fit in width_words");
  }
  return owned(std::move(out), n, width, true);
}

}  // namespace

void bind_text(nb::module_& m) {
  nb::class_<mb::text::Vocab>(m, "TextVocab")
      .def("__init__",
           [](mb::text::Vocab* self, const std::vector<nb::bytes>& words) {
             std::vector<std::string> w;
             w.reserve(words.size());
             for (const auto& b : words) w.emplace_back(b.c_str(), b.size());
             new (self) mb::text::Vocab(w);
           },
           "words"_a)
      .def_prop_ro("size", &mb::text::Vocab::size)
      .def("find",
           [](const mb::text::Vocab& self, nb::bytes word, int32_t missing) {
             return self.find(reinterpret_cast<const uint8_t*>(word.c_str()), word.size(),
                              missing);
           },
           "word"_a, "missing"_a);
  m.def("text_count_tokens", &count_tokens, "data"_a, "starts"_a, "ends"_a);
  m.def("text_encode", &encode, "data"_a, "starts"_a, "ends"_a, "rows"_a, "keep"_a, "vocab"_a,
        "unknown"_a, "sos"_a, "eos"_a, "pad"_a, "width"_a);
  m.def("text_encode_target", &encode_target, "data"_a, "starts"_a, "ends"_a, "rows"_a, "keep"_a,
        "vocab"_a, "unknown"_a, "sos"_a, "eos"_a, "pad"_a, "width"_a);
  m.def("text_encode_chars", &encode_chars, "data"_a, "starts"_a, "ends"_a, "rows"_a, "keep"_a,
        "width_words"_a, "pad"_a);
}
