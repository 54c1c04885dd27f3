#pragma once
// Helpers for autograd kernels written the way PyTorch's generated VariableType code writes them:
// a torch::autograd::Node per op, with forward-mode formulas applied through _fw_grad/_set_fw_grad.
// Unlike torch::autograd::Function<T>, which functorch refuses by design
// (checkSupportsCppAutogradFunction), such kernels work under torch.func (grad, vjp, jacrev,
// jacfwd, jvp, hessian), forward-mode AD and compile, from Python and C++ alike.
//
// torch 2.13 moved nodes from std::shared_ptr to c10::intrusive_ptr, and 2.14 added node-creation
// hooks; everything version-dependent is in this file.
#include <ATen/TensorOperators.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/dynamo/compiled_autograd.h>
#include <torch/version.h>

#include <mutex>
#include <string>
#include <unordered_set>

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

// Compiled autograd runs a node's backward as a call it traces from Python: binds `fn`, a pure
// function of the incoming grads and packed arguments (saved tensors already swapped for the
// compiler's proxies), and calls it. `name` must be unique to the node type.
inline torch::autograd::variable_list call_compiled(
    torch::autograd::Node& node,
    torch::autograd::SwapSavedVariables& swap,
    const std::string& name,
    torch::autograd::functional_apply_t fn,
    const torch::autograd::variable_list& grads,
    const std::vector<c10::IValue>& args) {
  std::vector<at::TypePtr> schema;
  for (const auto& arg : args) {
    schema.emplace_back(arg.isTensor() ? at::TensorType::get() : arg.type());
  }
  const auto& compiler = torch::dynamo::autograd::getPyCompilerInterface();
  {
    // Bound once per process, as the generated nodes do: the Python side keeps one global namespace.
    static std::mutex mutex;
    static std::unordered_set<std::string> bound;
    const std::lock_guard<std::mutex> lock(mutex);
    if (bound.insert(name).second) {
      compiler->bind_function(swap.get_py_compiler(), name, std::move(fn), schema);
    }
  }
  const auto output_metadata =
      torch::dynamo::autograd::IValuePacker<std::vector<std::optional<torch::autograd::InputMetadata>>>::pack(
          torch::dynamo::autograd::get_input_metadata(node.next_edges()));
  return compiler->call_function(swap.get_py_compiler(), "apply_functional", name, grads, args, output_metadata);
}

// Which of the node's inputs need a gradient, as compiled autograd's packed arguments carry it.
inline c10::List<bool> needs_input_grad(torch::autograd::Node& node) {
  c10::List<bool> needs;
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    needs.push_back(node.task_should_compute_output(i));
  }
  return needs;
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
