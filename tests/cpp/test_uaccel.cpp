// The C++ API from a LibTorch program: ops through the dispatcher (with autograd), the allocator
// hook, async copy and host registration, on the CPU. Every pointwise op, found in the dispatcher (no
// list here to keep), is checked from C++ first; then some ops' own behaviour through the generated API.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdint>
#include <string>
#include <vector>

#include <uaccel/uaccel.h>

namespace {

// The forward ops of the library (tagged pointwise; not in place, not a backward).
std::vector<c10::OperatorHandle> pointwise_forward_ops() {
  std::vector<c10::OperatorHandle> ops;
  for (const auto& name : c10::Dispatcher::singleton().getAllOpNames()) {
    const auto op = c10::Dispatcher::singleton().findOp(name);
    const std::string& qualified = name.name;
    if (name.overload_name.empty() && qualified.rfind("uaccel::", 0) == 0 && op && op->hasTag(at::Tag::pointwise) &&
        qualified.back() != '_' && qualified.find("_backward") == std::string::npos) {
      ops.push_back(*op);
    }
  }
  return ops;
}

// op's output for these tensor inputs, its other arguments at their schema defaults.
at::Tensor call_with_defaults(const c10::OperatorHandle& op, const std::vector<at::Tensor>& tensors) {
  torch::jit::Stack stack(tensors.begin(), tensors.end());
  const auto& arguments = op.schema().arguments();
  for (size_t i = tensors.size(); i < arguments.size(); ++i) {
    stack.push_back(arguments[i].default_value().value());
  }
  op.callBoxed(stack);
  return stack.back().toTensor();
}

size_t tensor_inputs(const c10::OperatorHandle& op) {
  size_t count = 0;
  for (const auto& argument : op.schema().arguments()) {
    count += argument.type()->kind() == c10::TypeKind::TensorType;
  }
  return count;
}

// Inputs away from 0 (where ELU's derivative has its kink), in double.
std::vector<at::Tensor> inputs_for(const c10::OperatorHandle& op) {
  std::vector<at::Tensor> inputs;
  for (size_t i = 0; i < tensor_inputs(op); ++i) {
    const auto x = torch::randn({3, 5}, at::kDouble);
    inputs.push_back(x + 0.1 * x.sign());
  }
  return inputs;
}

TEST(EveryPointwiseOp, FloatMatchesDoubleAndTheGradientMatchesFiniteDifferences) {
  torch::manual_seed(0);
  const auto ops = pointwise_forward_ops();
  ASSERT_GE(ops.size(), 4u);  // elu, gelu, silu, the gated ops at least
  for (const auto& op : ops) {
    const auto name = op.schema().name();
    const auto inputs = inputs_for(op);
    std::vector<at::Tensor> as_float;
    for (const auto& x : inputs) {
      as_float.push_back(x.to(at::kFloat));
    }
    const auto exact = call_with_defaults(op, inputs);
    EXPECT_TRUE(torch::allclose(call_with_defaults(op, as_float).to(at::kDouble), exact, 1e-5, 1e-6)) << name;

    std::vector<at::Tensor> leaves;
    for (const auto& x : inputs) {
      leaves.push_back(x.clone().requires_grad_());
    }
    const auto gradients = torch::autograd::grad({call_with_defaults(op, leaves).sum()}, leaves);
    const double step = 1e-6;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto shifted = inputs;
      shifted[i] = inputs[i] + step;
      const auto up = call_with_defaults(op, shifted);
      shifted[i] = inputs[i] - step;
      const auto down = call_with_defaults(op, shifted);
      // Each element of input i moves only its own output element (broadcast-free shapes).
      EXPECT_TRUE(torch::allclose(gradients[i], (up - down) / (2 * step), 1e-5, 1e-6)) << name << " input " << i;
    }
  }
}

