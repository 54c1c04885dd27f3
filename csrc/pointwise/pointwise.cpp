// The CPU implementations and the autograd of every pointwise op (csrc/ops/*.h).
#include <ATen/EmptyTensor.h>
#include <torch/library.h>

#include <cctype>
#include <regex>

#include "pointwise/autograd.h"
#include "pointwise/op_list.h"  // the ops' headers, and UACCEL_FOR_EACH_POINTWISE_OP
#include "pointwise/pointwise.h"

namespace uaccel::pointwise {

Names make_names(const char* op) {
  const std::string name = op;
  std::string node = "Uaccel";  // silu -> UaccelSilu, layer_norm -> UaccelLayerNorm
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '_') {
      node += i == 0 || name[i - 1] == '_' ? static_cast<char>(std::toupper(name[i])) : name[i];
    }
  }
  return {
      name, name + "_", name + "_backward", "uaccel." + name, "uaccel." + name + "_", "uaccel." + name + "_backward",
      node};
}

namespace {

template <typename Op>
void add_message_templates(std::vector<std::pair<std::string, std::string>>& templates) {
  if constexpr (requires { Op::kMessages; }) {
    for (const auto& [key, text] : Op::kMessages) {
      templates.emplace_back("message." + std::string(Op::kName) + "." + key, text);
    }
  }
}

} // namespace

void define(torch::Library& m, const char* schema) {
  m.def(schema, {at::Tag::pointwise});
  const std::string text = schema;
  static const std::regex scalar_parameter(R"(Scalar (\w+)(=[^,)]+)?)");
  if (std::regex_search(text, scalar_parameter) && text.find("-> Tensor") != std::string::npos) {
    const auto name_end = text.find('(');
    const auto twin = text.substr(0, name_end) + ".tensor_scalars" + text.substr(name_end);
    m.def(torch::schema(std::regex_replace(twin, scalar_parameter, "Tensor $1").c_str()));
  }
}

#define UACCEL_ADD_MESSAGE_TEMPLATES(op) add_message_templates<ops::op::Op>(templates);
std::vector<std::pair<std::string, std::string>> message_templates() {
  std::vector<std::pair<std::string, std::string>> templates;
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_ADD_MESSAGE_TEMPLATES);
  return templates;
}

namespace {

template <typename Op>
void define_schemas(torch::Library& m) {
  static_assert(
      names_op(Op::kSchemas.forward, Op::kName, "") && names_op(Op::kSchemas.inplace, Op::kName, "_") &&
          names_op(Op::kSchemas.backward, Op::kName, "_backward"),
      "an op's kSchemas name the op (kName), its in-place form (kName_) and its backward (kName_backward)");
  define(m, Op::kSchemas.forward);
  define(m, Op::kSchemas.inplace);
  define(m, Op::kSchemas.backward);
}

// The CPU runs each op's kernels for the instruction set chosen at run time (pointwise_cpu_isa.cpp).
template <typename Op>
struct CpuStubs {
  template <typename... A>
  static void forward(at::TensorIteratorBase& iter, const A&... scalars) {
    forward_stub<Op>(iter, scalars...);
  }
  template <typename... A>
  static void backward(at::TensorIteratorBase& iter, const A&... scalars) {
    backward_stub<Op>(iter, scalars...);
  }
  static constexpr bool kDense = true;
  // A dense kernel's output, allocated as ATen's CPU kernels allocate theirs: no empty op through the
  // dispatcher on every call.
  static at::Tensor empty_dense(const at::Tensor& like, at::MemoryFormat format) {
    return at::detail::empty_cpu(like.sizes(), like.scalar_type(), /*pin_memory=*/false, format);
  }
  template <typename... A>
  static void forward_dense(const at::Tensor& out, const at::Tensor& self, const A&... scalars) {
    forward_dense_stub<Op>(out, self, scalars...);
  }
  template <typename... A>
  static void backward_dense(const at::Tensor& out, const at::Tensor& grad, const at::Tensor& saved, const A&... s) {
    backward_dense_stub<Op>(out, grad, saved, s...);
  }
};

template <typename Op>
void register_cpu(torch::Library& m) {
  Implementations<Op, CpuStubs<Op>, NoDeviceGuard>::register_in(m);
}

} // namespace

#define UACCEL_DEFINE_SCHEMAS(op) define_schemas<ops::op::Op>(m);
TORCH_LIBRARY_FRAGMENT(uaccel, m) {
  m.set_python_module(kFakesModule);
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_DEFINE_SCHEMAS);
}

#define UACCEL_REGISTER_CPU(op) register_cpu<ops::op::Op>(m);
TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_REGISTER_CPU);
}

#define UACCEL_REGISTER_AUTOGRAD(op) Autograd<ops::op::Op>::register_in(m);
TORCH_LIBRARY_IMPL(uaccel, Autograd, m) {
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_REGISTER_AUTOGRAD);
}

} // namespace uaccel::pointwise
