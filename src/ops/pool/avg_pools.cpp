// The average pools, float32 or float16 (summed in f32):
//   aten.avg_pool2d.default: with PyTorch's divisor rules. Args: [self, kernel_size, stride
//     (empty: kernel_size), padding, ceil_mode, count_include_pad, divisor_override?, out].
//   aten._adaptive_avg_pool2d.default (alias aten.adaptive_avg_pool2d.default): onto a given
//     output size with PyTorch's windows [floor(i * in / out), ceil((i + 1) * in / out)).
//     Args: [self, output_size, out].
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "ops/common/float16_support.h"
#include "ops/pool/adaptive_avg_pool2d.wgsl.h"
#include "ops/pool/avg_pool2d.wgsl.h"
#include "ops/pool/pool2d.h"
#include "ops/pool/pool_common.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

// self float32 or float16 (with shader-f16), out of the same dtype.
void check_avg_pool_dtypes(Recorder& rec, const Args& args, const Tensor& x, const Tensor& out) {
    if (storage_dtype(x.dtype()) != DType::f32 && storage_dtype(x.dtype()) != DType::f16) {
        args.fail(fmt::format("self must be float32 or float16, got {}.", dtype_name(x.dtype())));
    }
    expect_float16_support(rec, args, x.dtype());
    if (out.dtype() != x.dtype()) {
        args.fail(fmt::format("out must have the dtype of self ({}), got {}.",
                              dtype_name(x.dtype()), dtype_name(out.dtype())));
    }
}

// One thread per output element of `kernel_wgsl` (after pool_common.wgsl).
void record_avg_pool(Recorder& rec, std::string_view label, std::string_view kernel_wgsl,
                     const Tensor& x, const Tensor& out, const PoolParams& p) {
    uint32_t wg = rec.workgroup_size(128);
    std::string source =
        wgsl_alias(x.dtype()) + std::string(wgsl::ops_pool_pool_common) + std::string(kernel_wgsl);
    Kernel k = rec.kernel(label, std::move(source), {{"WG", double(wg)}});
    dispatch_pool(rec, k, {x, out, Binding::uniform(p)}, p, wg);
}

class AvgPool2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.avg_pool2d.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(8, 8);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(7, "out");
        check_avg_pool_dtypes(rec, args, x, out);
        PoolWindow w = parse_pool_window(args, 1, 2, 3, -1, 4);
        bool count_include_pad = args.boolean(5, "count_include_pad");
        std::optional<int64_t> divisor;
        if (!args.is_none(6)) {
            divisor = args.integer(6, "divisor_override");
            if (*divisor == 0 || *divisor > std::numeric_limits<int32_t>::max() ||
                *divisor < std::numeric_limits<int32_t>::min()) {
                args.fail(
                    fmt::format("divisor_override must be a nonzero int32, got {}.", *divisor));
            }
        }
        if (x.rank() != 3 && x.rank() != 4) {
            args.fail(fmt::format("self must be 3-D [C, H, W] or 4-D [N, C, H, W], got shape {}.",
                                  shape_string(x.shape())));
        }
        int64_t H = x.shape()[x.rank() - 2], W = x.shape()[x.rank() - 1];
        int64_t H_out = pool_output_size(args, H, w.kH, w.sH, w.pH, 1, w.ceil_mode);
        int64_t W_out = pool_output_size(args, W, w.kW, w.sW, w.pW, 1, w.ceil_mode);
        PoolParams p{};
        check_pool_shapes(args, x, out, H_out, W_out, "out", p);
        p.kH = uint32_t(w.kH), p.kW = uint32_t(w.kW);
        p.stride_h = uint32_t(w.sH), p.stride_w = uint32_t(w.sW);
        p.pad_h = uint32_t(w.pH), p.pad_w = uint32_t(w.pW);
        p.dil_h = p.dil_w = 1;
        if (count_include_pad) p.flags |= kPoolCountPad;
        if (divisor) p.flags |= kPoolHasDivisor, p.divisor = int32_t(*divisor);

        record_avg_pool(rec, name(), wgsl::ops_pool_avg_pool2d, x, out, p);
    }
};

class AdaptiveAvgPool2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten._adaptive_avg_pool2d.default"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override {
        return {"aten.adaptive_avg_pool2d.default"};
    }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& x = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        check_avg_pool_dtypes(rec, args, x, out);
        std::vector<int64_t> size = args.int_list(1, "output_size");
        if (size.size() == 1) size.push_back(size[0]);
        if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
            args.fail(fmt::format("output_size must be 1 or 2 positive values, got [{}].",
                                  fmt::join(args.int_list(1, "output_size"), ", ")));
        }
        PoolParams p{};
        check_pool_shapes(args, x, out, size[0], size[1], "out", p);
        // (i + 1) * in must not overflow u32 in the kernel.
        if (uint64_t(p.H_out) * p.H_in >= (1ull << 32) ||
            uint64_t(p.W_out) * p.W_in >= (1ull << 32)) {
            args.fail("input and output sizes are too large for 32-bit window arithmetic.");
        }
        record_avg_pool(rec, name(), wgsl::ops_pool_adaptive_avg_pool2d, x, out, p);
    }
};

}  // namespace

const Op& avg_pool2d_op() {
    static const AvgPool2d op;
    return op;
}

const Op& adaptive_avg_pool2d_op() {
    static const AdaptiveAvgPool2d op;
    return op;
}

}  // namespace wgx::ops
