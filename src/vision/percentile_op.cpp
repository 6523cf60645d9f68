#include "vision/percentile_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "vision/percentile_histogram.wgsl.h"
#include "vision/percentile_select.wgsl.h"

namespace wgx::vision {

namespace {

// Mirrors `Params` in percentile_histogram.wgsl.
struct HistogramParams {
    uint32_t n, shift, first_pass, pad;
};
static_assert(sizeof(HistogramParams) == 16);

// Mirrors `Params` in percentile_select.wgsl.
struct SelectParams {
    uint32_t mode, shift, pad0, pad1;
    uint32_t rank[4];
    float frac_low, frac_high, pad2, pad3;
};
static_assert(sizeof(SelectParams) == 48);
static_assert(offsetof(SelectParams, rank) == 16);
static_assert(offsetof(SelectParams, frac_low) == 32);

enum SelectMode : uint32_t { kInit = 0, kChoose = 1, kFinish = 2 };

// The two order statistics numpy's linear percentile mixes, and the weight of the second.
struct Ranks {
    uint32_t k0, k1;
    float frac;
};

Ranks ranks_of(double percentile, int64_t n) {
    const double pos = double(n - 1) * percentile / 100.0;
    const double k0 = std::floor(pos);
    Ranks r;
    r.k0 = uint32_t(k0);
    r.k1 = uint32_t(std::min<double>(k0 + 1, double(n - 1)));
    r.frac = float(pos - k0);
    return r;
}

}  // namespace

PercentileOp::PercentileOp(double low, double high) : low_(low), high_(high) {
    if (!(low >= 0 && low <= high && high <= 100)) {
        throw InvalidArgument(
            fmt::format("vision.percentiles: need 0 <= low <= high <= 100, got "
                        "{} and {}.",
                        low, high));
    }
}

void PercentileOp::record(Recorder& rec, const Args& args) const {
    args.expect_count(2, 2);
    const Tensor& values = args.tensor(0, "values");
    const Tensor& out = args.tensor(1, "out");
    if (values.dtype() != DType::f32) {
        args.fail(fmt::format("values must be float32, got {}.", dtype_name(values.dtype())));
    }
    const int64_t n = values.numel();
    if (n < 1 || n > std::numeric_limits<int32_t>::max()) {
        args.fail(fmt::format("values must have 1..2^31-1 elements, got {}.", n));
    }
    if (out.dtype() != DType::f32 || out.shape() != Shape{2}) {
        args.fail(fmt::format("out must be float32 [2], got {} {}.", dtype_name(out.dtype()),
                              shape_string(out.shape())));
    }
    Tensor histogram = rec.scratch(DType::i32, {4 * 256});  // read as u32 by the shaders
    Tensor state = rec.scratch(DType::i32, {8});            // prefix[4], remaining rank[4]

    const Ranks lo = ranks_of(low_, n), hi = ranks_of(high_, n);
    SelectParams sp{};
    sp.rank[0] = lo.k0;
    sp.rank[1] = lo.k1;
    sp.rank[2] = hi.k0;
    sp.rank[3] = hi.k1;
    sp.frac_low = lo.frac;
    sp.frac_high = hi.frac;

    // Histogram: a fixed number of workgroups strides over the elements, so each workgroup's
    // private histogram is merged into the global one once, not once per 256 elements.
    const uint32_t wg = rec.workgroup_size(256);
    const uint32_t groups = uint32_t(std::clamp<int64_t>((n + wg - 1) / wg, 1, 64));
    Kernel hist = rec.kernel("vision.percentiles/histogram",
                             std::string(wgsl::vision_percentile_histogram), {{"WG", double(wg)}});
    Kernel select =
        rec.kernel("vision.percentiles/select", std::string(wgsl::vision_percentile_select));
    sp.mode = kInit;
    rec.dispatch(select, {histogram, state, out, Binding::uniform(sp)}, Grid{1, 1, 1});
    for (uint32_t pass = 0; pass < 4; ++pass) {
        const uint32_t shift = 24 - 8 * pass;
        HistogramParams hp{uint32_t(n), shift, pass == 0 ? 1u : 0u, 0};
        rec.dispatch(hist, {values, state, histogram, Binding::uniform(hp)}, Grid{groups, 1, 1});
        sp.mode = kChoose;
        sp.shift = shift;
        rec.dispatch(select, {histogram, state, out, Binding::uniform(sp)}, Grid{1, 1, 1});
    }
    sp.mode = kFinish;
    rec.dispatch(select, {histogram, state, out, Binding::uniform(sp)}, Grid{1, 1, 1});
}

}  // namespace wgx::vision
