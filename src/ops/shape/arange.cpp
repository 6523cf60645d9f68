// aten.arange.start_step and aten.arange.default: out[i] = start + i * step for the
// ceil((end - start) / step) elements out holds. Args: [start, end, step?, dtype?, layout?,
// device?, pin_memory?, out] and [end, dtype?, layout?, device?, pin_memory?, out]. Out is
// int64, int32 or float32 (the dtype the export gives it); float values are start + i * step
// in float32.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/dispatch_geometry.h"
#include "ops/registry.h"
#include "ops/shape/arange.wgsl.h"

namespace wgx::ops {
namespace {

struct ArangeParams {
    uint32_t numel;
    float start_f, step_f;
    uint32_t pad0;
    int32_t start_i, step_i;
    uint32_t pad1, pad2;
};
static_assert(sizeof(ArangeParams) == 32);

void record_arange(Recorder& rec, const Args& args, std::string_view label, double start,
                   double end, double step, const Tensor& out) {
    if (!(step != 0) || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
        args.fail(fmt::format("start {}, end {} and step {} must be finite, step nonzero.", start,
                              end, step));
    }
    const double count = std::ceil((end - start) / step);
    const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
    if (out.rank() != 1 || out.shape()[0] != n) {
        args.fail(fmt::format("out has shape {}; arange({}, {}, {}) has {} elements.",
                              shape_string(out.shape()), start, end, step, n));
    }
    const DType storage = storage_dtype(out.dtype());
    if (storage != DType::i32 && storage != DType::f32) {
        args.fail(
            fmt::format("out must be int64, int32 or float32, got {}.", dtype_name(out.dtype())));
    }
    const bool integer = storage == DType::i32;
    if (integer) {
        const double last = start + static_cast<double>(std::max<int64_t>(n - 1, 0)) * step;
        for (double v : {start, step, last}) {
            if (v != std::trunc(v) || v < std::numeric_limits<int32_t>::min() ||
                v > std::numeric_limits<int32_t>::max()) {
                args.fail(
                    fmt::format("integer arange({}, {}, {}) does not fit the int32 the GPU "
                                "stores.",
                                start, end, step));
            }
        }
    }
    if (n == 0) return;
    ArangeParams p{};
    p.numel = static_cast<uint32_t>(n);
    p.start_f = static_cast<float>(start);
    p.step_f = static_cast<float>(step);
    p.start_i = integer ? static_cast<int32_t>(start) : 0;
    p.step_i = integer ? static_cast<int32_t>(step) : 0;
    const uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel(fmt::format("{}/{}", label, integer ? "int" : "float"),
                          std::string(wgsl::ops_shape_arange),
                          {{"WG", double(wg)}, {"INT", integer ? 1.0 : 0.0}});
    rec.dispatch(k, {out, Binding::uniform(p)}, rec.grid_1d(p.numel, wg));
}

class ArangeStartStep final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.arange.start_step"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 8);
        const double step = args.size() > 3 && !args.is_none(2) ? args.number(2, "step") : 1.0;
        record_arange(rec, args, name(), args.number(0, "start"), args.number(1, "end"), step,
                      args.tensor(args.size() - 1, "out"));
    }
};

class ArangeDefault final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.arange.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 6);
        record_arange(rec, args, name(), 0.0, args.number(0, "end"), 1.0,
                      args.tensor(args.size() - 1, "out"));
    }
};

}  // namespace

const Op& arange_start_step_op() {
    static const ArangeStartStep op;
    return op;
}

const Op& arange_op() {
    static const ArangeDefault op;
    return op;
}

}  // namespace wgx::ops
