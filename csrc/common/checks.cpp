#include <uaccel/detail/checks.h>

#include <ATen/core/Formatting.h>
#include <c10/util/Exception.h>

#include <algorithm>

#include <uaccel/memory.h>

namespace uaccel::checks {
namespace {

// The templates; fields in braces. Python formats them with str.format.
constexpr const char* kFloatingMessage =
    "{op}: expected {name} to be a floating-point tensor ({dtypes}), but got {got}";
constexpr const char* kSameMessage =
    "{op}: expected {a} and {b} to have the same {what}, but got {a_value} and {b_value}";
constexpr const char* kBroadcastMessage =
    "{op}: expected {a} and {b} to broadcast to one shape, but got {a_value} and {b_value}";
constexpr const char* kChoiceMessage = "{op}: expected {name} to be one of {accepted}, but got '{got}'";
constexpr const char* kTrailingMessage =
    "{op}: expected {name}'s last dimensions to be normalized_shape, a nonempty {shape}, but got {name} of shape {got}";
constexpr const char* kNormalizedShapeMessage =
    "{op}: expected {name} of normalized_shape's shape {shape}, but got {name} of shape {got}";
constexpr const char* kAlignmentMessage =
    "{op}: expected alignment to be a power of two between 1 and {max} bytes, but got {got}";

std::string floating_dtypes_text() {
  std::string text;
  for (size_t i = 0; i < kFloatingTypes.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == kFloatingTypes.size() ? " or " : ", ") + dtype_name(kFloatingTypes[i]);
  }
  return text;
}

template <typename Value>
void same(const char* op, const char* what, const char* a_name, const Value& a, const char* b_name, const Value& b) {
  TORCH_CHECK(
      a == b,
      format(
          kSameMessage,
          {{"op", op},
           {"a", a_name},
           {"b", b_name},
           {"what", what},
           {"a_value", c10::str(a)},
           {"b_value", c10::str(b)}}));
}

} // namespace

std::string format(std::string text, const std::vector<std::pair<const char*, std::string>>& fields) {
  for (const auto& [key, value] : fields) {
    const std::string placeholder = std::string("{") + key + "}";
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  return text;
}

std::string dtype_name(c10::ScalarType type) {
  return "torch." + std::string(c10::getDtypeNames(type).first);
}

void floating(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(
      std::find(kFloatingTypes.begin(), kFloatingTypes.end(), t.scalar_type()) != kFloatingTypes.end(),
      format(
          kFloatingMessage,
          {{"op", op}, {"name", name}, {"dtypes", floating_dtypes_text()}, {"got", dtype_name(t.scalar_type())}}));
}

void same_dtype(const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type()) {  // the names are spelled only for the message
    same(op, "dtype", a_name, dtype_name(a.scalar_type()), b_name, dtype_name(b.scalar_type()));
  }
}

void same_shape(const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  same(op, "shape", a_name, a.sizes(), b_name, b.sizes());
}

void same_device(const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  same(op, "device", a_name, a.device(), b_name, b.device());
}

void broadcastable(const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  const auto x = a.sizes(), y = b.sizes();
  for (size_t i = 1; i <= std::min(x.size(), y.size()); ++i) {
    const auto m = x[x.size() - i], n = y[y.size() - i];
    TORCH_CHECK(
        m == n || m == 1 || n == 1,
        format(
            kBroadcastMessage,
            {{"op", op}, {"a", a_name}, {"b", b_name}, {"a_value", c10::str(x)}, {"b_value", c10::str(y)}}));
  }
}

void trailing_shape(const char* op, const char* name, const at::Tensor& t, at::IntArrayRef shape) {
  const auto k = static_cast<int64_t>(shape.size());
  TORCH_CHECK(
      k >= 1 && t.dim() >= k && t.sizes().slice(t.dim() - k).equals(shape),
      format(kTrailingMessage, {{"op", op}, {"name", name}, {"shape", c10::str(shape)}, {"got", c10::str(t.sizes())}}));
}

void normalized_shape(const char* op, const char* name, const at::Tensor& t, at::IntArrayRef shape) {
  TORCH_CHECK(
      t.sizes().equals(shape),
      format(
          kNormalizedShapeMessage,
          {{"op", op}, {"name", name}, {"shape", c10::str(shape)}, {"got", c10::str(t.sizes())}}));
}

void choice(const char* op, std::string_view name, std::string_view accepted, std::string_view value) {
  std::vector<std::string_view> values;
  for (size_t start = 0; start < accepted.size();) {
    const auto end = std::min(accepted.find(' ', start), accepted.size());
    values.push_back(accepted.substr(start, end - start));
    start = end + 1;
  }
  if (std::find(values.begin(), values.end(), value) != values.end()) {
    return;
  }
  std::string listed;
  for (size_t i = 0; i < values.size(); ++i) {
    listed += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + ("'" + std::string(values[i]) + "'");
  }
  TORCH_CHECK(
      false,
      format(
          kChoiceMessage,
          {{"op", op}, {"name", std::string(name)}, {"accepted", listed}, {"got", std::string(value)}}));
}

void alignment(const char* op, int64_t alignment) {
  TORCH_CHECK(
      alignment >= 1 && alignment <= kMaxAlignment && (alignment & (alignment - 1)) == 0,
      format(
          kAlignmentMessage, {{"op", op}, {"max", std::to_string(kMaxAlignment)}, {"got", std::to_string(alignment)}}));
}

std::vector<std::pair<std::string, std::string>> shared_facts() {
  std::string dtypes;
  for (const auto type : kFloatingTypes) {
    dtypes += (dtypes.empty() ? "" : " ") + dtype_name(type);
  }
  std::string stats_fields;
  for (const auto& field : memory::kStatsFields) {
    stats_fields += (stats_fields.empty() ? "" : " ") + std::string(field.name);
  }
  return {
      {"message.floating", format(kFloatingMessage, {{"dtypes", floating_dtypes_text()}})},
      {"message.same", kSameMessage},
      {"message.broadcast", kBroadcastMessage},
      {"message.choice", kChoiceMessage},
      {"message.trailing", kTrailingMessage},
      {"message.normalized_shape", kNormalizedShapeMessage},
      {"message.alignment", format(kAlignmentMessage, {{"max", std::to_string(kMaxAlignment)}})},
      {"floating_dtypes", dtypes},
      {"max_alignment", std::to_string(kMaxAlignment)},
      {"memory_stats_fields", stats_fields},
  };
}

} // namespace uaccel::checks
