// tf.data's buffer shuffle on positions: which input position a
// Dataset.shuffle emits at each step, for the iterator seeds (seed, seed2).
// Philox4x32-10 as TensorFlow's PhiloxRandom + SingleSampleAdapter (draw n is
// word n % 4 of block n / 4). See src/minibatcher/tfdata/shuffle.py, which
// holds the pure-Python reference of the same algorithm.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mb::tfdata {

// One Philox4x32-10 block.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key);

class ShuffleOrder {
 public:
  // `length` < 0: the input is not known to end.
  ShuffleOrder(uint64_t seed, uint64_t seed2, int64_t buffer_size, int64_t length);

  // Writes up to `count` emitted positions to `out`; returns how many (fewer
  // only at the end of the input).
  int64_t advance(int64_t count, int64_t* out);

  int64_t emitted() const { return emitted_; }
  int64_t end() const { return end_; }
  // Positions held in the buffer now, in buffer order.
  std::vector<int64_t> held() const {
    return std::vector<int64_t>(buf_.begin() + int64_t(head_), buf_.end());
  }

 private:
  uint32_t draw();

  std::array<uint32_t, 2> key_;
  uint64_t seed2_;
  uint64_t draws_ = 0;
  uint64_t block_index_ = ~uint64_t(0);
  std::array<uint32_t, 4> block_{};
  int64_t buffer_size_;
  int64_t length_;
  std::vector<int64_t> buf_;
  size_t head_ = 0;
  int64_t end_ = 0;
  int64_t emitted_ = 0;
};

}  // namespace mb::tfdata
