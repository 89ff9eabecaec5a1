// Decoding of the common PNGs (8-bit gray, gray+alpha, RGB and RGBA, not
// interlaced) straight into a caller's array, many images per call, for the
// TFDS image features (src/minibatcher/tfds/image_decode.py). Anything else
// is reported as not handled and decoded by Pillow instead, so the pixels
// (and errors) are always Pillow's: the decoder only accepts files whose
// meaning is unambiguous (every chunk CRC right, the zlib stream ending
// exactly at the image's end, only chunks that carry no pixel meaning
// besides IHDR/IDAT/IEND).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mb::image {

enum class PngStatus : int8_t {
  kOk = 0,
  kNotHandled = 1,  // another kind of PNG, or a damaged one: decode it with Pillow
};

// Decodes images i in [0, n): image i is data[starts[i], ends[i]), written to
// out + i * height * width * channels (row-major, channels last) when it is a
// PNG of exactly that size and channel count. status[i] tells which were.
// max_pixels > 0: larger images are not handled (Pillow's bomb check).
void png_decode_many(const uint8_t* data, const int64_t* starts, const int64_t* ends, size_t n,
                     int64_t height, int64_t width, int64_t channels, int64_t max_pixels,
                     uint8_t* out, int8_t* status);

}  // namespace mb::image
