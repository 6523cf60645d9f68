#include "ops/common/dims.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace wgx::ops {

int64_t wrap_dim(const Args& args, int64_t dim, int64_t rank, std::string_view name) {
    int64_t n = std::max<int64_t>(rank, 1);
    if (dim < -n || dim >= n) {
        args.fail(fmt::format("{} {} is out of range for a tensor of rank {} (expected {} to {}).",
                              name, dim, rank, -n, n - 1));
    }
    return dim < 0 ? dim + n : dim;
}

std::vector<int64_t> wrap_dims(const Args& args, const std::vector<int64_t>& dims, int64_t rank,
                               std::string_view name) {
    std::vector<int64_t> out;
    for (int64_t d : dims) {
        int64_t w = wrap_dim(args, d, rank, name);
        if (std::find(out.begin(), out.end(), w) != out.end()) {
            args.fail(fmt::format("{} lists dim {} more than once.", name, w));
        }
        out.push_back(w);
    }
    return out;
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
    std::vector<int64_t> strides(shape.size());
    int64_t s = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = s;
        s *= shape[i];
    }
    return strides;
}

int64_t product(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::vector<int64_t> int_list_arg(const Args& args, size_t i, std::string_view name) {
    if (const auto* l = std::get_if<Arg::TensorList>(&args[i].value()); l && l->empty()) return {};
    return args.int_list(i, name);
}

std::optional<std::vector<int64_t>> optional_int_list_arg(const Args& args, size_t i,
                                                          std::string_view name) {
    if (args.is_none(i)) return std::nullopt;
    return int_list_arg(args, i, name);
}

std::optional<DType> optional_scalar_type_arg(const Args& args, size_t i, std::string_view name) {
    if (args.is_none(i)) return std::nullopt;
    int64_t code = args.integer(i, name);
    // c10::ScalarType: 0 Byte, 1 Char, 2 Short, 3 Int, 4 Long, 5 Half, 6 Float, 7 Double,
    // 11 Bool.
    switch (code) {
        case 0: return DType::u8;
        case 1: return DType::i8;
        case 3: return DType::i32;
        case 4: return DType::i64;
        case 5: return DType::f16;
        case 6: return DType::f32;
        case 7: return DType::f64;
        case 11: return DType::boolean;
        default: break;
    }
    args.fail(fmt::format("{} is scalar type {}, which has no wgx dtype.", name, code));
}

void expect_dtype(const Args& args, const Tensor& t, DType want, std::string_view name) {
    if (t.dtype() != want) {
        args.fail(fmt::format("{} has dtype {}, expected {}.", name, dtype_name(t.dtype()),
                              dtype_name(want)));
    }
}

void expect_shape(const Args& args, const Tensor& t, const Shape& want, std::string_view name) {
    if (t.shape() != want) {
        args.fail(fmt::format("{} has shape {}, expected {}.", name, shape_string(t.shape()),
                              shape_string(want)));
    }
}

void expect_indexable(const Args& args, const Tensor& t, std::string_view name) {
    if (t.numel() > std::numeric_limits<int32_t>::max()) {
        args.fail(
            fmt::format("{} has {} elements; kernels index at most 2^31 - 1.", name, t.numel()));
    }
}

}  // namespace wgx::ops
