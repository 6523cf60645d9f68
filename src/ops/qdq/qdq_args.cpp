#include "ops/qdq/qdq_args.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/common/dims.h"

namespace wgx::ops::qdq {

uint32_t storage_kind(DType dtype) {
    switch (dtype) {
        case DType::u8: return 1;
        case DType::i8: return 2;
        default: return 0;
    }
}

DType quant_dtype_arg(const Args& args, size_t i, std::string_view name,
                      std::optional<DType> tensor_dtype) {
    std::optional<DType> dt = optional_scalar_type_arg(args, i, name);
    if (!dt && args.is_none(i)) dt = tensor_dtype;
    if (!dt || (*dt != DType::i8 && *dt != DType::u8 && *dt != DType::i32)) {
        args.fail(fmt::format("{} must be int8, uint8 or int32, got {}.", name,
                              dt ? dtype_name(*dt) : "none"));
    }
    return *dt;
}

QuantRange quant_range_args(const Args& args, size_t i, DType dtype) {
    const int64_t qmin = args.integer(i, "quant_min");
    const int64_t qmax = args.integer(i + 1, "quant_max");
    int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    if (dtype == DType::i8) lo = -128, hi = 127;
    if (dtype == DType::u8) lo = 0, hi = 255;
    if (qmin < lo) {
        args.fail(
            fmt::format("quant_min {} is below {}'s minimum {}.", qmin, dtype_name(dtype), lo));
    }
    if (qmax > hi) {
        args.fail(
            fmt::format("quant_max {} is above {}'s maximum {}.", qmax, dtype_name(dtype), hi));
    }
    if (qmin > qmax) args.fail(fmt::format("quant_min {} exceeds quant_max {}.", qmin, qmax));
    return {int32_t(qmin), int32_t(qmax)};
}

void expect_scales(const Args& args, const Tensor& t, int64_t count, std::string_view name) {
    if (t.dtype() != DType::f32 && t.dtype() != DType::f64) {
        args.fail(fmt::format("{} has dtype {}, expected float32 or float64.", name,
                              dtype_name(t.dtype())));
    }
    if (t.numel() != count) {
        args.fail(fmt::format("{} has {} elements, expected {}.", name, t.numel(), count));
    }
}

void expect_zero_points(const Args& args, const Tensor& t, int64_t count, std::string_view name) {
    if (t.dtype() != DType::i32 && t.dtype() != DType::i64) {
        args.fail(
            fmt::format("{} has dtype {}, expected int32 or int64.", name, dtype_name(t.dtype())));
    }
    if (t.numel() != count) {
        args.fail(fmt::format("{} has {} elements, expected {}.", name, t.numel(), count));
    }
}

void expect_dequantized_out(const Args& args, size_t i, const Tensor& out) {
    const std::optional<DType> want = optional_scalar_type_arg(args, i, "out_dtype");
    if (want && *want != DType::f32) {
        args.fail(fmt::format("out_dtype {} is not supported (float32 only).", dtype_name(*want)));
    }
    expect_dtype(args, out, DType::f32, "out");
}

double scale_arg(const Args& args, size_t i, std::string_view name) {
    const double s = args.number(i, name);
    if (!(s > 0) || !std::isnormal(float(s))) {
        args.fail(fmt::format("{} must be a positive normal float32, got {}.", name, s));
    }
    return s;
}

}  // namespace wgx::ops::qdq