TEST(Elu, MatchesAtenForEveryAlphaAndDtype) {
  for (const auto dtype : {at::kFloat, at::kDouble, at::kBFloat16}) {
    for (const double alpha : {0.1, 1.0, 0.0, -0.5, 2.5}) {
      const auto x = torch::randn({4099}).mul(3).to(dtype);
      const auto expected = at::elu(x.to(at::kDouble), alpha).to(dtype);
      EXPECT_TRUE(torch::allclose(uaccel::elu(x, alpha).to(at::kDouble), expected.to(at::kDouble), 1e-2, 1e-5))
          << "dtype " << dtype << " alpha " << alpha;
    }
  }
}

TEST(Elu, DefaultsAreAtensAndTheSchemas) {
  // Within 2 ulp of ATen's own float32 kernel (neither is exact: both within ~1 ulp of float64).
  const auto x = torch::randn({257}).mul(3);
  EXPECT_TRUE(torch::allclose(uaccel::elu(x), at::elu(x), 2.5e-7, 0));
  auto y = x.clone();
  EXPECT_TRUE(torch::allclose(uaccel::elu_(y), at::elu(x), 2.5e-7, 0));
  const auto schema = c10::Dispatcher::singleton().findSchemaOrThrow("uaccel::elu", "").schema();
  EXPECT_EQ(schema.arguments().at(1).default_value()->toScalar().to<double>(), uaccel::kEluDefaultAlpha);
}

TEST(Elu, GradientsThroughTorchAutograd) {
  for (const double alpha : {1.0, 0.3, -0.5}) {
    auto x = torch::randn({512}, torch::kDouble).requires_grad_(true);
    auto ours = torch::autograd::grad({uaccel::elu(x, alpha).sum()}, {x}, {}, true, true)[0];
    auto second = torch::autograd::grad({ours.sum()}, {x})[0];
    auto y = x.detach().requires_grad_(true);
    auto expected = torch::autograd::grad({at::elu(y, alpha).sum()}, {y}, {}, true, true)[0];
    auto expected_second = torch::autograd::grad({expected.sum()}, {y})[0];
    EXPECT_TRUE(torch::allclose(ours, expected));
    EXPECT_TRUE(torch::allclose(second, expected_second));
  }
}

TEST(Elu, ForwardModeTangentsFromCpp) {
  // Dual tensors: the tangent of elu (SELU parameters here) is elu_backward(tangent, x), as ATen's.
  const auto x = torch::randn({257}, torch::kDouble);
  const auto tangent = torch::randn({257}, torch::kDouble);
  const double alpha = 1.6732632423543772, scale = 1.0507009873554805;
  const uint64_t level = torch::autograd::forward_ad::enter_dual_level();
  const auto ours = uaccel::elu(at::_make_dual(x, tangent, level), alpha, scale)._fw_grad(level);
  const auto expected = at::elu(at::_make_dual(x, tangent, level), alpha, scale)._fw_grad(level);
  torch::autograd::forward_ad::exit_dual_level(level);
  ASSERT_TRUE(ours.defined());
  EXPECT_TRUE(torch::allclose(ours, expected));
}

TEST(Elu, InPlaceWithAutogradMatchesAten) {
  auto x = torch::randn({300}, torch::kDouble).requires_grad_(true);
  auto h = x * 2;
  uaccel::elu_(h, 0.7);
  auto ours = torch::autograd::grad({h.sum()}, {x})[0];
  auto y = x.detach().requires_grad_(true);
  auto g = y * 2;
  at::elu_(g, 0.7);
  auto expected = torch::autograd::grad({g.sum()}, {y})[0];
  EXPECT_TRUE(torch::allclose(ours, expected));
}

TEST(Elu, BadInputNamesTheOp) {
  try {
    uaccel::elu(torch::ones({3}, torch::kInt));
    FAIL() << "expected an error";
  } catch (const c10::Error& error) {
    EXPECT_NE(
        std::string(error.what()).find("uaccel.elu: expected self to be a floating-point tensor"), std::string::npos);
  }
}

