// aten.constant_pad_nd.default: out = self padded with `value`; pad holds (before, after) pairs
// from the last dim backwards, and negative pads crop. Args: [self, pad, value, out].
// Every dtype (value is converted to it as PyTorch does).
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "base/half.h"
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

uint32_t fill_bits(DType dtype, double value) {
    switch (storage_dtype(dtype)) {
        case DType::f32: return std::bit_cast<uint32_t>(static_cast<float>(value));
        case DType::f16: return float_to_half(static_cast<float>(value));
        case DType::boolean: return value != 0 ? 1u : 0u;
        default: break;
    }
    // Integers: truncated toward zero, then the low bits of the element (int32, uint8, int8).
    auto bits = static_cast<uint32_t>(static_cast<int64_t>(value));
    return device_size(dtype) == 1 ? bits & 0xffu : bits;
}

class ConstantPadNd final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.constant_pad_nd.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        std::vector<int64_t> pad = int_list_arg(args, 1, "pad");
        double value = args.size() == 4 && !args.is_none(2) ? args.number(2, "value") : 0.0;
        if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * self.rank()) {
            args.fail(fmt::format("pad has {} entries; expected an even count up to {} (2 x rank).",
                                  pad.size(), 2 * self.rank()));
        }
        auto strides = contiguous_strides(self.shape());
        Shape shape = self.shape();
        std::vector<CopyDim> copy;
        for (int64_t d = 0; d < self.rank(); ++d) {
            int64_t k = self.rank() - 1 - d;  // pair index for dim d
            int64_t lo = 2 * k < static_cast<int64_t>(pad.size()) ? pad[2 * k] : 0;
            int64_t hi = 2 * k < static_cast<int64_t>(pad.size()) ? pad[2 * k + 1] : 0;
            shape[d] = self.shape()[d] + lo + hi;
            if (shape[d] < 1) {
                args.fail(fmt::format("pad ({}, {}) leaves dim {} of size {} with {} elements.", lo,
                                      hi, d, self.shape()[d], shape[d]));
            }
            copy.push_back({shape[d], strides[d], 0, self.shape()[d], lo});
        }
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, shape, "out");
        expect_indexable(args, out, "out");
        expect_indexable(args, self, "self");
        record_gather(rec, name(), self, out, std::move(copy), 0, CopyMode::pad_fill,
                      fill_bits(self.dtype(), value));
    }
};

}  // namespace

const Op& constant_pad_nd_op() {
    static const ConstantPadNd op;
    return op;
}

}  // namespace wgx::ops
