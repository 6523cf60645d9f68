// Rotary position embeddings, as ExecuTorch's Vulkan backend fuses them (one kernel,
// rotary_emb.wgsl, in three layouts; outputs computed in f32, stored as the inputs):
//
// et_vk.apply_rotary_emb.default (Llama, examples/models/llama/rope.py): pairs (2i, 2i + 1),
//   out[2i] = x[2i] c - x[2i+1] s, out[2i+1] = x[2i] s + x[2i+1] c, c = cos[s, i], s = sin[s, i].
//   Args: [xq [B, S, Hq, Dh], xk [B, S, Hk, Dh], freqs_cos [S, Dh/2], freqs_sin [S, Dh/2],
//   (xq_out, xk_out)].
// et_vk.apply_rotary_emb_hf.default (HF rotate_half): out = x cos + rotate_half(x) sin over
//   the first `rot` elements of each head row (rot = freqs' last dim, even, <= Dh), the rest
//   copied; freqs rows start_pos .. start_pos + S - 1 are used. start_pos is the cache
//   position, read on the GPU when it is a live integer (wgx::LiveInt), so decode steps replay.
//   Args: [xq, xk, freqs_cos [P, rot], freqs_sin [P, rot], start_pos, (xq_out, xk_out)].
// et_vk.apply_rotary_emb_interleaved.default (EdgeTAM, complex pairs): x [B, N, C],
//   freqs_cis of any shape with N * C elements read flat as [N, C/2, (cos, sin)].
//   Args: [x, freqs_cis, out].
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/llm/rotary_emb.wgsl.h"
#include "ops/norm/norm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct RotaryParams {
    uint32_t total, row, heads, seq;
    uint32_t rot, freq_row, start, start_slot;
    uint32_t positions, pad0, pad1, pad2;
};
static_assert(sizeof(RotaryParams) == 48);
static_assert(offsetof(RotaryParams, rot) == 16);
static_assert(offsetof(RotaryParams, positions) == 32);

enum class RotaryMode : uint32_t { llama = 0, rotate_half = 1, complex_pairs = 2 };

// x [..., S, H, Dh] (the caller checked the shape) into out through one kernel dispatch.
void record_rotary(Recorder& rec, std::string_view label, RotaryMode mode, DType dt,
                   const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor& out,
                   int64_t seq, int64_t heads, int64_t rot, int64_t freq_row, LiveInt start) {
    const int64_t row = x.shape().back();
    const int64_t positions = cos.numel() / std::max<int64_t>(1, freq_row);
    RotaryParams p{uint32_t(x.numel()),
                   uint32_t(row),
                   uint32_t(heads),
                   uint32_t(seq),
                   uint32_t(rot),
                   uint32_t(freq_row),
                   uint32_t(start.value),
                   start.slot,
                   uint32_t(positions),
                   0,
                   0,
                   0};
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(fmt::format("{}/{}", label, wgsl_scalar(dt)),
                          wgsl_alias(dt, "S") + std::string(wgsl::ops_llm_rotary_emb),
                          {{"WG", double(wg)}, {"MODE", double(uint32_t(mode))}});
    rec.dispatch(k, {x, cos, sin, out, Binding::uniform(p), rec.live_ints()},
                 rec.grid_1d(p.total, wg));
}

// The checks xq and xk share in the two-tensor forms: [B, S, H, Dh] each, B, S and Dh alike;
// returns {S, Dh}.
std::pair<int64_t, int64_t> check_q_and_k(const Args& args, const Tensor& xq, const Tensor& xk) {
    if (xq.rank() != 4 || xk.rank() != 4) {
        args.fail(fmt::format("xq and xk must be 4-D [B, S, H, Dh], got {} and {}.",
                              shape_string(xq.shape()), shape_string(xk.shape())));
    }
    const Shape& q = xq.shape();
    const Shape& k = xk.shape();
    if (q[0] != k[0] || q[1] != k[1] || q[3] != k[3]) {
        args.fail(fmt::format("xq {} and xk {} must agree in B, S and Dh.", shape_string(q),
                              shape_string(k)));
    }
    if (q[3] % 2 != 0) {
        args.fail(fmt::format("the head size Dh must be even, got {}.", q[3]));
    }
    expect_indexable(args, xq, "xq");
    expect_indexable(args, xk, "xk");
    return {q[1], q[3]};
}

// (xq_out, xk_out) from one tensor list or two tensors, each with its input's dtype and shape.
std::pair<Tensor, Tensor> two_outputs(const Args& args, size_t first, const Tensor& xq,
                                      const Tensor& xk) {
    auto outs = output_list(args, first, 2);
    if (!outs[1]) args.fail("the second output (xk_out) is absent.");
    for (const auto& [t, src, what] :
         {std::tuple{&*outs[0], &xq, "xq_out"}, std::tuple{&*outs[1], &xk, "xk_out"}}) {
        expect_dtype(args, *t, src->dtype(), what);
        expect_shape(args, *t, src->shape(), what);
    }
    return {*outs[0], *outs[1]};
}