TEST(Silu, ValuesGradientsAndTangentsMatchAten) {
  for (const auto dtype : {at::kFloat, at::kDouble, at::kBFloat16}) {
    const auto x = torch::randn({4099}).mul(4).to(dtype);
    EXPECT_TRUE(torch::allclose(uaccel::silu(x).to(at::kDouble), at::silu(x.to(at::kDouble)), 1e-2, 1e-5));
  }
  auto x = torch::randn({512}, torch::kDouble).requires_grad_(true);
  auto ours = torch::autograd::grad({uaccel::silu(x).sum()}, {x}, {}, true, true)[0];
  auto second = torch::autograd::grad({ours.sum()}, {x})[0];
  auto y = x.detach().requires_grad_(true);
  auto expected = torch::autograd::grad({at::silu(y).sum()}, {y}, {}, true, true)[0];
  auto expected_second = torch::autograd::grad({expected.sum()}, {y})[0];
  EXPECT_TRUE(torch::allclose(ours, expected));
  EXPECT_TRUE(torch::allclose(second, expected_second));
  // In place with autograd: the gradient needs the input, which the op keeps a copy of.
  auto h = x * 2;
  uaccel::silu_(h);
  auto g = y * 2;
  at::silu_(g);
  EXPECT_TRUE(torch::allclose(torch::autograd::grad({h.sum()}, {x})[0], torch::autograd::grad({g.sum()}, {y})[0]));
  const auto tangent = torch::randn({512}, torch::kDouble);
  const uint64_t level = torch::autograd::forward_ad::enter_dual_level();
  const auto ours_t = uaccel::silu(at::_make_dual(x.detach(), tangent, level))._fw_grad(level);
  const auto expected_t = at::silu(at::_make_dual(x.detach(), tangent, level))._fw_grad(level);
  torch::autograd::forward_ad::exit_dual_level(level);
  EXPECT_TRUE(torch::allclose(ours_t, expected_t));
}

// The generated API (uaccel/pointwise_ops.h): the schemas' types and defaults.
TEST(Gelu, BothApproximationsAndTheirGradientsMatchAten) {
  const auto x = torch::randn({513}, torch::dtype(torch::kDouble).requires_grad(true));
  for (const char* approximate : {"none", "tanh"}) {
    const auto y = approximate == std::string("none") ? uaccel::gelu(x) : uaccel::gelu(x, approximate);
    EXPECT_TRUE(torch::allclose(y, at::gelu(x, approximate), 1e-12, 1e-12)) << approximate;
    const auto ours = torch::autograd::grad({y.sum()}, {x}).front();
    const auto theirs = torch::autograd::grad({at::gelu(x, approximate).sum()}, {x}).front();
    EXPECT_TRUE(torch::allclose(ours, theirs, 1e-12, 1e-12)) << approximate;
  }
  EXPECT_THROW(uaccel::gelu(x, "fast"), c10::Error);
}

TEST(SiluMul, BothGradientsFromTheBackwardOp) {
  const auto gate = torch::randn({4, 1}, torch::kDouble), up = torch::randn({5}, torch::kDouble);
  const auto grad = torch::randn({4, 5}, torch::kDouble);
  EXPECT_TRUE(torch::allclose(uaccel::silu_mul(gate, up), at::silu(gate) * up));
  const auto [d_gate, d_up] = uaccel::silu_mul_backward(grad, gate, up);
  EXPECT_TRUE(
      torch::allclose(d_gate, (grad * up * at::sigmoid(gate) * (1 + gate * (1 - at::sigmoid(gate)))).sum(1, true)));
  EXPECT_TRUE(torch::allclose(d_up, (grad * at::silu(gate)).sum(0)));
  EXPECT_TRUE(torch::allclose(uaccel::gelu_mul(gate, up, "tanh"), at::gelu(gate, "tanh") * up));
}

