"""A mistake in an op's header fails the build with one message saying what is missing, not a page of
template errors: a missing second derivative, and a functor that does not fit its schema."""

import re
import subprocess
import textwrap

import torch_uaccel
import torch_uaccel.build

HEADERS = {
    # No backward_wrt_saved: the backward would not be differentiable.
    "lacks_derivative.h": """
        namespace broken::lacks_derivative {
        template <typename T>
        struct Forward : uaccel::pointwise::Formula<Forward<T>> {
          template <typename V> C10_HOST_DEVICE V apply(V x) const { return x * x; }
        };
        struct Op {
          static constexpr const char* kName = "lacks_derivative";
          static constexpr uaccel::pointwise::Schemas kSchemas{
              .forward = "lacks_derivative(Tensor self) -> Tensor",
              .backward = "lacks_derivative_backward(Tensor grad_output, Tensor self) -> Tensor"};
          template <typename T, typename Run> static void forward(const Run& run) { run(Forward<T>{}); }
          template <typename T, typename Run> static void backward(const Run& run) { run(Forward<T>{}); }
        };
        }
    """,
    # Two tensors in the schema, a functor of one.
    "wrong_arity.h": """
        namespace broken::wrong_arity {
        template <typename T>
        struct Forward : uaccel::pointwise::Formula<Forward<T>> {
          template <typename V> C10_HOST_DEVICE V apply(V x) const { return x; }
        };
        template <typename T>
        struct Backward : uaccel::pointwise::Formula<Backward<T>> {
          template <typename V> C10_HOST_DEVICE uaccel::Outputs<V, 2> apply(V g, V a, V b) const { return {{g, g}}; }
        };
        struct Op {
          static constexpr const char* kName = "wrong_arity";
          static constexpr uaccel::pointwise::Schemas kSchemas{
              .forward = "wrong_arity(Tensor a, Tensor b) -> Tensor",
              .backward = "wrong_arity_backward(Tensor grad_output, Tensor a, Tensor b) -> (Tensor, Tensor)"};
          template <typename T, typename Run> static void forward(const Run& run) { run(Forward<T>{}); }
          template <typename T, typename Run> static void backward(const Run& run) { run(Backward<T>{}); }
          static std::array<at::Tensor, 2> backward_wrt_saved(
              const at::Tensor& ha, const at::Tensor& hb, const at::Tensor& a, const at::Tensor& b) {
            return {ha, hb};
          }
        };
        }
    """,
}


def test_mistakes_in_a_header_fail_with_their_message(tmp_path):
    for name, body in HEADERS.items():
        (tmp_path / name).write_text("#pragma once\n#include <uaccel/pointwise.h>\n" + textwrap.dedent(body))
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(broken LANGUAGES CXX)\nfind_package(TorchUaccel REQUIRED)\n"
        f"torch_uaccel_add_pointwise_library(broken NAMESPACE broken OPS {' '.join(HEADERS)})\n"
    )
    arguments = torch_uaccel.build.cmake_arguments([torch_uaccel.cmake_prefix_path])
    arguments = [a for a in arguments if not a.startswith("-DUACCEL_CPU_ONLY")] + ["-DUACCEL_CPU_ONLY=ON"]
    cmake = torch_uaccel.build.tool("cmake")
    subprocess.run([cmake, "-S", tmp_path, "-B", tmp_path / "build", *arguments], check=True, capture_output=True)
    # The library unit (the op's description) and the DEFAULT path's kernels (the functors), kept going.
    build = subprocess.run(
        [cmake, "--build", tmp_path / "build", "--target", "broken", "--", "-k", "0"], capture_output=True, text=True
    )
    output = build.stdout + build.stderr
    assert build.returncode != 0
    assert "Op needs `static backward_wrt_saved(h..., saved..., <BackwardParams>...)`" in output, output[-4000:]
    assert "the forward's functor must take one value per Tensor of kSchemas.forward" in output, output[-4000:]
    # One error per failed check and compiled copy (the library unit, three instruction sets): no cascade.
    errors = re.findall(r"error: ", output)
    assert len(errors) <= 8, output[-8000:]
