// Dimension arithmetic shared by the shape, reduce and norm ops: PyTorch's wrapping of negative
// dims, contiguous strides, and int-list arguments as a program serializes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

// `dim` wrapped into [0, rank) as PyTorch does (a rank-0 tensor accepts -1 and 0 as dim 0);
// fails naming `name` otherwise.
int64_t wrap_dim(const Args& args, int64_t dim, int64_t rank, std::string_view name);

// Several dims wrapped, each at most once (a repeat fails).
std::vector<int64_t> wrap_dims(const Args& args, const std::vector<int64_t>& dims, int64_t rank,
                               std::string_view name);

// Row-major element strides of `shape`.
std::vector<int64_t> contiguous_strides(const Shape& shape);

int64_t product(const Shape& shape);

// An int-list argument; an empty tensor list counts as the empty int list (a program stores
// `[]` as a value list with no items, which reads back as a tensor list).
std::vector<int64_t> int_list_arg(const Args& args, size_t i, std::string_view name);
// As int_list_arg, or nullopt when the argument is none.
std::optional<std::vector<int64_t>> optional_int_list_arg(const Args& args, size_t i,
                                                          std::string_view name);

// A dtype argument given as a c10::ScalarType code (6 = float, 4 = long, ...), or nullopt for
// none. Fails for codes with no wgx dtype.
std::optional<DType> optional_scalar_type_arg(const Args& args, size_t i, std::string_view name);

// Fails unless t has dtype `want`, naming the argument.
void expect_dtype(const Args& args, const Tensor& t, DType want, std::string_view name);
// Fails unless t has shape `want`, naming the argument.
void expect_shape(const Args& args, const Tensor& t, const Shape& want, std::string_view name);

// Element counts the kernels index with 32-bit (signed) arithmetic must stay below 2^31.
void expect_indexable(const Args& args, const Tensor& t, std::string_view name);

}  // namespace wgx::ops
