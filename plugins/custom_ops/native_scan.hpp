#pragma once
/// Analysis of the files that are not Python: CUDA/C++ sources (tree-sitter cuda grammar), CMake
/// files (a small command reader) and Makefiles (line by line).

#include "common.hpp"

namespace custom_ops {

/// CUDA kernels, launches, CUDA libraries, inline PTX, warp intrinsics, CUDA runtime use, Python
/// bindings and op registrations in .cu/.cuh/.cpp/.h files, plus one finding per csrc/kernels/ops
/// directory holding them (OPS-001 … OPS-014, OPS-020).
void analyzeNativeSources(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink);

/// CUDA in CMake files: the CUDA language and toolkit, architectures, flags and libraries
/// (OPS-015, OPS-016).
void analyzeCMake(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                  sdk::FindingSink& sink);

/// CUDA in Makefiles: targets built from .cu sources, nvcc architecture flags, CUDA library link
/// flags (OPS-040); Windows-only branches skipped.
void analyzeMakefiles(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                      sdk::FindingSink& sink);

/// Calls `torch.ops.ns.op(…)` in Python files into ops that a native source of the repository
/// implements for CUDA (`TORCH_LIBRARY_IMPL(ns, CUDA, m) { m.impl("op", …); }`): OPS-038.
void analyzeRegisteredOps(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                          sdk::FindingSink& sink);

/// Replaces comments and the contents of string/char literals of C, C++ or CUDA text by spaces
/// (newlines kept), so byte offsets stay valid for text searches.
std::string maskCommentsAndStrings(std::string_view text);

}  // namespace custom_ops
