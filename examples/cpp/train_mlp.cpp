// A small LibTorch training loop with uaccel::elu as the activation: fits y = sin(sum(x)).
// Prints the loss as it falls; exits non-zero if it does not fall.
#include <torch/torch.h>

#include <iostream>

#include <uaccel/uaccel.h>

struct Mlp : torch::nn::Module {
  Mlp()
      : fc1(register_module("fc1", torch::nn::Linear(8, 64))), fc2(register_module("fc2", torch::nn::Linear(64, 1))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    return fc2(uaccel::elu(fc1(x), /*alpha=*/1.0));  // differentiable through the dispatcher
  }

  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

int main() {
  torch::manual_seed(0);
  const auto x = torch::randn({512, 8});
  const auto y = x.sum(1, /*keepdim=*/true).sin();
  Mlp model;
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-2));
  float first = 0.0f;
  float last = 0.0f;
  for (int step = 0; step <= 300; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model.forward(x), y);
    loss.backward();
    optimizer.step();
    last = loss.item<float>();
    if (step == 0) {
      first = last;
    }
    if (step % 100 == 0) {
      std::cout << "step " << step << " loss " << last << "\n";
    }
  }
  if (last < 0.2f * first) {
    std::cout << "loss fell from " << first << " to " << last << "\n";
    return 0;
  }
  std::cout << "loss did not fall enough: " << first << " -> " << last << "\n";
  return 1;
}