class ApplyRotaryEmb final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.apply_rotary_emb.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 5) args.expect_count(5, 6);
        const Tensor& xq = args.tensor(0, "xq");
        const Tensor& xk = args.tensor(1, "xk");
        const Tensor& cos = args.tensor(2, "freqs_cos");
        const Tensor& sin = args.tensor(3, "freqs_sin");
        const DType dt = one_float_type(
            rec, args, {{&xq, "xq"}, {&xk, "xk"}, {&cos, "freqs_cos"}, {&sin, "freqs_sin"}});
        const auto [S, Dh] = check_q_and_k(args, xq, xk);
        expect_shape(args, cos, {S, Dh / 2}, "freqs_cos");
        expect_shape(args, sin, {S, Dh / 2}, "freqs_sin");
        const auto [q_out, k_out] = two_outputs(args, 4, xq, xk);
        record_rotary(rec, name(), RotaryMode::llama, dt, xq, cos, sin, q_out, S, xq.shape()[2], Dh,
                      Dh / 2, LiveInt{});
        record_rotary(rec, name(), RotaryMode::llama, dt, xk, cos, sin, k_out, S, xk.shape()[2], Dh,
                      Dh / 2, LiveInt{});
    }
};

class ApplyRotaryEmbHf final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.apply_rotary_emb_hf.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 6) args.expect_count(6, 7);
        const Tensor& xq = args.tensor(0, "xq");
        const Tensor& xk = args.tensor(1, "xk");
        const Tensor& cos = args.tensor(2, "freqs_cos");
        const Tensor& sin = args.tensor(3, "freqs_sin");
        const LiveInt start = args.live_integer(4, "start_pos");
        const DType dt = one_float_type(
            rec, args, {{&xq, "xq"}, {&xk, "xk"}, {&cos, "freqs_cos"}, {&sin, "freqs_sin"}});
        const auto [S, Dh] = check_q_and_k(args, xq, xk);
        if (cos.rank() != 2) {
            args.fail(fmt::format("freqs_cos must be 2-D [positions, rotary_dim], got {}.",
                                  shape_string(cos.shape())));
        }
        expect_shape(args, sin, cos.shape(), "freqs_sin");
        const int64_t positions = cos.shape()[0], rot = cos.shape()[1];
        if (rot % 2 != 0 || rot > Dh) {
            args.fail(
                fmt::format("rotary_dim (freqs' last dim) {} must be even and at most the "
                            "head size {}.",
                            rot, Dh));
        }
        if (start.value < 0 || start.value + S > positions) {
            args.fail(
                fmt::format("start_pos {} + seq_len {} is outside the {} rows of the "
                            "freqs tensors.",
                            start.value, S, positions));
        }
        const auto [q_out, k_out] = two_outputs(args, 5, xq, xk);
        record_rotary(rec, name(), RotaryMode::rotate_half, dt, xq, cos, sin, q_out, S,
                      xq.shape()[2], rot, rot, start);
        record_rotary(rec, name(), RotaryMode::rotate_half, dt, xk, cos, sin, k_out, S,
                      xk.shape()[2], rot, rot, start);
    }
};

class ApplyRotaryEmbInterleaved final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.apply_rotary_emb_interleaved.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& x = args.tensor(0, "x");
        const Tensor& freqs = args.tensor(1, "freqs_cis");
        const Tensor& out = args.tensor(2, "out");
        const DType dt =
            one_float_type(rec, args, {{&x, "x"}, {&freqs, "freqs_cis"}, {&out, "out"}});
        if (x.rank() != 3 || x.shape()[2] % 2 != 0) {
            args.fail(fmt::format("x must be 3-D [B, N, C] with C even, got {}.",
                                  shape_string(x.shape())));
        }
        const int64_t N = x.shape()[1], C = x.shape()[2];
        if (freqs.numel() != N * C) {
            args.fail(
                fmt::format("freqs_cis {} must hold N * C = {} elements ([N, C/2, 2] "
                            "flat) for x {}.",
                            shape_string(freqs.shape()), N * C, shape_string(x.shape())));
        }
        expect_shape(args, out, x.shape(), "out");
        expect_indexable(args, x, "x");
        record_rotary(rec, name(), RotaryMode::complex_pairs, dt, x, freqs, freqs, out, N, 1, C, C,
                      LiveInt{});
    }
};

}  // namespace

const Op& rotary_emb_op() {
    static const ApplyRotaryEmb op;
    return op;
}

const Op& rotary_emb_hf_op() {
    static const ApplyRotaryEmbHf op;
    return op;
}

const Op& rotary_emb_interleaved_op() {
    static const ApplyRotaryEmbInterleaved op;
    return op;
}

}  // namespace wgx::ops
