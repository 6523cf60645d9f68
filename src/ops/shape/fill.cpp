#include "ops/shape/fill.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/dispatch_geometry.h"
#include "ops/shape/fill.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

struct FillParams {
    uint32_t words, pattern, pad0, pad1;
};
static_assert(sizeof(FillParams) == 16);

// IEEE half bits of v (round to nearest even), for float16 fills.
uint16_t half_bits(float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));
    if (exp >= 31) return uint16_t(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return uint16_t(sign);
        mant |= 0x800000u;
        uint32_t shift = uint32_t(14 - exp);
        uint32_t h = mant >> shift;
        uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1))) ++h;
        return uint16_t(sign | h);
    }
    uint32_t h = (uint32_t(exp) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;
    return uint16_t(sign | h);
}

uint32_t pattern_for(DType dtype, double value) {
    switch (storage_dtype(dtype)) {
        case DType::f32: {
            float f = static_cast<float>(value);
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            return bits;
        }
        case DType::f16: {
            uint32_t h = half_bits(static_cast<float>(value));
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

}  // namespace

void record_fill(Recorder& rec, const Args& args, const Tensor& out, double value) {
    if (storage_dtype(out.dtype()) == DType::i32 && std::isfinite(value) &&
        (value < -2147483648.0 || value > 2147483647.0)) {
        args.fail(fmt::format("fill value {} does not fit the int32 the GPU stores.", value));
    }
    uint32_t lanes = lanes_per_word(out.dtype());
    FillParams p{static_cast<uint32_t>(ceil_div(out.numel(), lanes)), pattern_for(out.dtype(), value),
                 0, 0};
    uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel("fill", std::string(wgsl::ops_shape_fill), {{"WG", double(wg)}});
    rec.dispatch(k, {out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
}

void FillOp::record(Recorder& rec, const Args& args) const {
    if (args.size() < 1) args.fail("expects at least the out argument.");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    // The result's shape: the size list (full, zeros, ones) or self's (the _like forms).
    Shape want = out.shape();
    if (const auto* size = std::get_if<std::vector<int64_t>>(&args[0].value())) {
        want = *size;
    } else if (const auto* self = std::get_if<Tensor>(&args[0].value())) {
        want = self->shape();
    }
    if (want != out.shape()) {
        args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                              shape_string(want)));
    }
    double value = value_index_ < 0 ? fixed_ : args.number(size_t(value_index_), "fill_value");
    record_fill(rec, args, out, value);
}

}  // namespace wgx::ops
