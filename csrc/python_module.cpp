// The Python face of the library, torch_uaccel._C (setup.py only; the CMake library has no
// Python). `import torch_uaccel._C` only needs to load the shared library so that its
// TORCH_LIBRARY registrations run; the module itself is empty.
#include <Python.h>

extern "C" PyMODINIT_FUNC PyInit__C(void) {
  static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module);
}
