// myops from C++: the generated API (myops/pointwise_ops.h, a function per schema) against ATen's own
// softplus, mish and hardtanh, values and gradients (autograd reaches the ops from C++ as from Python).
#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <iostream>

#include <myops/pointwise_ops.h>

int main() {
  const auto x = at::randn({257}, at::kDouble) * 8;
  bool ok = at::allclose(myops::softplus(x, 2.0, 5.0), at::softplus(x, 2.0, 5.0)) &&
      at::allclose(myops::softplus(x), at::softplus(x, 1, 20)) && at::allclose(myops::mish(x), at::mish(x));
  ok = ok && at::allclose(myops::hardtanh(x, -2.0, 3.0), at::hardtanh(x, -2.0, 3.0)) &&
      at::allclose(myops::hardtanh(x), at::hardtanh(x));
  auto y = x.clone();
  ok = ok && at::allclose(myops::mish_(y), at::mish(x));
  auto z = x.clone();
  ok = ok && at::allclose(myops::hardtanh_(z, -0.5, 0.5), at::hardtanh(x, -0.5, 0.5)) &&
      at::equal(z, at::hardtanh(x, -0.5, 0.5));

  const auto leaf = x.detach().requires_grad_();
  const auto grad = torch::autograd::grad({myops::mish(leaf).sum()}, {leaf})[0];
  ok = ok && at::allclose(grad, at::mish_backward(at::ones_like(x), x));
  std::cout << (ok ? "myops from C++: values and gradients match ATen" : "myops from C++: MISMATCH") << "\n";
  return ok ? 0 : 1;
}
