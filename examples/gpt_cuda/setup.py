"""Build the fused_bias_gelu_cuda extension and install the gpt package.

    pip install -e .                    # needs nvcc and a CUDA build of torch
    python setup.py build_ext --inplace

Set TORCH_CUDA_ARCH_LIST (e.g. "8.0;9.0") to choose the GPU architectures.
Without CUDA_HOME (and without FORCE_CUDA=1) only the Python package is
installed and gpt.ops falls back to PyTorch.
"""

import os

from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

HERE = os.path.dirname(os.path.abspath(__file__))


def nvcc_flags():
    flags = ["-O3", "--use_fast_math", "-lineinfo", "--expt-relaxed-constexpr",
             "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"]
    if not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        for arch in ("70", "80", "90"):
            flags.append(f"-gencode=arch=compute_{arch},code=sm_{arch}")
    return flags


def extensions():
    if CUDA_HOME is None and os.environ.get("FORCE_CUDA", "0") != "1":
        print("CUDA_HOME not set: skipping the fused_bias_gelu_cuda extension")
        return []
    return [
        CUDAExtension(
            name="fused_bias_gelu_cuda",
            sources=[os.path.join("csrc", "fused_bias_gelu.cpp"),
                     os.path.join("csrc", "fused_bias_gelu.cu")],
            extra_compile_args={"cxx": ["-O3", "-std=c++17"], "nvcc": nvcc_flags()},
            libraries=["cublas"],
        )
    ]


def read_requirements():
    with open(os.path.join(HERE, "requirements.txt")) as f:
        lines = [line.split("#")[0].strip() for line in f]
    return [line for line in lines if line and not line.startswith(("-", "git+"))
            and " @ " not in line]


setup(
    name="gpt-cuda-example",
    version="0.1.0",
    description="A tiny GPT trained with CUDA kernels (migrate-pipeline test fixture)",
    packages=find_packages(exclude=("tests",)),
    python_requires=">=3.9",
    install_requires=["torch>=2.1", "numpy>=1.24", "einops>=0.7", "sentencepiece>=0.1.99"],
    extras_require={
        "kernels": ["flash-attn==2.5.8", "xformers>=0.0.23", "triton>=2.1.0"],
        "all": read_requirements(),
    },
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExtension},
    zip_safe=False,
)
