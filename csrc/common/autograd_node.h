#pragma once
// Helpers for autograd kernels written the way PyTorch's generated VariableType code writes them:
// a torch::autograd::Node per op, with forward-mode formulas applied through _fw_grad/_set_fw_grad.
// Unlike torch::autograd::Function<T>, which functorch refuses by design
// (checkSupportsCppAutogradFunction), such kernels work under torch.func (grad, vjp, jacrev,
// jacfwd, jvp, hessian), forward-mode AD and compile, from Python and C++ alike.
//
// torch 2.13 moved nodes from std::shared_ptr to c10::intrusive_ptr, and 2.14 added node-creation
// hooks; everything version-dependent is in this file.
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/autograd/function.h>
#include <torch/version.h>

#define UACCEL_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace uaccel::autograd {

#if UACCEL_TORCH_AT_LEAST(2, 13)
template <typename T>
using NodePtr = c10::intrusive_ptr<T>;

template <typename T>
NodePtr<T> make_node() {
  return c10::make_intrusive<T>();
}

// What SavedVariable::unpack wants for outputs the node saved (they would otherwise own the node).
inline NodePtr<torch::autograd::Node> owner(torch::autograd::Node& node) {
  return node.getptr();
}
#else
template <typename T>
using NodePtr = std::shared_ptr<T>;

template <typename T>
NodePtr<T> make_node() {
  return std::shared_ptr<T>(new T(), torch::autograd::deleteNode);
}

inline NodePtr<torch::autograd::Node> owner(torch::autograd::Node& node) {
  return node.shared_from_this();
}
#endif

// Tells torch.autograd.graph's node-creation hooks about a node once it is complete (attached to
// its outputs, saved variables stored), as the generated code does.
inline void node_created([[maybe_unused]] const NodePtr<torch::autograd::Node>& node) {
#if UACCEL_TORCH_AT_LEAST(2, 14)
  torch::autograd::fire_node_creation_hooks(node);
#endif
}

// After an in-place op: makes `node` the history of `self` and returns the node actually attached
// (a CopySlices when `self` is a view), the one node-creation hooks must see.
inline NodePtr<torch::autograd::Node> rebase_history(const at::Tensor& self, NodePtr<torch::autograd::Node> node) {
#if UACCEL_TORCH_AT_LEAST(2, 14)
  return torch::autograd::rebase_history(self, std::move(node));
#else
  torch::autograd::rebase_history(self, node);
  return node;
#endif
}

// The forward-mode tangent of `t` at level 0 (undefined when it has none), and its primal.
inline at::Tensor tangent(const at::Tensor& t) {
  return t.defined() ? t._fw_grad(/*level=*/0) : at::Tensor();
}

inline at::Tensor primal(const at::Tensor& t) {
  return t._fw_primal(/*level=*/0);
}

// a + b where either may be undefined (a missing tangent is zero).
inline at::Tensor add_tangents(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined()) {
    return b;
  }
  return b.defined() ? a + b : a;
}

} // namespace uaccel::autograd
