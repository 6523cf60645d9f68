// The ops that fill a tensor with one value: full, full_like, zeros, ones, ... (the table below).
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "base/half.h"
#include "core/dispatch_geometry.h"
#include "ops/op_table.h"
#include "ops/registry.h"
#include "ops/shape/fill.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

struct FillParams {
    uint32_t words, pattern, pad0, pad1;
};
static_assert(sizeof(FillParams) == 16);

uint32_t pattern_for(DType dtype, double value) {
    switch (storage_dtype(dtype)) {
        case DType::f32: {
            float f = static_cast<float>(value);
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            return bits;
        }
        case DType::f16: {
            uint32_t h = float_to_half(static_cast<float>(value));
            return h | (h << 16);
        }
        case DType::i32: return static_cast<uint32_t>(static_cast<int32_t>(std::trunc(value)));
        case DType::boolean: return value != 0 ? 0x01010101u : 0u;
        case DType::u8:
        case DType::i8: {
            uint32_t b = static_cast<uint32_t>(static_cast<int32_t>(std::trunc(value))) & 0xffu;
            return b * 0x01010101u;
        }
        default: break;
    }
    return 0;
}

// out[:] = value, converted to out's dtype as PyTorch does (bool: nonzero; integers truncate
// toward zero).
void record_fill(Recorder& rec, const Args& args, const Tensor& out, double value) {
    if (storage_dtype(out.dtype()) == DType::i32 && std::isfinite(value) &&
        (value < -2147483648.0 || value > 2147483647.0)) {
        args.fail(fmt::format("fill value {} does not fit the int32 the GPU stores.", value));
    }
    uint32_t lanes = lanes_per_word(out.dtype());
    FillParams p{static_cast<uint32_t>(ceil_div(out.numel(), lanes)),
                 pattern_for(out.dtype(), value), 0, 0};
    uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel("fill", std::string(wgsl::ops_shape_fill), {{"WG", double(wg)}});
    rec.dispatch(k, {out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
}

// The fill ops: graph name, the argument that holds the value (-1: the fixed value instead) and
// the fixed value. Every one ends in `out`, whose shape and dtype are the result's; the first
// argument is the size list (full, zeros, ones) or a tensor to take the shape of (the _like
// forms and fill.Scalar).
struct FillRow {
    std::string_view name;
    int value_index;
    double fixed = 0;
    bool scalar = false;  // the result is rank 0 (scalar_tensor)
};

constexpr FillRow kFillOps[] = {
    {"aten.full.default", 1},  // [size, fill_value, dtype?, layout?, device?, pin_memory?, out]
    {"aten.full_like.default", 1},  // [self, fill_value, dtype?, ..., memory_format?, out]
    {"aten.zeros.default", -1, 0},  // [size, dtype?, layout?, device?, pin_memory?, out]
    {"aten.ones.default", -1, 1},
    {"aten.zeros_like.default", -1, 0},  // [self, dtype?, ..., memory_format?, out]
    {"aten.ones_like.default", -1, 1},
    {"aten.fill.Scalar", 1},  // [self, value, out]
    // [s, dtype?, layout?, device?, pin_memory?, out]: a rank-0 tensor holding s.
    {"aten.scalar_tensor.default", 0, 0, /*scalar=*/true},
};

class FillOp final : public BuiltinOp {
  public:
    constexpr FillOp(const FillRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }
    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 1) args.fail("expects at least the out argument.");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        // The result's shape: the size list (full, zeros, ones) or self's (the _like forms).
        Shape want = row_.scalar ? Shape{} : out.shape();
        if (const auto* size = std::get_if<std::vector<int64_t>>(&args[0].value())) {
            want = *size;
        } else if (const auto* self = std::get_if<Tensor>(&args[0].value())) {
            want = self->shape();
        }
        if (want != out.shape()) {
            args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                                  shape_string(want)));
        }
        double value =
            row_.value_index < 0 ? row_.fixed : args.number(size_t(row_.value_index), "fill_value");
        record_fill(rec, args, out, value);
    }

  private:
    FillRow row_;
};

}  // namespace

std::span<const Op* const> fill_ops() {
    static const OpTable<FillOp> table(kFillOps);
    return table.ops();
}

}  // namespace wgx::ops
