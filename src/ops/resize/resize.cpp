#include "ops/resize/resize.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

namespace wgx::ops {

std::pair<double, double> check_resize(const Args& args, const Tensor& x, const Tensor& out,
                                       size_t size_index, size_t scales_index, ResizeParams& p) {
    if (x.rank() != 4) {
        args.fail(
            fmt::format("input must be 4-D [N, C, H, W], got shape {}.", shape_string(x.shape())));
    }
    if (out.dtype() != x.dtype()) {
        args.fail(fmt::format("out must have the dtype of input ({}), got {}.",
                              dtype_name(x.dtype()), dtype_name(out.dtype())));
    }
    if (out.rank() != 4 || out.shape()[0] != x.shape()[0] || out.shape()[1] != x.shape()[1]) {
        args.fail(fmt::format("out {} must be [N, C, H_out, W_out] for input {}.",
                              shape_string(out.shape()), shape_string(x.shape())));
    }
    const int64_t H = x.shape()[2], W = x.shape()[3];
    const bool has_size = !args.is_none(size_index);
    const bool has_scales = !args.is_none(scales_index);
    if (has_size == has_scales) {
        args.fail("exactly one of output_size and scale_factors must be given.");
    }
    std::pair<double, double> scales{0.0, 0.0};
    Shape expected = out.shape();
    if (has_size) {
        std::vector<int64_t> size = args.int_list(size_index, "output_size");
        if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
            args.fail(fmt::format("output_size must be 2 positive ints, got {}.",
                                  args[size_index].describe()));
        }
        expected[2] = size[0];
        expected[3] = size[1];
    } else {
        std::vector<double> s = args.number_list(scales_index, "scale_factors");
        if (s.size() != 2 || !(s[0] > 0) || !(s[1] > 0) || !std::isfinite(s[0]) ||
            !std::isfinite(s[1])) {
            args.fail(fmt::format("scale_factors must be 2 positive finite numbers, got {}.",
                                  args[scales_index].describe()));
        }
        scales = {s[0], s[1]};
        // PyTorch: the output size is the input size times the scale, truncated.
        expected[2] = static_cast<int64_t>(double(H) * s[0]);
        expected[3] = static_cast<int64_t>(double(W) * s[1]);
    }
    if (out.shape() != expected) {
        args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                              shape_string(expected)));
    }
    if (x.numel() > std::numeric_limits<int32_t>::max() ||
        out.numel() > std::numeric_limits<int32_t>::max() || expected[2] >= (1 << 24) ||
        expected[3] >= (1 << 24)) {
        args.fail("tensors beyond 2^31 elements or sides beyond 2^24 are not supported.");
    }
    p.planes = uint32_t(x.shape()[0] * x.shape()[1]);
    p.H_in = uint32_t(H);
    p.W_in = uint32_t(W);
    p.H_out = uint32_t(expected[2]);
    p.W_out = uint32_t(expected[3]);
    p.total = uint32_t(out.numel());
    return scales;
}

float resize_scale(double scale_factor, int64_t in, int64_t out) {
    if (scale_factor > 0) return static_cast<float>(1.0 / scale_factor);
    return static_cast<float>(in) / static_cast<float>(out);
}

void dispatch_resize(Recorder& rec, const Kernel& kernel, const Tensor& x, const Tensor& out,
                     const ResizeParams& p, uint32_t wg) {
    rec.dispatch(kernel, {x, out, Binding::uniform(p)}, rec.grid_1d(p.total, wg));
}

}  // namespace wgx::ops
