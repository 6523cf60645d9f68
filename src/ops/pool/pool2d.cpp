#include "ops/pool/pool2d.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <string>
#include <vector>

#include "ops/common/float16_support.h"
#include "ops/pool/max_pool2d.wgsl.h"
#include "ops/pool/pool_common.wgsl.h"

namespace wgx::ops {
namespace {

std::vector<int64_t> pair_list(const Args& args, size_t i, const char* name, bool allow_empty) {
    std::vector<int64_t> v = args.int_list(i, name);
    if (v.empty() && allow_empty) return v;
    if (v.size() == 1) v.push_back(v[0]);
    if (v.size() != 2) {
        args.fail(fmt::format("{} must have 1 or 2 values, got [{}].", name, fmt::join(v, ", ")));
    }
    return v;
}

}  // namespace

PoolWindow parse_pool_window(const Args& args, size_t kernel_index, size_t stride_index,
                             size_t padding_index, int dilation_index, size_t ceil_index) {
    auto k = pair_list(args, kernel_index, "kernel_size", false);
    auto s = pair_list(args, stride_index, "stride", true);
    if (s.empty()) s = k;
    auto p = pair_list(args, padding_index, "padding", false);
    std::vector<int64_t> d{1, 1};
    if (dilation_index >= 0) d = pair_list(args, size_t(dilation_index), "dilation", false);
    auto check = [&](const std::vector<int64_t>& v, const char* name, int64_t min) {
        for (int64_t x : v) {
            if (x < min) {
                args.fail(fmt::format("{} values must be >= {}, got [{}].", name, min,
                                      fmt::join(v, ", ")));
            }
        }
    };
    check(k, "kernel_size", 1);
    check(s, "stride", 1);
    check(p, "padding", 0);
    check(d, "dilation", 1);
    if (p[0] > k[0] / 2 || p[1] > k[1] / 2) {
        args.fail(fmt::format("padding [{}] must be at most half of kernel_size [{}].",
                              fmt::join(p, ", "), fmt::join(k, ", ")));
    }
    PoolWindow w{k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1]};
    w.ceil_mode = args.boolean(ceil_index, "ceil_mode");
    return w;
}

int64_t pool_output_size(const Args& args, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                         bool ceil_mode) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    // Floor division (the numerator can be negative for a too-small input).
    int64_t q = num >= 0 ? num / s : -((-num + s - 1) / s);
    int64_t out = q + 1;
    // The last window must start inside the input or its left padding.
    if (ceil_mode && (out - 1) * s >= in + p) --out;
    if (out < 1) {
        args.fail(
            fmt::format("input size {} with kernel {}, stride {}, padding {}, dilation {} "
                        "gives an empty output ({}).",
                        in, k, s, p, d, out));
    }
    return out;
}

void check_pool_shapes(const Args& args, const Tensor& x, const Tensor& out, int64_t H_out,
                       int64_t W_out, const char* out_name, PoolParams& p) {
    if (x.rank() != 3 && x.rank() != 4) {
        args.fail(fmt::format("self must be 3-D [C, H, W] or 4-D [N, C, H, W], got shape {}.",
                              shape_string(x.shape())));
    }
    Shape expected = x.shape();
    expected[x.rank() - 2] = H_out;
    expected[x.rank() - 1] = W_out;
    if (out.shape() != expected) {
        args.fail(fmt::format("{} has shape {}, expected {}.", out_name, shape_string(out.shape()),
                              shape_string(expected)));
    }
    if (x.numel() > std::numeric_limits<int32_t>::max() ||
        out.numel() > std::numeric_limits<int32_t>::max()) {
        args.fail("tensors beyond 2^31 elements are not supported.");
    }
    int64_t planes = x.numel() / (x.shape()[x.rank() - 2] * x.shape()[x.rank() - 1]);
    p.planes = uint32_t(planes);
    p.H_in = uint32_t(x.shape()[x.rank() - 2]);
    p.W_in = uint32_t(x.shape()[x.rank() - 1]);
    p.H_out = uint32_t(H_out);
    p.W_out = uint32_t(W_out);
    p.total = uint32_t(out.numel());
}

