// Binding of the image kernels: many PNGs decoded into one caller's array
// (the GIL released), one status per image (0: decoded, 1: for Pillow).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#ifdef MB_HAVE_ZLIB
#include "../image/png.h"
#endif
#include "util.h"

namespace nb = nanobind;
using namespace nb::literals;

#ifdef MB_HAVE_ZLIB
namespace {

using Bytes = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Offsets = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Pixels = nb::ndarray<uint8_t, nb::ndim<4>, nb::c_contig, nb::device::cpu>;

nb::object png_decode_into(Bytes data, Offsets starts, Offsets ends, Pixels out,
                           int64_t max_pixels) {
  const size_t n = starts.shape(0);
  mb::bindings::check(ends.shape(0) == n && out.shape(0) == n,
                      "starts, ends and out should have one entry per image");
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = starts.data()[i], e = ends.data()[i];
    mb::bindings::check(a >= 0 && a <= e && uint64_t(e) <= data.shape(0),
                        "every image should lie inside data (0 <= start <= end <= size)");
  }
  std::vector<int8_t> status(n, 1);
  {
    nb::gil_scoped_release release;
    mb::image::png_decode_many(data.data(), starts.data(), ends.data(), n, int64_t(out.shape(1)),
                               int64_t(out.shape(2)), int64_t(out.shape(3)), max_pixels,
                               out.data(), status.data());
  }
  return mb::bindings::owned_numpy(std::move(status));
}

}  // namespace
#endif

// Without zlib (MB_HAVE_ZLIB unset) the module has no png_decode_into and
// minibatcher.tfds.image_decode decodes every image with Pillow.
void bind_image([[maybe_unused]] nb::module_& m) {
#ifdef MB_HAVE_ZLIB
  m.def("png_decode_into", &png_decode_into, "data"_a, "starts"_a, "ends"_a, "out"_a,
        "max_pixels"_a);
#endif
}
