// Runs the AOTInductor package that export_model.py wrote, from C++ only. The program calls no
// uaccel function: linking TorchUaccel::uaccel is what registers the uaccel ops the model calls.
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/torch.h>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: run_model MODEL.pt2 EXPECTED.txt\n";
    return 2;
  }
  torch::NoGradGuard no_grad;
  torch::inductor::AOTIModelPackageLoader loader(argv[1]);
  const auto x = torch::linspace(-3, 3, 24).reshape({3, 8});  // export_model.py's example_input()
  const auto y = loader.run({x}).at(0);

  std::ifstream expected_file(argv[2]);
  int64_t rows = 0, cols = 0;
  expected_file >> rows >> cols;
  std::vector<float> values(rows * cols);
  for (auto& v : values) {
    expected_file >> v;
  }
  const auto expected = torch::from_blob(values.data(), {rows, cols}, torch::kFloat).clone();
  if (!expected_file || !torch::allclose(y, expected, 1e-5, 1e-6)) {
    std::cerr << "MISMATCH\nC++ output:\n" << y << "\nPython output:\n" << expected << "\n";
    return 1;
  }
  std::cout << "AOTInductor output matches Python's, shape " << y.sizes() << "\n";
  return 0;
}
