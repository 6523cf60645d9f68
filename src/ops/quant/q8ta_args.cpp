#include "ops/quant/q8ta_args.h"

#include <fmt/format.h>

#include <string>
#include <variant>

#include "ops/common/dims.h"
#include "ops/qdq/qdq_args.h"

namespace wgx::ops::q8ta {

int32_t zero_point_arg(const Args& args, size_t i, std::string_view what) {
    const int64_t zp = args.integer(i, fmt::format("{}_zero_point", what));
    if (zp < -128 || zp > 127) {
        args.fail(fmt::format("{}_zero_point {} is outside int8's -128..127.", what, zp));
    }
    return int32_t(zp);
}

QParam qparam_args(const Args& args, size_t scale_at, size_t zp_at, std::string_view what) {
    const double scale = qdq::scale_arg(args, scale_at, fmt::format("{}_scale", what));
    // The reference multiplies by 1.0 / scale made in double, as float32.
    return {float(scale), float(1.0 / scale), zero_point_arg(args, zp_at, what)};
}

uint32_t activation_arg(const Args& args, size_t i) {
    if (args.is_none(i)) return 0;
    const auto* s = std::get_if<std::string>(&args[i].value());
    if (s == nullptr) args.fail(fmt::format("argument {} (activation) must be a string.", i));
    if (*s == "none") return 0;
    if (*s == "relu") return 1;
    args.fail(fmt::format("activation must be \"none\" or \"relu\", got \"{}\".", *s));
}

void expect_int8(const Args& args, const Tensor& t, int64_t rank, std::string_view name) {
    expect_dtype(args, t, DType::i8, name);
    if (t.rank() != rank) {
        args.fail(
            fmt::format("{} must have {} dims, got {}.", name, rank, shape_string(t.shape())));
    }
    expect_indexable(args, t, name);
}

}  // namespace wgx::ops::q8ta
