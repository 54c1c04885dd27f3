"""The ops from C++: a program built against the installed myops (its generated C++ API) and torch_uaccel."""

import pathlib
import subprocess

import myops

import torch_uaccel
import torch_uaccel.build


def test_cpp_program_calls_the_ops(tmp_path):
    build = tmp_path / "build"
    package = pathlib.Path(myops.__file__).parent
    arguments = torch_uaccel.build.cmake_arguments([torch_uaccel.cmake_prefix_path])
    source = pathlib.Path(__file__).with_name("cpp")
    cmake = torch_uaccel.build.tool("cmake")
    subprocess.run([cmake, "-S", source, "-B", build, *arguments, f"-DMYOPS_PACKAGE={package}"], check=True)
    subprocess.run([cmake, "--build", build], check=True)
    result = subprocess.run([build / "myops_from_cpp"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "values and gradients match ATen" in result.stdout
