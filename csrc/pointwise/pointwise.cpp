// The CPU implementations and the autograd of every pointwise op (csrc/ops/*.h).
#include <ATen/EmptyTensor.h>
#include <torch/library.h>

#include <cctype>
#include <regex>

#include "pointwise/autograd.h"
#include "pointwise/op_list.h"  // the ops' headers, and UACCEL_FOR_EACH_POINTWISE_OP
#include "pointwise/pointwise.h"

namespace uaccel::pointwise {

namespace {

// The names of the `count` tensors that lead `schema`.
std::vector<std::string> tensor_names(std::string_view schema, size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    names.emplace_back(schema_text::name_of(schema_text::argument(schema, i)));
  }
  return names;
}

} // namespace

Names make_names(const char* op, const Schemas& schemas) {
  const std::string name = op;
  std::string node = "Uaccel";  // silu -> UaccelSilu, layer_norm -> UaccelLayerNorm
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '_') {
      node += i == 0 || name[i - 1] == '_' ? static_cast<char>(std::toupper(name[i])) : name[i];
    }
  }
  const auto inputs = schema_text::leading_tensors(schemas.forward);
  return {
      name,
      name + "_",
      name + "_backward",
      "uaccel." + name,
      "uaccel." + name + "_",
      "uaccel." + name + "_backward",
      node,
      tensor_names(schemas.forward, inputs),
      tensor_names(schemas.backward, inputs + 1)};
}

namespace {

template <typename Op>
void add_op_facts(std::vector<std::pair<std::string, std::string>>& facts) {
  if constexpr (requires { Op::kMessages; }) {
    for (const auto& [key, text] : Op::kMessages) {
      facts.emplace_back("message." + std::string(Op::kName) + "." + key, text);
    }
  }
  if constexpr (requires { Op::kChoices; }) {
    const auto& op = names<Op>();
    for (const auto& [parameter, values] : Op::kChoices) {
      for (const auto* schema_name : {&op.forward, &op.inplace, &op.backward}) {
        if (schema_name != &op.inplace || kHasInplace<Op>) {
          facts.emplace_back("choices." + *schema_name + "." + parameter, values);
        }
      }
    }
  }
}

} // namespace

void define(torch::Library& m, const char* schema) {
  m.def(schema, {at::Tag::pointwise});
  const std::string text = schema;
  static const std::regex scalar_parameter(R"((Scalar|float) (\w+)(=[^,)]+)?)");
  if (std::regex_search(text, scalar_parameter) && text.find("-> ()") == std::string::npos) {
    const auto name_end = text.find('(');
    const auto twin = text.substr(0, name_end) + ".tensor_scalars" + text.substr(name_end);
    m.def(torch::schema(std::regex_replace(twin, scalar_parameter, "Tensor $2").c_str()));
  }
}

#define UACCEL_ADD_OP_FACTS(op) add_op_facts<ops::op::Op>(facts);
std::vector<std::pair<std::string, std::string>> op_facts() {
  std::vector<std::pair<std::string, std::string>> facts;
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_ADD_OP_FACTS);
  return facts;
}

namespace {

// What the build checks of an op's header: that its schemas and its C++ description agree.
template <typename Op>
consteval bool check_op() {
  namespace text = schema_text;
  constexpr size_t n = kInputs<Op>;
  constexpr auto forward = std::string_view(Op::kSchemas.forward);
  constexpr auto backward = std::string_view(Op::kSchemas.backward);
  static_assert(
      text::names_op(forward, Op::kName, "") && text::names_op(backward, Op::kName, "_backward"),
      "kSchemas.forward must name the op (kName) and kSchemas.backward kName_backward");
  static_assert(n >= 1 && n <= 3, "kSchemas.forward must start with 1 to 3 plain Tensor arguments");
  static_assert(text::returns_tensors(forward, 1), "kSchemas.forward must return one Tensor");
  static_assert(
      text::parameters_are<Params<Op>>(forward, n),
      "Op::Params must list the forward's parameters after its tensors, in order, as C++ types: Scalar "
      "at::Scalar, float double, int int64_t, bool bool, str std::string_view, T? std::optional<T's>");
  static_assert(
      text::leading_tensors(backward) == n + 1 && text::returns_tensors(backward, n),
      "kSchemas.backward must take grad_output and one saved tensor per input, and return one gradient per "
      "input: (Tensor grad_output, Tensor a, Tensor b) -> (Tensor, Tensor)");
  static_assert(
      text::parameters_are<BackwardParams<Op>>(backward, n + 1),
      "Op::BackwardParams (default: Params) must list the backward's parameters after its tensors, in order");
  if constexpr (kHasInplace<Op>) {
    constexpr auto inplace = std::string_view(Op::kSchemas.inplace);
    static_assert(text::names_op(inplace, Op::kName, "_"), "kSchemas.inplace must name kName_");
    static_assert(n == 1, "an in-place variant is for one-input ops only");
    static_assert(
        text::argument(inplace, 0).starts_with("Tensor(a!)") && text::returns(inplace) == "()",
        "kSchemas.inplace must take Tensor(a!) self and return ()");
    static_assert(text::parameters_are<Params<Op>>(inplace, 1), "kSchemas.inplace must take the forward's parameters");
  }
  return true;
}

template <typename Op>
void define_schemas(torch::Library& m) {
  static_assert(check_op<Op>());
  define(m, Op::kSchemas.forward);
  if constexpr (kHasInplace<Op>) {
    define(m, Op::kSchemas.inplace);
  }
  define(m, Op::kSchemas.backward);
}

} // namespace

namespace {

// The CPU runs each op's kernels for the instruction set chosen at run time (pointwise_cpu_isa.cpp).
template <typename Op>
struct CpuStubs {
  template <typename... A>
  static void forward(at::TensorIteratorBase& iter, const A&... params) {
    forward_stub<Op>(iter, params...);
  }
  template <typename... A>
  static void backward(at::TensorIteratorBase& iter, const A&... params) {
    backward_stub<Op>(iter, params...);
  }
  // A dense kernel's output, allocated as ATen's CPU kernels allocate theirs: no empty op through the
  // dispatcher on every call.
  static at::Tensor empty_dense(const at::Tensor& like, at::MemoryFormat format) {
    return at::detail::empty_cpu(like.sizes(), like.scalar_type(), /*pin_memory=*/false, format);
  }
  template <typename... A>
  static void forward_dense(const at::Tensor* const* out, const at::Tensor* const* in, const A&... params) {
    forward_dense_stub<Op>(out, in, params...);
  }
  template <typename... A>
  static void backward_dense(const at::Tensor* const* out, const at::Tensor* const* in, const A&... params) {
    backward_dense_stub<Op>(out, in, params...);
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
