#pragma once
// Scalar math that ops share, for CUDA and the CPU's scalar loops alike (the vector forms are in
// vec_math.h): overloads on the math type, so an op's functor is written once for float and double.
#include <c10/macros/Macros.h>

#include <math.h>

namespace uaccel::math {

C10_HOST_DEVICE inline float exp(float x) {
  return ::expf(x);
}
C10_HOST_DEVICE inline double exp(double x) {
  return ::exp(x);
}
C10_HOST_DEVICE inline float expm1(float x) {
  return ::expm1f(x);
}
C10_HOST_DEVICE inline double expm1(double x) {
  return ::expm1(x);
}
C10_HOST_DEVICE inline float fma(float a, float b, float c) {
  return ::fmaf(a, b, c);
}
C10_HOST_DEVICE inline double fma(double a, double b, double c) {
  return ::fma(a, b, c);
}

} // namespace uaccel::math
