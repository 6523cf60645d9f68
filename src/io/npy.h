// NumPy .npy files (format versions 1-3, C order, little-endian): the CLI's and tests' way to
// exchange tensors with Python. Spec: numpy.lib.format.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "wgx/dtype.h"
#include "wgx/tensor.h"

namespace wgx::io {

struct NpyArray {
    DType dtype = DType::f32;
    Shape shape;                  // empty for a 0-d array
    std::vector<std::byte> data;  // host layout of dtype, C order
};

// Throws InvalidArgument naming the file and the problem (bad magic, unsupported dtype,
// Fortran order, big-endian data, truncated data).
NpyArray read_npy(const std::filesystem::path& path);
NpyArray parse_npy(std::span<const std::byte> bytes, const std::string& name);

void write_npy(const std::filesystem::path& path, const NpyArray& array);
std::vector<std::byte> format_npy(const NpyArray& array);

}  // namespace wgx::io
