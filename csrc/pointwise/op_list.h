#pragma once
// Every pointwise op of the library: its header (csrc/ops/<op>.h, what it holds: pointwise.h), and its
// name in UACCEL_FOR_EACH_POINTWISE_OP, from which the framework defines its schemas and registers
// its kernels and autograd (pointwise.cpp, pointwise_cpu_isa.cpp, pointwise_cuda.cu). CMake refuses a
// header of csrc/ops/ that is not listed here.
#include "ops/elu.h"
#include "ops/gelu.h"
#include "ops/gelu_mul.h"
#include "ops/silu.h"
#include "ops/silu_mul.h"

#define UACCEL_FOR_EACH_POINTWISE_OP(X) X(elu) X(gelu) X(gelu_mul) X(silu) X(silu_mul)
