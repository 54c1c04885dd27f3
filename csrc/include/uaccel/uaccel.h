#pragma once
// Entry header of the torch_uaccel C++ API.
#include <uaccel/copy.h>
#include <uaccel/elu.h>
#include <uaccel/host.h>
#include <uaccel/memory.h>
