#include "tfdata/shuffle.h"

#include <algorithm>

namespace mb::tfdata {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kM0) * c[0];
    const uint64_t p1 = uint64_t(kM1) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1],
         uint32_t(p0)};
    if (round < 9) {
      k[0] += kW0;
      k[1] += kW1;
    }
  }
  return c;
}

ShuffleOrder::ShuffleOrder(uint64_t seed, uint64_t seed2, int64_t buffer_size, int64_t length)
    : key_{uint32_t(seed), uint32_t(seed >> 32)},
      seed2_(seed2),
      buffer_size_(std::max<int64_t>(buffer_size, 1)),
      length_(length < 0 ? INT64_MAX : length) {}

uint32_t ShuffleOrder::draw() {
  const uint64_t block = draws_ / 4;
  if (block != block_index_) {
    block_ = philox4x32_10({uint32_t(block), uint32_t(block >> 32), uint32_t(seed2_),
                            uint32_t(seed2_ >> 32)},
                           key_);
    block_index_ = block;
  }
  return block_[draws_++ % 4];
}

int64_t ShuffleOrder::advance(int64_t count, int64_t* out) {
  int64_t done = 0;
  for (; done < count; ++done) {
    const int64_t held = int64_t(buf_.size() - head_);
    const int64_t want = std::min(length_, end_ + buffer_size_ - held);
    for (; end_ < want; ++end_) buf_.push_back(end_);
    const uint64_t size = buf_.size() - head_;
    if (size == 0) break;
    const size_t j = head_ + size_t(draw() % size);
    out[done] = buf_[j];
    buf_[j] = buf_[head_];
    ++head_;
    if (head_ > 4096 && head_ * 2 > buf_.size()) {
      buf_.erase(buf_.begin(), buf_.begin() + int64_t(head_));
      head_ = 0;
    }
  }
  emitted_ += done;
  return done;
}

}  // namespace mb::tfdata
