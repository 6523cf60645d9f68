// aten.logical_and / logical_or / logical_xor (.default): out = truth(self) <op> truth(other),
// broadcast, as bool. Args: [self, other, out (bool)]. The inputs may have any dtypes, not
// necessarily one (PyTorch takes a bool mask with a float tensor); each is read as stored.
#include <fmt/format.h>

#include <algorithm>

#include "core/dispatch_geometry.h"
#include "ops/common/broadcast.h"
#include "ops/elementwise/logical_binary.wgsl.h"
#include "ops/op_table.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct LogicalParams {
    uint32_t numel, pad0, pad1, pad2;
    uint32_t out_sizes[8];
    uint32_t a_strides[8];
    uint32_t b_strides[8];
};
static_assert(sizeof(LogicalParams) == 112);

// WGSL of `fn <fn>(i: u32) -> bool`: whether element i of `buffer` (of `dtype`) is nonzero.
// Floats test every bit but the sign, so that -0.0 is false and NaN true.
std::string truth_reader(std::string_view fn, std::string_view buffer, DType dtype) {
    std::string_view test;
    switch (device_size(dtype)) {
        case 1: test = "((BUF[i / 4u] >> (8u * (i % 4u))) & 0xffu) != 0u"; break;
        case 2: test = "((BUF[i / 2u] >> (16u * (i % 2u))) & 0x7fffu) != 0u"; break;
        default: test = is_float(dtype) ? "(BUF[i] & 0x7fffffffu) != 0u" : "BUF[i] != 0u"; break;
    }
    std::string body(test);
    for (size_t at; (at = body.find("BUF")) != std::string::npos;) body.replace(at, 3, buffer);
    return fmt::format("fn {}(i: u32) -> bool {{ return {}; }}\n", fn, body);
}

struct LogicalRow {
    std::string_view name;
    std::string_view combine;  // WGSL body of combine(x, y)
};

constexpr LogicalRow kLogicalOps[] = {
    {"aten.logical_and.default", "return x && y;"},
    {"aten.logical_or.default", "return x || y;"},
    {"aten.logical_xor.default", "return x != y;"},
};

class LogicalBinaryOp final : public BuiltinOp {
  public:
    constexpr LogicalBinaryOp(const LogicalRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& a = args.tensor(0, "self");
        const Tensor& b = args.tensor(1, "other");
        const Tensor& out = args.tensor(2, "out");
        if (out.dtype() != DType::boolean) {
            args.fail(fmt::format("out must be bool, got {}.", dtype_name(out.dtype())));
        }
        const auto shape = broadcast_shapes(a.shape(), b.shape());
        if (!shape) {
            args.fail(fmt::format("shapes {} and {} are not broadcastable.",
                                  shape_string(a.shape()), shape_string(b.shape())));
        }
        if (out.shape() != *shape) {
            args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                                  shape_string(*shape)));
        }
        if (out.numel() == 0) return;
        LogicalParams p{};
        p.numel = static_cast<uint32_t>(out.numel());
        const auto sizes = padded_sizes(*shape);
        const auto sa = broadcast_strides(a.shape(), *shape);
        const auto sb = broadcast_strides(b.shape(), *shape);
        std::copy(sizes.begin(), sizes.end(), p.out_sizes);
        std::copy(sa.begin(), sa.end(), p.a_strides);
        std::copy(sb.begin(), sb.end(), p.b_strides);
        const uint32_t wg = rec.workgroup_size(256);
        std::string source =
            truth_reader("truth_a", "a", a.dtype()) + truth_reader("truth_b", "b", b.dtype()) +
            fmt::format("fn combine(x: bool, y: bool) -> bool {{ {} }}\n", row_.combine) +
            std::string(wgsl::ops_elementwise_logical_binary);
        Kernel k = rec.kernel(
            fmt::format("{}/{}_{}", row_.name, dtype_name(a.dtype()), dtype_name(b.dtype())),
            std::move(source), {{"WG", double(wg)}});
        rec.dispatch(k, {a, b, out, Binding::uniform(p)},
                     rec.grid_1d(ceil_div(out.numel(), 4), wg));
    }

  private:
    LogicalRow row_;
};

}  // namespace

std::span<const Op* const> logical_binary_ops() {
    static const OpTable<LogicalBinaryOp> table(kLogicalOps);
    return table.ops();
}

}  // namespace wgx::ops