TEST(RmsNorm, ValuesAndGradientsMatchAtenAndTheResidualFormAddsFirst) {
  const auto x = torch::randn({6, 3, 16}, torch::kDouble).requires_grad_();
  const auto w = torch::randn({3, 16}, torch::kDouble).requires_grad_();
  const auto ours = uaccel::rms_norm(x, {3, 16}, w, 1e-5);
  const auto theirs = at::rms_norm(x, {3, 16}, w, 1e-5);
  EXPECT_TRUE(torch::allclose(ours, theirs, 1e-12, 1e-12));
  const auto grad = torch::randn_like(ours);
  const auto ours_grad = torch::autograd::grad({ours}, {x, w}, {grad});
  const auto theirs_grad = torch::autograd::grad({theirs}, {x, w}, {grad});
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(torch::allclose(ours_grad[k], theirs_grad[k], 1e-10, 1e-12)) << k;
  }
  // Gemma's 1 + weight and the residual form.
  EXPECT_TRUE(torch::allclose(uaccel::rms_norm(x, {16}, w[0], std::nullopt, 1.0), at::rms_norm(x, {16}, w[0] + 1)));
  const auto residual = torch::randn_like(x);
  const auto [out, sum] = uaccel::add_rms_norm(x, residual, {16}, w[1]);
  EXPECT_TRUE(torch::equal(sum, x + residual));
  EXPECT_TRUE(torch::allclose(out, at::rms_norm(x + residual, {16}, w[1])));
  EXPECT_THROW(uaccel::rms_norm(x, {15}), c10::Error);
}

TEST(Memory, InstalledAllocatorAlignsAndCountsEveryCpuTensor) {
  const auto before = uaccel::memory::stats();
  uaccel::memory::install_cpu_allocator(4096);
  std::vector<at::Tensor> tensors = {torch::empty({1000}), torch::randn({33, 7}), torch::ones({5}) * 2};
  uaccel::memory::uninstall_cpu_allocator();
  for (const auto& t : tensors) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 4096, 0u);
  }
  const auto during = uaccel::memory::stats();
  EXPECT_GE(during.allocations - before.allocations, 3);
  tensors.clear();
  EXPECT_EQ(uaccel::memory::stats().allocated_bytes, before.allocated_bytes);
  EXPECT_THROW(uaccel::memory::uninstall_cpu_allocator(), c10::Error);  // nothing installed any more
}

TEST(Memory, AlignedEmptyAndLeakTracking) {
  const int64_t token = uaccel::memory::track_begin();
  auto kept = uaccel::memory::aligned_empty({100, 3}, 1 << 21, at::kFloat);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(kept.data_ptr()) % (1 << 21), 0u);
  const auto leaks = uaccel::memory::track_end(token);
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_EQ(leaks[0].size, 1200);
  EXPECT_EQ(leaks[0].device, "cpu");
}

TEST(Copy, AsyncCopyMatchesCopyAndRefusesMismatches) {
  const auto src = torch::randn({64, 48});
  auto dst = torch::empty({48, 64}).t();
  uaccel::async_copy_(dst, src);
  EXPECT_TRUE(torch::equal(dst, src));
  auto untouched = torch::zeros({3});
  EXPECT_THROW(uaccel::async_copy_(untouched, torch::ones({4})), c10::Error);
  EXPECT_TRUE(torch::equal(untouched, torch::zeros({3})));
}

TEST(Host, RegistrationSharesBytesAndUnregisters) {
  std::vector<float> buffer(10000, 1.0f);
  const auto host = torch::from_blob(buffer.data(), {10000});
  const auto registration = uaccel::host::register_host(host);
  EXPECT_EQ(registration.device_view.has_value(), torch::cuda::is_available());
  host[7] = 5.0f;
  EXPECT_EQ(buffer[7], 5.0f);
  uaccel::host::unregister_host(registration.id);
  EXPECT_THROW(uaccel::host::unregister_host(registration.id), c10::Error);
}

} // namespace
