"""The CUDA kernels' machine code, checked where no GPU is (tests/cuda_sass.py reads it with
cuobjdump): the dense kernels keep their 128-bit global loads and stores, and no uaccel kernel
uses local memory (no register spills, no stack). Skipped for a CPU-only build, or without the
tools (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)."""

import re

import pytest
from cuda_sass import (
    DENSE_DTYPES,
    Kernel,
    analyse,
    find_tool,
    list_archs,
    pointwise_ops,
    problems,
    resource_usage,
)

import torch_uaccel
from torch_uaccel import _native

OPS = pointwise_ops()
DENSE_KERNELS = [(dtype, op) for dtype in DENSE_DTYPES for op in OPS]  # each: a forward and a backward


@pytest.fixture(scope="module")
def build():
    """(cuobjdump, library, build_info) or a skip."""
    info = torch_uaccel.build_info()
    if not info["cuda"]:
        pytest.skip("CPU-only build: no CUDA kernels to inspect")
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None or find_tool("nvdisasm") is None:
        pytest.skip("cuobjdump/nvdisasm not installed (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
    return cuobjdump, _native.path, info


@pytest.fixture(scope="module")
def archs(build):
    cuobjdump, library, _ = build
    return list_archs(cuobjdump, library)


@pytest.fixture(scope="module")
def kernels(build, archs):
    """Every kernel of sm_90 (or the newest SASS arch in the build) with its resources and opcodes."""
    elf, _ = archs
    assert elf, "cuobjdump found no SASS in a CUDA build (a cuobjdump older than the CUDA that built it?)"
    arch = "sm_90" if "sm_90" in elf else max(elf, key=lambda a: int(re.sub(r"\D", "", a)))
    return analyse(build[1], arch)


def test_fatbin_archs_match_build_info(build, archs):
    # cuda_archs is CMake's list, e.g. ["8.0", "9.0+PTX"]: SASS for each, PTX for the +PTX ones.
    listed = build[2]["cuda_archs"]
    assert listed, build[2]
    sass = {"sm_" + a.removesuffix("+PTX").replace(".", "") for a in listed}
    ptx = {"sm_" + a.removesuffix("+PTX").replace(".", "") for a in listed if a.endswith("+PTX")}
    assert archs == (sass, ptx)


def test_kernels_found(kernels):
    # Every .cu file with kernels shows up, and the parser tells a vectorised kernel from a scalar
    # one: the unaligned flat_kernel<1, float, ...> and the strided ones have no 128-bit accesses.
    assert len(kernels) >= len(DENSE_KERNELS) * 3, [k.short_name for k in kernels]
    assert {"library_cuda.cu", "copy_cuda.cu"} <= {k.source for k in kernels}
    assert all(k.opcodes["EXIT"] >= 1 for k in kernels)
    scalar = [
        k
        for k in kernels
        if k.source == "library_cuda.cu" and re.match(r"flat_kernel<1,|strided_kernel<", k.short_name)
    ]
    assert len(scalar) >= 2 * len(DENSE_KERNELS), [k.short_name for k in scalar]  # flat_kernel<1> and strided
    assert all(k.loads_128 == 0 and k.stores_128 == 0 for k in scalar), [k.short_name for k in scalar]
    assert all(k.count("LDG") > 0 and k.count("STG") > 0 for k in scalar)


@pytest.mark.parametrize(
    ("dtype", "op"), DENSE_KERNELS, ids=[f"{d.removeprefix('c10::')}-{o}" for d, o in DENSE_KERNELS]
)
def test_dense_kernels_use_128_bit_global_accesses(kernels, dtype, op):
    found = [k for k in kernels if k.dense and (k.dense.dtype, k.dense.op) == (dtype, op)]
    arities = {(k.dense.inputs, k.dense.outputs) for k in found}
    assert {(OPS[op], 1), (OPS[op] + 1, OPS[op])} <= arities, [k.short_name for k in found]
    for kernel in found:  # kUnroll packs of 16 bytes in flight per operand: at least one each
        assert kernel.loads_128 >= kernel.dense.inputs, (kernel.short_name, dict(kernel.opcodes))
        assert kernel.stores_128 >= kernel.dense.outputs, (kernel.short_name, dict(kernel.opcodes))


def test_gelu_evaluates_phi_in_double_at_floats_accuracy(kernels):
    """GELU's float math (approximate='none', forward and backward, GELU and GeGLU) takes Phi from
    normal_cdf_float_in_double (csrc/activations/gelu.h: one polynomial, an exp and
    a reciprocal to float's accuracy), not from double's erfc, which took 63 double-precision operations
    an element: in the strided kernels (an element a store of each output), at most 40 (32-34 seen)."""
    erf_kernel = re.compile(r"strided_kernel<float, \d+, (\d+), uaccel::ops::gelu(_mul)?::\w+::\w+<float, false>")
    gelu = [(k, int(m.group(1))) for k in kernels if (m := erf_kernel.search(k.name))]
    assert len(gelu) == 4, [k.short_name for k in kernels if "strided" in k.name]
    for kernel, outputs in gelu:
        double_ops = kernel.count("DFMA") + kernel.count("DADD") + kernel.count("DMUL")
        elements = kernel.count("STG") // outputs
        assert 0 < double_ops <= 40 * elements, (kernel.short_name, dict(kernel.opcodes))


ROWWISE_KERNEL = re.compile(
    r"rowwise::cuda_detail::row_kernel<uaccel::ops::rms_norm::\w+::(Forward|AddForward|Backward)<([\w:]+)>, "
    r"[\w:]+, (\d+), (true|false)>"
)


def test_rms_norm_kernels_read_rows_in_16_byte_packs_and_sum_in_double(kernels):
    """RMSNorm's descriptions (csrc/ops/rms_norm.h) on the row-wise CUDA engine (uaccel/detail/rowwise_cuda.cuh):
    each (description, dtype, warp or block a row) has a packed kernel (128-bit loads and stores) and a
    one-element one (none); the row's sums are double (DFMA)."""
    found = [(k, m) for k in kernels if k.source == "rms_norm_cuda.cu" and (m := ROWWISE_KERNEL.search(k.name))]
    variants = {(m[1], m[2], int(m[3]) > 1, m[4]) for _, m in found}
    expected = {
        (name, dtype, packed, per_warp)
        for name in ("Forward", "AddForward", "Backward")
        for dtype in DENSE_DTYPES
        for packed in (True, False)
        for per_warp in ("true", "false")
    }
    assert variants == expected, sorted(variants ^ expected)
    for kernel, match in found:
        packed = int(match[3]) > 1 and int(match[3]) * DENSE_DTYPES[match[2]] == 16
        assert (kernel.loads_128 > 0 and kernel.stores_128 > 0) == packed, (kernel.short_name, dict(kernel.opcodes))
        assert kernel.count("DFMA") > 0, (kernel.short_name, dict(kernel.opcodes))


def test_no_kernel_uses_local_memory(build, archs, kernels):
    spilling = [(k.short_name, k.stack, k.local, k.local_accesses) for k in kernels if k.stack or k.local]
    spilling += [(k.short_name, k.local_accesses) for k in kernels if k.local_accesses]
    assert not spilling, spilling
    cuobjdump, library, _ = build
    for arch in sorted(archs[0]):  # every SASS arch, from the resource usage alone
        usage = resource_usage(cuobjdump, library, arch)
        assert len(usage) == len(kernels), arch
        assert not [k.mangled for k in usage.values() if k.stack or k.local], arch


def test_checker_flags_what_it_should():
    """tests/cuda_sass.py's problems() (the script's exit status), on made-up kernels."""

    def kernel(name, loads=0, stores=0, stack=0, ldl=0):
        k = Kernel("_Z" + name, "library_cuda.cu", 32, stack, 0, 0, name)
        k.opcodes.update({"LDG.E.128": loads, "STG.E.128.SYS": stores, "LDG.E": 1, "LDL": ldl})
        return k

    def dense(dtype, op, inputs, outputs, **kwargs):
        vec = 16 // DENSE_DTYPES[dtype]
        return kernel(
            f"void uaccel::cuda::detail::flat_kernel<{vec}, {dtype}, {inputs}, {outputs}, uaccel::ops::{op}::F<float> >"
            f"(float*, long)",
            **kwargs,
        )

    ops = {"a": 1, "b": 2}
    good = [
        dense(d, op, *arity, loads=4, stores=2)
        for d in DENSE_DTYPES
        for op, n in ops.items()
        for arity in ((n, 1), (n + 1, n))
    ]
    assert problems(good, ops) == []
    assert problems([], ops) != []
    assert any("no dense forward kernel of a" in p for p in problems(good[1:], ops))
    assert len(problems([*good, dense("float", "b", 3, 2, loads=4, stores=1)], ops)) == 1  # 2 outputs, 1 store
    assert len(problems([*good, dense("float", "b", 3, 2, loads=2, stores=2)], ops)) == 1  # 3 inputs, 2 loads
    assert len(problems([*good, kernel("void strided_kernel<float>()", stack=8)], ops)) == 1
    assert len(problems([*good, kernel("void strided_kernel<float>()", ldl=1)], ops)) == 1
