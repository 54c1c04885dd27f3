#pragma once
// The argument checks ops share, each with one wording, and the facts they check against. The
// Python fake kernels (torch_uaccel/_checks.py) read the same templates and facts through
// uaccel::_shared_facts, so an error reads the same in eager mode and under torch.compile.
#include <ATen/core/Tensor.h>

#include <uaccel/export.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace uaccel::checks {

// The dtypes of every floating-point op (CPU and CUDA kernels, fakes, tests).
inline constexpr std::array<c10::ScalarType, 4> kFloatingTypes = {
    c10::ScalarType::Half, c10::ScalarType::BFloat16, c10::ScalarType::Float, c10::ScalarType::Double};

// The largest alignment the allocators and aligned_empty take, in bytes.
inline constexpr int64_t kMaxAlignment = int64_t{1} << 30;

// A message template with its {field}s filled in, as Python's str.format fills them (so a template is
// written once, in C++, and the fakes read it through uaccel::_shared_facts).
UACCEL_API std::string format(std::string text, const std::vector<std::pair<const char*, std::string>>& fields);

// A dtype as Python spells it ("torch.float32"), in C++ messages as in the fakes'.
UACCEL_API std::string dtype_name(c10::ScalarType type);

UACCEL_API void floating(const char* op, const char* name, const at::Tensor& t);
UACCEL_API void same_dtype(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b);
UACCEL_API void same_shape(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b);
UACCEL_API void same_device(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b);
// Whether a and b broadcast (sizes from the last dimension on equal, or one of them 1).
UACCEL_API void broadcastable(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b);
// Whether t's last dimensions are `shape` (normalized_shape of a row-wise op), at least one of them.
UACCEL_API void trailing_shape(const char* op, const char* name, const at::Tensor& t, at::IntArrayRef shape);
// Whether t's shape is `shape` (a row-wise op's weight).
UACCEL_API void normalized_shape(const char* op, const char* name, const at::Tensor& t, at::IntArrayRef shape);
// Whether a str parameter's value is one of `accepted` (space-separated).
UACCEL_API void choice(const char* op, std::string_view name, std::string_view accepted, std::string_view value);
UACCEL_API void alignment(const char* op, int64_t alignment);

// (key, value) pairs for uaccel::_shared_facts: the message templates ("message.<check>", with
// {field} placeholders), the floating dtypes, the alignment bound and the memory stats fields.
UACCEL_API std::vector<std::pair<std::string, std::string>> shared_facts();

} // namespace uaccel::checks
