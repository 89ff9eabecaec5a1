// tf.data's interleave cursor on positions: which (input, position inside
// that input) Dataset.interleave(cycle_length, block_length) emits at each
// step, for inputs whose lengths are known. It mirrors the element iterator
// of src/minibatcher/tfdata/interleave.py move for move (the cursor fields
// ci, bi, taken, exhausted and the open slots are the same after every
// element), so a checkpoint of either describes the same place.
//
// Lengths are supplied lazily, in input order (opening an input may be
// costly): advance() stops early when the cursor must open an input whose
// length it does not know yet (needs_input()); the caller then calls
// add_input() or end_inputs() and advances again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mb::tfdata {

class InterleaveOrder {
 public:
  InterleaveOrder(int64_t cycle, int64_t block);

  // Continues from a cursor (as the element iterator holds it): slot c holds
  // input slot_input[c] (-1: empty) at position slot_pos[c] of its
  // slot_len[c] elements; inputs [0, taken) were opened. Returns false (and
  // changes nothing) when the cursor is inconsistent.
  bool restore(int64_t ci, int64_t bi, int64_t taken, bool exhausted, const int64_t* slot_input,
               const int64_t* slot_pos, const int64_t* slot_len);

  void add_input(int64_t length);  // the length of input number known_inputs()
  void end_inputs();               // there are no more inputs

  // Emits up to `count` elements: input ordinal and position inside it (either
  // output may be null: skipping). Returns how many; fewer when the cursor
  // needs an input's length or the interleave has ended.
  int64_t advance(int64_t count, int64_t* inputs, int64_t* positions);

  int64_t cycle() const { return cycle_; }
  bool needs_input() const { return needs_input_; }
  bool done() const { return done_; }
  int64_t known_inputs() const { return int64_t(lengths_.size()); }
  int64_t emitted() const { return emitted_; }
  int64_t ci() const { return ci_; }
  int64_t bi() const { return bi_; }
  int64_t taken() const { return taken_; }
  bool exhausted() const { return exhausted_; }
  // The input ordinal open in each slot (-1: empty) and its position.
  const std::vector<int64_t>& slot_inputs() const { return slot_input_; }
  const std::vector<int64_t>& slot_positions() const { return slot_pos_; }

 private:
  void move_on();

  int64_t cycle_, block_;
  std::vector<int64_t> lengths_;
  bool inputs_ended_ = false;
  std::vector<int64_t> slot_input_, slot_pos_;
  int64_t ci_ = 0, bi_ = 0, taken_ = 0, open_ = 0, emitted_ = 0;
  bool exhausted_ = false, needs_input_ = false, done_ = false;
};

}  // namespace mb::tfdata
