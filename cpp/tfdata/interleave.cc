#include "interleave.h"

#include <algorithm>

namespace mb::tfdata {

InterleaveOrder::InterleaveOrder(int64_t cycle, int64_t block)
    : cycle_(cycle < 1 ? 1 : cycle),
      block_(block < 1 ? 1 : block),
      slot_input_(size_t(cycle_), -1),
      slot_pos_(size_t(cycle_), 0) {}

bool InterleaveOrder::restore(int64_t ci, int64_t bi, int64_t taken, bool exhausted,
                              const int64_t* slot_input, const int64_t* slot_pos,
                              const int64_t* slot_len) {
  if (ci < 0 || ci >= cycle_ || bi < 0 || bi >= block_ || taken < 0) return false;
  std::vector<int64_t> lengths(size_t(taken), 0);
  std::vector<bool> seen(size_t(taken), false);
  int64_t open = 0;
  for (int64_t c = 0; c < cycle_; ++c) {
    const int64_t j = slot_input[c];
    if (j < 0) continue;
    if (j >= taken || seen[size_t(j)] || slot_len[c] < 0 || slot_pos[c] < 0 ||
        slot_pos[c] > slot_len[c]) {
      return false;
    }
    seen[size_t(j)] = true;
    lengths[size_t(j)] = slot_len[c];
    ++open;
  }
  lengths_ = std::move(lengths);
  for (int64_t c = 0; c < cycle_; ++c) {
    slot_input_[size_t(c)] = slot_input[c] < 0 ? -1 : slot_input[c];
    slot_pos_[size_t(c)] = slot_input[c] < 0 ? 0 : slot_pos[c];
  }
  ci_ = ci;
  bi_ = bi;
  taken_ = taken;
  open_ = open;
  exhausted_ = exhausted;
  inputs_ended_ = exhausted;
  emitted_ = 0;
  needs_input_ = done_ = false;
  return true;
}

void InterleaveOrder::add_input(int64_t length) {
  if (inputs_ended_) return;
  lengths_.push_back(length < 0 ? 0 : length);
  needs_input_ = false;
}

void InterleaveOrder::end_inputs() {
  inputs_ended_ = true;
  needs_input_ = false;
}

void InterleaveOrder::move_on() {
  bi_ = 0;
  ci_ = (ci_ + 1) % cycle_;
}

int64_t InterleaveOrder::advance(int64_t count, int64_t* inputs, int64_t* positions) {
  int64_t done = 0;
  while (done < count && !done_) {
    const size_t c = size_t(ci_);
    const int64_t j = slot_input_[c];
    if (j >= 0) {
      const int64_t left = lengths_[size_t(j)] - slot_pos_[c];
      if (left <= 0) {  // the slot's next read finds it exhausted: close it
        slot_input_[c] = -1;
        --open_;
        move_on();
        continue;
      }
      const int64_t k = std::min({left, block_ - bi_, count - done});
      for (int64_t i = 0; i < k; ++i) {
        if (inputs != nullptr) inputs[done + i] = j;
        if (positions != nullptr) positions[done + i] = slot_pos_[c] + i;
      }
      slot_pos_[c] += k;
      bi_ += k;
      done += k;
      if (bi_ == block_) move_on();
      continue;
    }
    if (!exhausted_) {
      if (taken_ < int64_t(lengths_.size())) {
        slot_input_[c] = taken_++;
        slot_pos_[c] = 0;
        ++open_;
      } else if (inputs_ended_) {
        exhausted_ = true;
      } else {
        needs_input_ = true;
        break;
      }
    } else if (open_ == 0) {
      done_ = true;
    } else {
      move_on();
    }
  }
  emitted_ += done;
  return done;
}

}  // namespace mb::tfdata
