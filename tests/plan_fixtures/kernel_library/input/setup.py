from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="kernlib",
    ext_modules=[CUDAExtension("kernlib_cuda", ["csrc/scale.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
