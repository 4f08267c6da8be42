// The node of one recorded operator call: the op, its derivative, the
// arguments the formula may read (saved tensors with the version they had),
// and one next edge per tensor argument (a Tensor[] argument has one per
// element).
#pragma once

#include "internal.h"
#include "registry.h"

namespace axle::autograd {

// A tensor kept for backward, with its storage version when saved: reading it
// after an in-place change, or after the graph was freed, is an AutogradError.
// An output is kept without its autograd state (no cycle through its own node)
// and gets its history back on reading when grad mode is on (create_graph).
class SavedTensor {
 public:
  void save(const Tensor& t, bool is_output, const std::shared_ptr<Node>& node, uint32_t output_nr);
  bool defined() const { return data_.defined() || released_; }
  Tensor unpack(const Node& owner) const;
  void release() {
    if (data_.defined()) released_ = true;
    data_ = Tensor();
    view_history_ = nullptr;
  }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  bool had_history_ = false;
  std::weak_ptr<Node> grad_fn_;
  uint32_t output_nr_ = 0;
  // A saved view input: its history, kept apart from its state (which holds
  // its base: a base whose history holds this node would cycle through it).
  std::shared_ptr<Node> view_history_;
};

class OpNode : public Node {
 public:
  OpNode(const OpEntry& op, const Derivative& d) : op_(op), derivative_(d) {}
  std::string name() const override { return node_name(op_.name); }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  void release() override;

  // One per tensor argument (a Tensor[] argument: one per element), in the
  // order of the next edges: what the formula may ask about it.
  struct Slot {
    IntList sizes;
    DType dtype = kFloat32;
    Device device;
    bool defined = false;
    SavedTensor saved;  // only if the derivative saves the argument
  };

  const OpEntry& op_;
  const Derivative& derivative_;
  Stack args_;                              // non-tensor arguments as normalized by the shape function
  SmallVector<int, 6> first_slot_;          // per argument: its first slot, -1 for non-tensors
  std::vector<Slot> slots_;                 // per slot
  std::vector<SavedTensor> saved_outputs_;  // per output
};

}  // namespace axle::autograd
