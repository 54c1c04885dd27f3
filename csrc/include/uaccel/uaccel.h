#pragma once
// Entry header of the torch_uaccel C++ API.
#include <uaccel/copy.h>
#include <uaccel/host.h>
#include <uaccel/memory.h>
#include <uaccel/norms.h>
#include <uaccel/ops.h>