void dispatch_pool(Recorder& rec, const Kernel& kernel, std::initializer_list<Binding> bindings,
                   const PoolParams& p, uint32_t wg) {
    rec.dispatch(kernel, bindings, rec.grid_1d(p.total, wg));
}

void record_max_pool2d(Recorder& rec, const Args& args, const Tensor& out, const Tensor* indices) {
    const Tensor& x = args.tensor(0, "self");
    DType storage = storage_dtype(x.dtype());
    if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
        args.fail(fmt::format("self must be float32, float16 or int32/int64, got {}.",
                              dtype_name(x.dtype())));
    }
    expect_float16_support(rec, args, x.dtype());
    if (out.dtype() != x.dtype()) {
        args.fail(fmt::format("out must have the dtype of self ({}), got {}.",
                              dtype_name(x.dtype()), dtype_name(out.dtype())));
    }
    if (indices && storage_dtype(indices->dtype()) != DType::i32) {
        args.fail(fmt::format("indices must be int64, got {}.", dtype_name(indices->dtype())));
    }
    PoolWindow w = parse_pool_window(args, 1, 2, 3, 4, 5);
    if (x.rank() != 3 && x.rank() != 4) {
        args.fail(fmt::format("self must be 3-D [C, H, W] or 4-D [N, C, H, W], got shape {}.",
                              shape_string(x.shape())));
    }
    int64_t H = x.shape()[x.rank() - 2], W = x.shape()[x.rank() - 1];
    int64_t H_out = pool_output_size(args, H, w.kH, w.sH, w.pH, w.dH, w.ceil_mode);
    int64_t W_out = pool_output_size(args, W, w.kW, w.sW, w.pW, w.dW, w.ceil_mode);
    PoolParams p{};
    check_pool_shapes(args, x, out, H_out, W_out, "out", p);
    if (indices && indices->shape() != out.shape()) {
        args.fail(fmt::format("indices has shape {}, expected {}.", shape_string(indices->shape()),
                              shape_string(out.shape())));
    }
    p.kH = uint32_t(w.kH), p.kW = uint32_t(w.kW);
    p.stride_h = uint32_t(w.sH), p.stride_w = uint32_t(w.sW);
    p.pad_h = uint32_t(w.pH), p.pad_w = uint32_t(w.pW);
    p.dil_h = uint32_t(w.dH), p.dil_w = uint32_t(w.dW);
    // The running maximum starts at the lowest value of T, passed as bits: -inf as float32 bits
    // (WGSL has no infinite literal; float16 converts it) or INT32_MIN.
    const bool is_int = storage == DType::i32;
    p.divisor = is_int ? std::numeric_limits<int32_t>::min() : int32_t(0xff800000u);

    uint32_t wg = rec.workgroup_size(128);
    // Max and comparisons are exact in float16, so T is the stored type here.
    std::string source = wgsl_alias(x.dtype());
    // WGSL may assume finite values in comparisons, so NaN is recognised from its bits (of the
    // value widened to f32: exact for float16).
    source += is_int ? "fn is_nan(v: T) -> bool { return false; }\n"
                       "fn start_value(bits: i32) -> T { return bits; }\n"
                     : "fn is_nan(v: T) -> bool {\n"
                       "    return (bitcast<u32>(f32(v)) & 0x7fffffffu) > 0x7f800000u;\n}\n"
                       "fn start_value(bits: i32) -> T { return T(bitcast<f32>(bits)); }\n";
    if (indices) {
        source +=
            "@group(0) @binding(3) var<storage, read_write> indices: array<i32>;\n"
            "fn store_index(i: u32, v: i32) { indices[i] = v; }\n";
    } else {
        source += "fn store_index(i: u32, v: i32) {}\n";
    }
    source += std::string(wgsl::ops_pool_pool_common) + std::string(wgsl::ops_pool_max_pool2d);
    Kernel k = rec.kernel(fmt::format("{}/{}", args.op(), wgsl_scalar(x.dtype())),
                          std::move(source), {{"WG", double(wg)}});
    if (indices) {
        dispatch_pool(rec, k, {x, out, Binding::uniform(p), *indices}, p, wg);
    } else {
        dispatch_pool(rec, k, {x, out, Binding::uniform(p)}, p, wg);
    }
}

}  // namespace wgx::ops
