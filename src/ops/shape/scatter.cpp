// aten.scatter.src, aten.scatter.value, aten.scatter_add.default and aten.scatter_reduce.two:
// out = self with src's elements (or a value) written, added or reduced at index along `dim`
// (scatter.wgsl: each output element gathers what lands on it, so no atomics are needed and
// the result is deterministic). Args: [self, dim, index, src | value, out] and, for
// scatter_reduce, [self, dim, index, src, reduce, include_self?, out] with reduce "sum",
// "prod", "mean", "amax" or "amin". Float32, float16 (computed in float32), int32 and int64
// ("mean" floats only). index (int64/int32) has self's rank, and no dim larger than src's or,
// off `dim`, than self's. Repeated indices: a plain scatter keeps the last write (PyTorch leaves
// it open). An index outside [0, size) writes nothing (PyTorch raises; a kernel cannot).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/registry.h"
#include "ops/shape/scatter.wgsl.h"

namespace wgx::ops {
namespace {

enum class ScatterMode : uint32_t {
    src = 0,
    value = 1,
    sum = 2,
    prod = 3,
    mean = 4,
    amax = 5,
    amin = 6
};

struct ScatterParams {
    uint32_t numel, rank, dim, n;
    uint32_t mode, include_self;
    float value;
    uint32_t pad;
    uint32_t out_sizes[8];
    uint32_t index_sizes[8];
    uint32_t index_strides[8];
    uint32_t src_strides[8];
};
static_assert(sizeof(ScatterParams) == 160);

void record_scatter(Recorder& rec, const Args& args, std::string_view label, ScatterMode mode,
                    bool include_self, double value, const Tensor* src, const Tensor& out) {
    const Tensor& self = args.tensor(0, "self");
    const Tensor& index = args.tensor(2, "index");
    const DType storage = storage_dtype(self.dtype());
    if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
        args.fail(
            fmt::format("{} tensors are not supported (float32, float16, int32 and int64 "
                        "are).",
                        dtype_name(self.dtype())));
    }
    if (mode == ScatterMode::mean && storage == DType::i32) {
        args.fail("reduce \"mean\" of integers is not supported (floats are).");
    }
    if (index.dtype() != DType::i64 && index.dtype() != DType::i32) {
        args.fail(fmt::format("index must be int64 or int32, got {}.", dtype_name(index.dtype())));
    }
    expect_float16_support(rec, args, self.dtype());
    expect_dtype(args, out, self.dtype(), "out");
    expect_shape(args, out, self.shape(), "out");
    const Shape s = self.rank() == 0 ? Shape{1} : self.shape();
    const Shape is = index.rank() == 0 ? Shape{1} : index.shape();
    if (is.size() != s.size() || s.size() > 8) {
        args.fail(fmt::format("index has shape {}; it needs self's rank {} (at most 8).",
                              shape_string(index.shape()), self.rank()));
    }
    const int64_t dim =
        wrap_dim(args, args.integer(1, "dim"), static_cast<int64_t>(s.size()), "dim");
    Shape ss = is;
    if (src) {
        expect_dtype(args, *src, self.dtype(), "src");
        ss = src->rank() == 0 ? Shape{1} : src->shape();
        if (ss.size() != s.size()) {
            args.fail(fmt::format("src has shape {}; it needs self's rank {}.",
                                  shape_string(src->shape()), self.rank()));
        }
    }
    for (size_t d = 0; d < s.size(); ++d) {
        if (is[d] > ss[d] || (static_cast<int64_t>(d) != dim && is[d] > s[d])) {
            args.fail(fmt::format("index has size {} in dim {}, more than src's {} or self's {}.",
                                  is[d], d, ss[d], s[d]));
        }
    }
    expect_indexable(args, self, "self");
    expect_indexable(args, out, "out");
    if (self.numel() == 0) return;
    if (index.numel() == 0) {
        rec.copy(self, out);
        return;
    }
    ScatterParams p{};
    p.numel = static_cast<uint32_t>(self.numel());
    p.rank = static_cast<uint32_t>(s.size());
    p.dim = static_cast<uint32_t>(dim);
    p.n = static_cast<uint32_t>(is[static_cast<size_t>(dim)]);
    p.mode = static_cast<uint32_t>(mode);
    p.include_self = include_self ? 1u : 0u;
    p.value = static_cast<float>(value);
    const auto index_strides = contiguous_strides(is);
    const auto src_strides = contiguous_strides(ss);
    for (size_t d = 0; d < s.size(); ++d) {
        p.out_sizes[d] = static_cast<uint32_t>(s[d]);
        p.index_sizes[d] = static_cast<uint32_t>(is[d]);
        p.index_strides[d] = static_cast<uint32_t>(index_strides[d]);
        p.src_strides[d] = static_cast<uint32_t>(src_strides[d]);
    }
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k =
        rec.kernel(fmt::format("{}/{}", label, dtype_name(storage)),
                   wgsl_storage_and_compute(self.dtype()) + std::string(wgsl::ops_shape_scatter),
                   {{"WG", double(wg)}});
    rec.dispatch(k, {self, index, src ? *src : self, out, Binding::uniform(p)},
                 rec.grid_1d(p.numel, wg));
}

class ScatterSrc final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.scatter.src"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 5);
        const Tensor& src = args.tensor(3, "src");
        record_scatter(rec, args, name(), ScatterMode::src, false, 0, &src, args.tensor(4, "out"));
    }
};

class ScatterValue final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.scatter.value"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 5);
        record_scatter(rec, args, name(), ScatterMode::value, false, args.number(3, "value"),
                       nullptr, args.tensor(4, "out"));
    }
};

class ScatterAdd final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.scatter_add.default"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 5);
        const Tensor& src = args.tensor(3, "src");
        record_scatter(rec, args, name(), ScatterMode::sum, true, 0, &src, args.tensor(4, "out"));
    }
};

class ScatterReduce final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.scatter_reduce.two"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 7);
        const auto* reduce = std::get_if<std::string>(&args[4].value());
        if (reduce == nullptr) args.fail("argument 4 (reduce) must be a string.");
        ScatterMode mode = ScatterMode::sum;
        if (*reduce == "sum") {
            mode = ScatterMode::sum;
        } else if (*reduce == "prod") {
            mode = ScatterMode::prod;
        } else if (*reduce == "mean") {
            mode = ScatterMode::mean;
        } else if (*reduce == "amax") {
            mode = ScatterMode::amax;
        } else if (*reduce == "amin") {
            mode = ScatterMode::amin;
        } else {
            args.fail(
                fmt::format("reduce must be \"sum\", \"prod\", \"mean\", \"amax\" or "
                            "\"amin\", got \"{}\".",
                            *reduce));
        }
        const bool include_self =
            args.size() == 7 && !args.is_none(5) ? args.boolean(5, "include_self") : true;
        const Tensor& src = args.tensor(3, "src");
        record_scatter(rec, args, name(), mode, include_self, 0, &src,
                       args.tensor(args.size() - 1, "out"));
    }
};

}  // namespace

const Op& scatter_src_op() {
    static const ScatterSrc op;
    return op;
}
const Op& scatter_value_op() {
    static const ScatterValue op;
    return op;
}
const Op& scatter_add_op() {
    static const ScatterAdd op;
    return op;
}
const Op& scatter_reduce_op() {
    static const ScatterReduce op;
    return op;
}

}  // namespace wgx::ops
