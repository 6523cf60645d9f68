// torchao.choose_qparams_affine.default: a scale and a zero point for each block of the input,
// as torchao computes them (the formulas: choose_qparams_affine.wgsl). ExecuTorch's 8da4w
// exports compute each linear layer's per-row activation parameters with it.
// Args: [input float32, mapping_type ("ASYMMETRIC", "SYMMETRIC", "SYMMETRIC_NO_CLIPPING_ERR"),
// block_size (one entry per dim), target_dtype (scalar type or none), quant_min, quant_max
// (none: the target dtype's range), eps (none: float32's smallest normal), scale_dtype,
// zero_point_dtype, keepdim, outs (list: scale float32, zero_point int8/int32/int64, one value
// per block)]. A block is a contiguous run of elements: block_size is ones, then one entry
// dividing its dim, then whole dims (per token, per group along the last dim, per tensor).
#include <fmt/format.h>

#include <limits>

#include "ops/common/dims.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/quant/choose_qparams_affine.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct QparamsParams {
    uint32_t blocks, block;
    int32_t qmin, qmax;
    float eps;
    uint32_t pad0, pad1, pad2;
};
static_assert(sizeof(QparamsParams) == 32);

// Elements per block, or a failure naming block_size when its blocks are not contiguous runs.
int64_t contiguous_block(const Args& args, const Shape& dims, const std::vector<int64_t>& bs) {
    if (bs.size() != dims.size()) {
        args.fail(fmt::format("block_size has {} entries for an input of rank {}.", bs.size(),
                              dims.size()));
    }
    size_t i = 0;
    while (i < dims.size() && bs[i] == 1) ++i;
    if (i == dims.size()) return 1;
    if (bs[i] < 1 || dims[i] % bs[i] != 0) {
        args.fail(fmt::format("block_size[{}] = {} does not divide the input's dim {} ({}).", i,
                              bs[i], i, dims[i]));
    }
    int64_t block = bs[i];
    for (size_t j = i + 1; j < dims.size(); ++j) {
        if (bs[j] != dims[j]) {
            args.fail(
                fmt::format("block_size {} for an input {}: only blocks of contiguous "
                            "elements are supported (ones, one dividing entry, then whole "
                            "dims).",
                            fmt::join(bs, ", "), shape_string(dims)));
        }
        block *= bs[j];
    }
    return block;
}

class ChooseQparamsAffine final : public BuiltinOp {
  public:
    std::string_view name() const override { return "torchao.choose_qparams_affine.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(11, 11);
        const Tensor& x = args.tensor(0, "input");
        const auto* mode_text = std::get_if<std::string>(&args[1].value());
        if (!mode_text) args.fail("mapping_type must be a string.");
        uint32_t mode = 0;
        if (*mode_text == "ASYMMETRIC") {
            mode = 0;
        } else if (*mode_text == "SYMMETRIC") {
            mode = 1;
        } else if (*mode_text == "SYMMETRIC_NO_CLIPPING_ERR") {
            mode = 2;
        } else {
            args.fail(
                fmt::format("mapping_type {} is not ASYMMETRIC, SYMMETRIC or "
                            "SYMMETRIC_NO_CLIPPING_ERR.",
                            *mode_text));
        }
        const std::vector<int64_t> block_size = int_list_arg(args, 2, "block_size");
        const std::optional<DType> target = optional_scalar_type_arg(args, 3, "target_dtype");
        int64_t qmin = 0, qmax = 0;
        if (target == DType::i8) {
            qmin = -128, qmax = 127;
        } else if (target == DType::u8) {
            qmin = 0, qmax = 255;
        } else if (target == DType::i32) {
            qmin = std::numeric_limits<int32_t>::min(), qmax = std::numeric_limits<int32_t>::max();
        } else if (target) {
            args.fail(fmt::format("target_dtype {} is not an integer type.", dtype_name(*target)));
        }
        if (!args.is_none(4)) qmin = args.integer(4, "quant_min");
        if (!args.is_none(5)) qmax = args.integer(5, "quant_max");
        if (!target && (args.is_none(4) || args.is_none(5))) {
            args.fail("without target_dtype, quant_min and quant_max must both be given.");
        }
        if (qmin >= qmax || qmin < std::numeric_limits<int32_t>::min() ||
            qmax > std::numeric_limits<int32_t>::max()) {
            args.fail(
                fmt::format("quant_min {} and quant_max {} are not an int32 range.", qmin, qmax));
        }
        const double eps =
            args.is_none(6) ? double(std::numeric_limits<float>::min()) : args.number(6, "eps");
        if (!(eps >= 0)) args.fail(fmt::format("eps must be >= 0, got {}.", eps));
        if (!args.is_none(7)) {
            const auto scale_dtype = optional_scalar_type_arg(args, 7, "scale_dtype");
            if (scale_dtype != DType::f32) args.fail("scale_dtype must be float32 or none.");
        }
        optional_scalar_type_arg(args, 8, "zero_point_dtype");  // the outputs' dtype decides
        args.boolean(9, "keepdim");
        const auto outs = args.tensor_list(10, "outs");
        if (outs.size() != 2 || !outs[0] || !outs[1]) {
            args.fail(
                fmt::format("outs must be two tensors (scale, zero_point), got {}.", outs.size()));
        }
        const Tensor& scale = *outs[0];
        const Tensor& zp = *outs[1];
        expect_dtype(args, x, DType::f32, "input");
        expect_dtype(args, scale, DType::f32, "scale");
        const DType zt = zp.dtype();
        if (zt != DType::i8 && zt != DType::i32 && zt != DType::i64) {
            args.fail(
                fmt::format("zero_point must be int8, int32 or int64, got {}.", dtype_name(zt)));
        }
        if (zt == DType::i8 && (qmin < -128 || qmax > 127)) {
            args.fail(fmt::format("an int8 zero_point cannot hold the range {}..{}.", qmin, qmax));
        }
        const int64_t block = contiguous_block(args, x.shape(), block_size);
        const int64_t blocks = x.numel() / block;
        if (scale.numel() != blocks || zp.numel() != blocks) {
            args.fail(
                fmt::format("scale {} and zero_point {} must hold one value per block ({} "
                            "blocks of {}).",
                            shape_string(scale.shape()), shape_string(zp.shape()), blocks, block));
        }
        expect_indexable(args, x, "input");
        if (blocks == 0) return;

        const QparamsParams p{
            uint32_t(blocks), uint32_t(block), int32_t(qmin), int32_t(qmax), float(eps), 0, 0, 0};
        const uint32_t pack = zt == DType::i8 ? 4 : 1;
        uint32_t preferred = 64;
        while (preferred < 256 && preferred < p.block) preferred *= 2;
        const uint32_t wg = rec.workgroup_size(preferred);
        const bool subgroups = use_subgroups(rec);
        Kernel k = rec.kernel(fmt::format("{}/{}{}", name(), pack == 4 ? "zp8" : "zp32",
                                          subgroups ? "_subgroups" : ""),
                              workgroup_reduce_prelude(DType::f32, subgroups) +
                                  std::string(wgsl::ops_quant_choose_qparams_affine),
                              {{"WG", double(wg)}, {"MODE", double(mode)}, {"PACK", double(pack)}});
        rec.dispatch(k, {x, scale, zp, Binding::uniform(p)},
                     rec.grid_1d((p.blocks + pack - 1) / pack, 1));
    }
};

}  // namespace

const Op& choose_qparams_affine_op() {
    static const ChooseQparamsAffine op;
    return op;
}

}  // namespace wgx::ops
