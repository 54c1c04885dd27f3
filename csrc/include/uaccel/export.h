#pragma once
// Symbols of the public C++ API are visible; everything else in the extension is hidden.
#define UACCEL_API __attribute__((visibility("default")))
