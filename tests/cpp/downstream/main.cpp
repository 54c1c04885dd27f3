#include <torch/torch.h>

#include <iostream>

#include <uaccel/uaccel.h>

int main() {
  auto x = torch::linspace(-2, 2, 9, torch::kDouble).requires_grad_(true);
  auto y = uaccel::elu(x, 1.0);
  y.sum().backward();
  const bool ok = torch::allclose(y, at::elu(x.detach(), 1.0)) &&
      torch::allclose(x.grad(), torch::where(x.detach() > 0, torch::ones_like(x), torch::exp(x.detach())));
  std::cout << (ok ? "downstream: uaccel::elu and its gradient match ATen" : "downstream: MISMATCH") << "\n";
  return ok ? 0 : 1;
}
