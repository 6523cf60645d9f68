// The size rules, by op name. Argument positions follow the graph spelling of each op (outputs
// last); the meaning of each op is documented at its implementation in src/ops.
#include "graph/schema/size_rules.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <unordered_map>

#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

size_t last(const SizeCall& c) { return c.size() - 1; }

// A dim index as PyTorch takes it (negative counts from the end), checked against the rank.
size_t dim_index(const SizeCall& c, int64_t dim, size_t rank, size_t extra = 0) {
    const auto r = static_cast<int64_t>(rank + extra);
    if (dim < -r || dim >= r) {
        c.fail("dim " + std::to_string(dim) + " is outside a rank " + std::to_string(r) +
               " tensor.");
    }
    return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

void same_as_input(SizeCall& c) { c.same_dims(0, last(c)); }

// choose_qparams.tensor [input, ..., (scale, zero_point)]: both outputs have one element,
// whatever the input's sizes.
void choose_qparams(SizeCall& c) {
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (outs.size() != 2) c.fail("expects two outputs (scale, zero_point).");
    for (int32_t id : outs) c.set_dims_of(id, {1});
}

// choose_qparams_per_token_asymmetric [input, dtype, (scale, zero_point)]: one of each per row,
// input's sizes with the last made 1.
void choose_qparams_per_token(SizeCall& c) {
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (outs.size() != 2) c.fail("expects two outputs (scale, zero_point).");
    std::vector<int64_t> dims = c.dims(0);
    if (dims.empty()) c.fail("expects an input of rank >= 1.");
    dims.back() = 1;
    for (int32_t id : outs) c.set_dims_of(id, dims);
}

void broadcast(SizeCall& c) {
    std::vector<int64_t> out = c.dims(0);
    for (size_t i = 1; i < last(c); ++i) {
        if (c.is_tensor(i)) out = broadcast_dims(c, out, c.dims(i));
    }
    c.set_dims(last(c), out);
}

// [input, weight [N, K], ...]: the input's dims with the last replaced by N.
void linear(SizeCall& c) {
    std::vector<int64_t> out = c.dims(0);
    const auto& w = c.dims(1);
    if (out.empty() || w.size() != 2) c.fail("expects an input of rank >= 1 and a 2-D weight.");
    out.back() = w[0];
    c.set_dims(last(c), out);
}

// wgx.linear_epilogue: a linear whose output may also be the reshape after it (the pass folds
// a view that adds or drops leading ones) or take its residual's sizes.
void linear_epilogue(SizeCall& c) {
    using L = schema::LinearEpilogue;
    if (c.is_tensor(L::residual)) {
        c.same_dims(L::residual, L::out);
        return;
    }
    std::vector<int64_t> out = c.dims(L::input);
    const auto& w = c.dims(L::weight);
    if (out.empty() || w.size() != 2) c.fail("expects an input of rank >= 1 and a 2-D weight.");
    out.back() = w[0];
    const size_t rank = std::get<Tensor>(c.graph().values[c.id(L::out)]).dims.size();
    while (out.size() < rank) out.insert(out.begin(), 1);
    while (out.size() > rank && out.front() == 1) out.erase(out.begin());
    c.set_dims(L::out, out);
}

void mm(SizeCall& c) {
    const auto &a = c.dims(0), &b = c.dims(1);
    if (a.size() != 2 || b.size() != 2) c.fail("expects two 2-D tensors.");
    c.set_dims(last(c), {a[0], b[1]});
}

void addmm(SizeCall& c) {
    const auto &a = c.dims(1), &b = c.dims(2);
    if (a.size() != 2 || b.size() != 2) c.fail("expects two 2-D matrices.");
    c.set_dims(last(c), {a[0], b[1]});
}

void bmm(SizeCall& c) {
    const auto &a = c.dims(0), &b = c.dims(1);
    if (a.size() != 3 || b.size() != 3) c.fail("expects two 3-D tensors.");
    c.set_dims(last(c), {a[0], a[1], b[2]});
}

// [input, sizes, out]; one size may be -1 (the rest of the elements).
void view(SizeCall& c) {
    std::vector<int64_t> sizes = c.int_list(1);
    int64_t numel = 1;
    for (int64_t d : c.dims(0)) numel *= d;
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1 && inferred < 0) {
            inferred = static_cast<int>(i);
        } else if (sizes[i] < 0) {
            c.fail("size " + std::to_string(sizes[i]) + " in a view.");
        } else {
            known *= sizes[i];
        }
    }
    if (inferred >= 0 && known > 0) sizes[static_cast<size_t>(inferred)] = numel / known;
    int64_t total = 1;
    for (int64_t d : sizes) total *= d;
    if (total != numel) {
        c.fail("a view of " + std::to_string(numel) + " elements as " + std::to_string(total) +
               ".");
    }
    c.set_dims(last(c), sizes);
    const std::span<const std::byte> bytes = c.host_bytes(0);
    if (!bytes.empty()) c.set_host_bytes(last(c), {bytes.begin(), bytes.end()});
}

void permute(SizeCall& c) {
    const auto& in = c.dims(0);
    const std::vector<int64_t> order = c.int_list(1);
    if (order.size() != in.size()) c.fail("the permutation's length is not the rank.");
    std::vector<int64_t> out(in.size());
    for (size_t i = 0; i < order.size(); ++i) out[i] = in[dim_index(c, order[i], in.size())];
    c.set_dims(last(c), out);
}

// [input, dim, start?, end?, step, out], with PyTorch's clamping of start and end.
void slice(SizeCall& c) {
    std::vector<int64_t> out = c.dims(0);
    const size_t d = dim_index(c, c.integer(1), out.size());
    const int64_t n = out[d];
    auto clamp_index = [&](size_t arg, int64_t absent) {
        if (c.is_none(arg)) return absent;
        int64_t v = c.integer(arg);
        if (v < 0) v += n;
        return std::clamp<int64_t>(v, 0, n);
    };
    const int64_t start = clamp_index(2, 0);
    const int64_t end = std::max(start, clamp_index(3, n));
    const int64_t step = c.size() > 5 ? c.integer(4) : 1;
    if (step <= 0) c.fail("slice step " + std::to_string(step) + " is not positive.");
    out[d] = (end - start + step - 1) / step;
    c.set_dims(last(c), out);
}

void select(SizeCall& c) {
    const std::vector<int64_t>& in = c.dims(0);
    std::vector<int64_t> out = in;
    const size_t d = dim_index(c, c.integer(1), out.size());
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
    c.set_dims(last(c), out);
    // The CPU knows the input's bytes (a cache position given as an input): it knows these too.
    const std::span<const std::byte> bytes = c.host_bytes(0);
    int64_t numel = 1, inner = 1;
    for (size_t i = 0; i < in.size(); ++i) {
        numel *= in[i];
        if (i > d) inner *= in[i];
    }
    if (bytes.empty() || numel == 0 || bytes.size() % static_cast<size_t>(numel) != 0) return;
    const size_t width = bytes.size() / static_cast<size_t>(numel);
    int64_t index = c.integer(2);
    if (index < 0) index += in[d];
    if (index < 0 || index >= in[d]) c.fail("index " + std::to_string(index) + " is out of range.");
    const int64_t outer = numel / (in[d] * inner);
    std::vector<std::byte> picked;
    for (int64_t o = 0; o < outer; ++o) {
        const size_t from = static_cast<size_t>((o * in[d] + index) * inner) * width;
        picked.insert(
            picked.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from),
            bytes.begin() + static_cast<std::ptrdiff_t>(from + static_cast<size_t>(inner) * width));
    }
    c.set_host_bytes(last(c), std::move(picked));
}

void unsqueeze(SizeCall& c) {
    std::vector<int64_t> out = c.dims(0);
    const size_t d = dim_index(c, c.integer(1), out.size(), 1);
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(d), 1);
    c.set_dims(last(c), out);
}

// squeeze_copy.dims [input, dims, out], .dim [input, dim, out], .default [input, out].
void squeeze(SizeCall& c) {
    const auto& in = c.dims(0);
    std::vector<bool> drop(in.size(), false);
    if (c.size() == 2) {
        for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
    } else {
        for (int64_t d : c.int_list(1)) {
            const size_t k = dim_index(c, d, in.size());
            drop[k] = in[k] == 1;
        }
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < in.size(); ++i) {
        if (!drop[i]) out.push_back(in[i]);
    }
    c.set_dims(last(c), out);
}

// [tensors, dim, out]
void cat(SizeCall& c) {
    const std::vector<int32_t> ids = c.tensor_ids(0);
    if (ids.empty()) c.fail("has no tensors.");
    std::vector<int64_t> out = c.dims_of(ids[0]);
    const size_t d = dim_index(c, c.integer(1), out.size());
    out[d] = 0;
    for (int32_t id : ids) {
        const auto& dims = c.dims_of(id);
        if (dims.size() != out.size()) c.fail("joins tensors of different ranks.");
        out[d] += dims[d];
    }
    c.set_dims(last(c), out);
}

// [input, sizes, implicit?, out]; -1 keeps the input's dim.
void expand(SizeCall& c) {
    const auto& in = c.dims(0);
    std::vector<int64_t> out = c.int_list(1);
    if (out.size() < in.size()) c.fail("expands to a lower rank.");
    const size_t lead = out.size() - in.size();
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == -1) {
            if (i < lead) c.fail("-1 in a new leading dim.");
            out[i] = in[i - lead];
        }
    }
    c.set_dims(last(c), out);
}

// [weight [V, D], indices, ...]: indices' dims + [D].
void embedding(SizeCall& c) {
    const auto& w = c.dims(0);
    if (w.size() != 2) c.fail("expects a 2-D weight.");
    std::vector<int64_t> out = c.dims(1);
    out.push_back(w[1]);
    c.set_dims(last(c), out);
}

// [xq, xk, freqs..., (xq_out, xk_out)]
void rotary(SizeCall& c) {
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (outs.size() != 2) c.fail("expects two outputs.");
    c.set_dims_of(outs[0], c.dims(0));
    c.set_dims_of(outs[1], c.dims(1));
}

// wgx.add_rms_norm: the sum and the norm have self's sizes.
void add_rms_norm(SizeCall& c) {
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (outs.size() != 2) c.fail("expects two outputs.");
    for (int32_t id : outs) c.set_dims_of(id, c.dims(0));
}

// [input, dims?, keepdim, ..., out] (mean.dim, sum.dim_IntList, amax, amin).
void reduce_dims(SizeCall& c) {
    const auto& in = c.dims(0);
    std::vector<bool> reduced(in.size(), c.is_none(1));
    if (!c.is_none(1)) {
        const std::vector<int64_t> dims = c.int_list(1);
        if (dims.empty()) reduced.assign(in.size(), true);
        for (int64_t d : dims) reduced[dim_index(c, d, in.size())] = true;
    }
    const bool keepdim = c.size() > 3 && !c.is_none(2) && c.integer(2) != 0;
    std::vector<int64_t> out;
    for (size_t i = 0; i < in.size(); ++i) {
        if (!reduced[i]) {
            out.push_back(in[i]);
        } else if (keepdim) {
            out.push_back(1);
        }
    }
    c.set_dims(last(c), out);
}

// [input, dim?, keepdim, out] (argmax, argmin): one dim, or all when absent.
void reduce_one_dim(SizeCall& c) {
    const auto& in = c.dims(0);
    const bool keepdim = c.integer(2) != 0;
    std::vector<int64_t> out;
    if (c.is_none(1)) {
        if (keepdim) out.assign(in.size(), 1);
    } else {
        const size_t d = dim_index(c, c.integer(1), in.size());
        for (size_t i = 0; i < in.size(); ++i) {
            if (i != d) {
                out.push_back(in[i]);
            } else if (keepdim) {
                out.push_back(1);
            }
        }
    }
    c.set_dims(last(c), out);
}

// One spatial dim of a convolution's output, as PyTorch sizes it (transposed: the input's
// positions spread `stride` apart).
int64_t conv_output_size(SizeCall& c, int64_t in, int64_t kernel, int64_t stride, int64_t padding,
                         int64_t dilation, int64_t output_padding, bool transposed) {
    if (stride < 1 || dilation < 1 || padding < 0) {
        c.fail("has a stride or dilation below 1 or a negative padding.");
    }
    const int64_t span = dilation * (kernel - 1);
    const int64_t o = transposed ? (in - 1) * stride - 2 * padding + span + output_padding + 1
                                 : (in + 2 * padding - span - 1) / stride + 1;
    if (o < 1) c.fail("gives an empty output.");
    return o;
}

// convolution [input [N, C, spatial...], weight, bias?, stride, padding, dilation, transposed,
// output_padding, groups, out]: PyTorch's output size per spatial dim (a list of one value
// serves every dim).
void convolution(SizeCall& c) {
    const auto& in = c.dims(0);
    const auto& w = c.dims(1);
    if (in.size() < 3 || w.size() != in.size()) {
        c.fail("expects an input [N, C, ...] and a weight of the same rank.");
    }
    const size_t spatial = in.size() - 2;
    auto per_dim = [&](size_t arg, const char* what) {
        std::vector<int64_t> v = c.int_list(arg);
        if (v.size() == 1) v.assign(spatial, v[0]);
        if (v.size() != spatial) c.fail(std::string(what) + " does not have one value per dim.");
        return v;
    };
    const auto stride = per_dim(3, "stride"), padding = per_dim(4, "padding");
    const auto dilation = per_dim(5, "dilation");
    const bool transposed = c.integer(6) != 0;
    const int64_t groups = c.integer(8);
    std::vector<int64_t> out = {in[0], transposed ? w[1] * groups : w[0]};
    const auto output_padding = transposed ? per_dim(7, "output_padding") : padding;
    for (size_t i = 0; i < spatial; ++i) {
        out.push_back(conv_output_size(c, in[i + 2], w[i + 2], stride[i], padding[i], dilation[i],
                                       output_padding[i], transposed));
    }
    c.set_dims(last(c), out);
}

// et_vk.q8ta_conv2d{,_pw,_dw,_transposed} [x [N, C, H, W], .., weights (3), .., kernel_size (9),
// stride, padding, (output_padding,) dilation, groups, activation, out]: the channels are the
// weights' rows (the input's for depthwise weights [kH, kW, C_p]).
void q8ta_conv(SizeCall& c, bool depthwise, bool transposed) {
    const auto& in = c.dims(0);
    const auto& w = c.dims(3);
    if (in.size() != 4 || w.empty()) c.fail("expects a 4-D input and weights.");
    auto pair = [&](size_t arg) {
        std::vector<int64_t> v = c.int_list(arg);
        if (v.size() == 1) v.push_back(v[0]);
        if (v.size() != 2) c.fail("has a kernel, stride, padding or dilation without 2 values.");
        return v;
    };
    const auto kernel = pair(9), stride = pair(10), padding = pair(11);
    const auto output_padding = transposed ? pair(12) : std::vector<int64_t>{0, 0};
    const auto dilation = pair(transposed ? 13 : 12);
    std::vector<int64_t> out = {in[0], depthwise ? in[1] : w[0]};
    for (size_t i = 0; i < 2; ++i) {
        out.push_back(conv_output_size(c, in[i + 2], kernel[i], stride[i], padding[i], dilation[i],
                                       output_padding[i], transposed));
    }
    c.set_dims(last(c), out);
}

// et_vk.q8ta_pixel_shuffle [x [N, C * r * r, H, W], .., upscale_factor r (5), out]
void q8ta_pixel_shuffle(SizeCall& c) {
    const auto& in = c.dims(0);
    const int64_t r = c.integer(5);
    if (in.size() != 4 || r < 1 || in[1] % (r * r) != 0) {
        c.fail("expects a 4-D input whose channels the square of upscale_factor divides.");
    }
    c.set_dims(last(c), {in[0], in[1] / (r * r), in[2] * r, in[3] * r});
}

// split_with_sizes_copy [self, split_sizes, dim, outs]: piece k has split_sizes[k] along dim.
void split_with_sizes(SizeCall& c) {
    const auto& in = c.dims(0);
    const std::vector<int64_t> sizes = c.int_list(1);
    const size_t d = dim_index(c, c.integer(2), in.size());
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (outs.size() != sizes.size()) c.fail("has one output per split size.");
    int64_t total = 0;
    for (size_t k = 0; k < outs.size(); ++k) {
        if (sizes[k] < 0) c.fail("has a negative split size.");
        std::vector<int64_t> piece = in;
        piece[d] = sizes[k];
        total += sizes[k];
        c.set_dims_of(outs[k], piece);
    }
    if (total != in[d]) c.fail("split sizes do not add up to the dim.");
}

// gated_delta_rule [query [B, H, T, K], key, value [B, H, T, V], decay, beta, initial_state,
// (out [B, H, T, V], final_state)].
void gated_delta_rule(SizeCall& c) {
    const auto& q = c.dims(0);
    const auto& v = c.dims(2);
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (q.size() != 4 || v.size() != 4 || outs.size() != 2) {
        c.fail("expects 4-D query and value and two outputs.");
    }
    c.set_dims_of(outs[0], {q[0], q[1], q[2], v[3]});
    c.set_dims_of(outs[1], c.dims(5));
}

// torchao.choose_qparams_affine [input, mapping_type, block_size, ..., keepdim (9), (scale,
// zero_point)]: one value per block, torchao's shape: a dim with block 1 stays, a dim split into
// blocks keeps its block count, a whole dim goes (stays as 1 with keepdim).
void choose_qparams_affine(SizeCall& c) {
    const auto& in = c.dims(0);
    const std::vector<int64_t> block = c.int_list(2);
    const bool keepdim = c.integer(9) != 0;
    const std::vector<int32_t> outs = c.tensor_ids(last(c));
    if (block.size() != in.size() || outs.size() != 2) {
        c.fail("expects one block size per input dim and two outputs.");
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < in.size(); ++i) {
        if (block[i] < 1 || in[i] % block[i] != 0) c.fail("a block size does not divide its dim.");
        if (block[i] == 1) {
            out.push_back(in[i]);
        } else if (block[i] != in[i]) {
            out.push_back(in[i] / block[i]);
        } else if (keepdim) {
            out.push_back(1);
        }
    }
    c.set_dims_of(outs[0], out);
    c.set_dims_of(outs[1], out);
}

// A linear layer whose weights [N, ...] (4-bit [N, K / 2], or int8 [N, K]) are argument
// `weights`: the input's sizes, the last one N.
void linear_rows_of(SizeCall& c, size_t weights) {
    std::vector<int64_t> out = c.dims(0);
    const auto& w = c.dims(weights);
    if (out.empty() || w.size() != 2) c.fail("expects an input of rank >= 1 and 2-D weights.");
    out.back() = w[0];
    c.set_dims(last(c), out);
}
// [input, input_scale, input_zp, weights, ...]: et_vk.linear_dq8ca_q4gsw (4-bit weights) and
// the q8ta linear layers (int8 weights [N, K]): N is the weights' rows either way.
void linear_weights_at_3(SizeCall& c) { linear_rows_of(c, 3); }
// wgx.linear_dq8ca_q4gsw [input, eps, weights, ...]
void linear_dq8ca_own_qparams(SizeCall& c) { linear_rows_of(c, 2); }
// wgx.gated_linear_q4gsw [input, eps, gate_weights, ...]
void gated_linear_q4gsw(SizeCall& c) { linear_rows_of(c, schema::GatedLinearQ4gsw::gate_weights); }

// Quantized embeddings: indices' sizes + [D], D from the packed weight [V, D * bits / 8].
void quantized_embedding(SizeCall& c, size_t indices, int64_t values_per_byte) {
    const auto& w = c.dims(0);
    if (w.size() != 2) c.fail("expects a 2-D weight.");
    std::vector<int64_t> out = c.dims(indices);
    out.push_back(w[1] * values_per_byte);
    c.set_dims(last(c), out);
}
// et_vk.embedding_q4gsw [weight [V, D / 2], scales, group_size, indices, ...]
void embedding_q4gsw(SizeCall& c) { quantized_embedding(c, 3, 2); }
// quantized_decomposed.embedding_4bit / _byte [weight, scales, zero_points, qmin, qmax, indices]
void embedding_4bit(SizeCall& c) { quantized_embedding(c, 5, 2); }
void embedding_byte(SizeCall& c) { quantized_embedding(c, 5, 1); }

// [sizes, ...]: full, zeros, ones.
void from_sizes(SizeCall& c) { c.set_dims(last(c), c.int_list(0)); }

// Host ops: symbolic integers.
void sym_size(SizeCall& c) {
    const auto& in = c.dims(0);
    c.set_int(last(c), in[dim_index(c, c.integer(1), in.size())]);
}

template <typename F>
void sym_arith(SizeCall& c, F f) {
    c.set_int(last(c), f(c.integer(0), c.integer(1)));
}

void sym_add(SizeCall& c) {
    sym_arith(c, [](int64_t a, int64_t b) { return a + b; });
}
void sym_sub(SizeCall& c) {
    sym_arith(c, [](int64_t a, int64_t b) { return a - b; });
}
void sym_mul(SizeCall& c) {
    sym_arith(c, [](int64_t a, int64_t b) { return a * b; });
}
void sym_floordiv(SizeCall& c) {
    if (c.integer(1) == 0) c.fail("divides by zero.");
    sym_arith(c, [](int64_t a, int64_t b) {
        const int64_t q = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    });
}

void sym_neg(SizeCall& c) { c.set_int(last(c), -c.integer(0)); }

// Element `at` of host bytes holding int64 or int32 elements (`width` bytes each).
int64_t integer_element(const SizeCall& c, std::span<const std::byte> bytes, size_t at,
                        size_t width) {
    if (width == 8) {
        int64_t v = 0;
        std::memcpy(&v, bytes.data() + at * 8, 8);
        return v;
    }
    if (width == 4) {
        int32_t v = 0;
        std::memcpy(&v, bytes.data() + at * 4, 4);
        return v;
    }
    c.fail("reads " + std::to_string(width) + "-byte elements, not int64 or int32.");
}

// [tensor, dim, index, out]: one element of an integer tensor whose values the CPU knows.
void select_as_symint(SizeCall& c) {
    const auto& in = c.dims(0);
    const std::span<const std::byte> bytes = c.host_bytes(0);
    if (bytes.empty()) {
        c.fail("reads value " + std::to_string(c.id(0)) +
               ", whose data is known only on the GPU; give it as a program input.");
    }
    const size_t d = dim_index(c, c.integer(1), in.size());
    int64_t index = c.integer(2);
    if (index < 0) index += in[d];
    if (index < 0 || index >= in[d]) c.fail("index " + std::to_string(index) + " is out of range.");
    int64_t stride = 1, numel = 1;
    for (size_t i = 0; i < in.size(); ++i) {
        numel *= in[i];
        if (i > d) stride *= in[i];
    }
    const size_t at = static_cast<size_t>(index * stride);
    const size_t width = bytes.size() / static_cast<size_t>(std::max<int64_t>(1, numel));
    c.set_int(last(c), integer_element(c, bytes, at, width));
}

// Writing S positions of a [1, C, H, D] cache from `start` must stay inside it.
void check_cache_window(SizeCall& c, size_t cache, size_t start, int64_t positions) {
    const auto& dims = c.dims(cache);
    const int64_t from = c.integer(start);
    if (dims.size() != 4) c.fail("expects a [1, C, H, D] cache.");
    if (from < 0 || from + positions > dims[1]) {
        c.fail("positions " + std::to_string(from) + " .. " + std::to_string(from + positions - 1) +
               " are outside the cache of " + std::to_string(dims[1]) + " positions.");
    }
}

// sdpa_with_kv_cache [q [1, S, Hq, D], k, v, k_cache, v_cache, input_pos, ...]: out has q's sizes.
void sdpa_with_kv_cache(SizeCall& c) {
    check_cache_window(c, 3, 5, c.dims(0).at(1));
    c.same_dims(0, last(c));
}

// custom_sdpa [q, k_cache, v_cache, start_pos, ...]: attends over positions < start_pos + S.
void custom_sdpa(SizeCall& c) {
    check_cache_window(c, 1, 3, c.dims(0).at(1));
    c.same_dims(0, last(c));
}

// update_cache [value [1, S, H, D], cache, start_pos, out].
void update_cache(SizeCall& c) {
    // Its output is a placeholder ([1] in ExecuTorch's schema) that keeps its planned size.
    check_cache_window(c, 1, 2, c.dims(0).at(1));
}

// apply_rotary_emb_hf [xq [B, S, H, D], xk, freqs_cos [P, rot], freqs_sin, start_pos, outs]:
// rows start_pos .. start_pos + S - 1 of the tables must exist.
void rotary_hf(SizeCall& c) {
    const int64_t from = c.integer(4), seq = c.dims(0).at(1), rows = c.dims(2).at(0);
    if (from < 0 || from + seq > rows) {
        c.fail("positions " + std::to_string(from) + " .. " + std::to_string(from + seq - 1) +
               " are outside the rope tables of " + std::to_string(rows) + " positions.");
    }
    rotary(c);
}

// [tensor of one element, out]: the element, which the CPU must know (a run input's data or a
// select of it).
void local_scalar_dense(SizeCall& c) {
    const std::span<const std::byte> bytes = c.host_bytes(0);
    int64_t numel = 1;
    for (int64_t d : c.dims(0)) numel *= d;
    if (numel != 1) c.fail("reads a tensor of " + std::to_string(numel) + " elements, not one.");
    if (bytes.empty()) {
        c.fail("reads value " + std::to_string(c.id(0)) +
               ", whose data is known only on the GPU; give it as a program input.");
    }
    c.set_int(last(c), integer_element(c, bytes, 0, bytes.size()));
}

void nothing(SizeCall&) {}

struct Entry {
    std::string_view name;
    SizeRule rule;
    bool host = false;
    bool reads_data = false;
    bool carries_data = false;
};

constexpr std::array kSameAsInput = {
    "aten.relu.default",
    "aten.sigmoid.default",
    "aten.tanh.default",
    "aten.silu.default",
    "aten.hardswish.default",
    "aten.hardsigmoid.default",
    "aten.exp.default",
    "aten.log.default",
    "aten.log1p.default",
    "aten.sqrt.default",
    "aten.rsqrt.default",
    "aten.neg.default",
    "aten.abs.default",
    "aten.sin.default",
    "aten.cos.default",
    "aten.erf.default",
    "aten.reciprocal.default",
    "aten.floor.default",
    "aten.ceil.default",
    "aten.round.default",
    "aten.trunc.default",
    "aten.sign.default",
    "aten.gelu.default",
    "aten.hardtanh.default",
    "aten.clamp.default",
    "aten.leaky_relu.default",
    "aten.clone.default",
    "aten._to_copy.default",
    "aten.alias_copy.default",
    "aten.alias.default",
    "aten._softmax.default",
    "aten.softmax.int",
    "aten._log_softmax.default",
    "aten.log_softmax.int",
    "aten.logical_not.default",
    "aten.add.Scalar",
    "aten.sub.Scalar",
    "aten.rsub.Scalar",
    "aten.mul.Scalar",
    "aten.div.Scalar",
    "aten.pow.Tensor_Scalar",
    "aten.eq.Scalar",
    "aten.ne.Scalar",
    "aten.lt.Scalar",
    "aten.le.Scalar",
    "aten.gt.Scalar",
    "aten.ge.Scalar",
    "aten.fill.Scalar",
    "aten.full_like.default",
    "aten.zeros_like.default",
    "aten.ones_like.default",
    "dim_order_ops._to_dim_order_copy.default",
    "dim_order_ops._clone_dim_order.default",
    "et_vk.prepack.default",
    "et_vk.rms_norm.default",
    "et_vk.q8ta_add.default",
    "et_vk.q8ta_relu.default",
    "quantized_decomposed.quantize_per_tensor.default",
    "quantized_decomposed.quantize_per_tensor.tensor",
    "quantized_decomposed.quantize_per_channel.default",
    "quantized_decomposed.dequantize_per_tensor.default",
    "quantized_decomposed.dequantize_per_tensor.tensor",
    "quantized_decomposed.dequantize_per_channel.default",
    "quantized_decomposed.quantize_per_token.default",
    "quantized_decomposed.dequantize_per_token.default",
};

constexpr std::array kBroadcast = {
    "aten.add.Tensor",
    "aten.mul.Tensor",
    "aten.sub.Tensor",
    "aten.div.Tensor",
    "aten.div.Tensor_mode",
    "aten.maximum.default",
    "aten.minimum.default",
    "aten.pow.Tensor_Tensor",
    "aten.eq.Tensor",
    "aten.ne.Tensor",
    "aten.lt.Tensor",
    "aten.le.Tensor",
    "aten.gt.Tensor",
    "aten.ge.Tensor",
    "aten.where.self",
    "aten.logical_and.default",
    "aten.logical_or.default",
    "aten.bitwise_and.Tensor",
    "aten.bitwise_or.Tensor",
    schema::MulSigmoid::name.data(),
    schema::MulHardsigmoid::name.data(),
    schema::SiluMul::name.data(),
};

const std::unordered_map<std::string_view, Entry>& table() {
    static const auto* t = [] {
        auto* m = new std::unordered_map<std::string_view, Entry>();
        auto add = [&](std::string_view name, SizeRule rule, bool host = false,
                       bool reads_data = false) {
            (*m)[name] = Entry{name, rule, host, reads_data};
        };
        for (std::string_view n : kSameAsInput) add(n, same_as_input);
        for (std::string_view n : kBroadcast) add(n, broadcast);
        add("aten.linear.default", linear);
        add(schema::LinearEpilogue::name, linear_epilogue);
        add("aten.mm.default", mm);
        add("aten.addmm.default", addmm);
        add("aten.bmm.default", bmm);
        add("aten.view_copy.default", view);
        (*m)["aten.view_copy.default"].carries_data = true;
        add("aten._unsafe_view.default", view);
        add("aten.permute_copy.default", permute);
        add("aten.slice_copy.Tensor", slice);
        add("aten.select_copy.int", select);
        (*m)["aten.select_copy.int"].carries_data = true;
        add("aten.unsqueeze_copy.default", unsqueeze);
        add("aten.squeeze_copy.dims", squeeze);
        add("aten.squeeze_copy.dim", squeeze);
        add("aten.squeeze_copy.default", squeeze);
        add("aten.cat.default", cat);
        add("aten.expand_copy.default", expand);
        add("aten.embedding.default", embedding);
        add("et_vk.apply_rotary_emb.default", rotary);
        add(schema::AddRmsNorm::name, add_rms_norm);
        add("et_vk.apply_rotary_emb_hf.default", rotary_hf);
        add("et_vk.apply_rotary_emb_interleaved.default", same_as_input);
        add("aten.mean.dim", reduce_dims);
        add("aten.sum.dim_IntList", reduce_dims);
        add("aten.amax.default", reduce_dims);
        add("aten.amin.default", reduce_dims);
        add("aten.argmax.default", reduce_one_dim);
        add("aten.argmin.default", reduce_one_dim);
        add("sdpa_with_kv_cache.default", sdpa_with_kv_cache);
        add("llama.sdpa_with_kv_cache.default", sdpa_with_kv_cache);
        add("custom_sdpa.default", custom_sdpa);
        add("llama.custom_sdpa.default", custom_sdpa);
        add("update_cache.default", update_cache);
        add("llama.update_cache.default", update_cache);
        add("aten.convolution.default", convolution);
        add("aten.split_with_sizes_copy.default", split_with_sizes);
        add("llama.gated_delta_rule.default", gated_delta_rule);
        add("torchao.choose_qparams_affine.default", choose_qparams_affine);
        add("et_vk.linear_q4gsw.default", linear);
        add("et_vk.linear_qcs4w.default", linear);
        add("aten._weight_int8pack_mm.default", linear);
        add("et_vk.linear_dq8ca_q4gsw.default", linear_weights_at_3);
        add("wgx.linear_dq8ca_q4gsw.default", linear_dq8ca_own_qparams);
        add(schema::GatedLinearQ4gsw::name, gated_linear_q4gsw);
        add("et_vk.embedding_q4gsw.default", embedding_q4gsw);
        add("et_vk.q8ta_linear.default", linear_weights_at_3);
        add("et_vk.q8ta_linear_gemv.default", linear_weights_at_3);
        add("et_vk.linear_q8ta_q8csw.default", linear_weights_at_3);
        add("et_vk.q8ta_conv2d.default", [](SizeCall& c) { q8ta_conv(c, false, false); });
        add("et_vk.q8ta_conv2d_pw.default", [](SizeCall& c) { q8ta_conv(c, false, false); });
        add("et_vk.q8ta_conv2d_dw.default", [](SizeCall& c) { q8ta_conv(c, true, false); });
        add("et_vk.q8ta_pixel_shuffle.default", q8ta_pixel_shuffle);
        add("et_vk.q8ta_conv2d_transposed.default", [](SizeCall& c) { q8ta_conv(c, false, true); });
        add("quantized_decomposed.embedding_4bit.default", embedding_4bit);
        add("quantized_decomposed.embedding_4bit.dtype", embedding_4bit);
        add("quantized_decomposed.embedding_byte.default", embedding_byte);
        add("quantized_decomposed.embedding_byte.dtype", embedding_byte);
        add("quantized_decomposed.choose_qparams.tensor", choose_qparams);
        add("quantized_decomposed.choose_qparams_per_token_asymmetric.default",
            choose_qparams_per_token);
        // Writes into (a copy of) self: self's sizes.
        add("aten.slice_scatter.default", same_as_input);
        add("aten.copy.default", same_as_input);
        add("aten.copy_.default", same_as_input);
        add("aten.full.default", from_sizes);
        add("aten.zeros.default", from_sizes);
        add("aten.ones.default", from_sizes);
        // Host ops. The Vulkan delegate spells symint arithmetic as Python's operators.
        add("sym_size.int", sym_size, true);
        add("aten.sym_size.int", sym_size, true);
        add("add", sym_add, true);
        add("sub", sym_sub, true);
        add("mul", sym_mul, true);
        add("floordiv", sym_floordiv, true);
        add("neg", sym_neg, true);
        add("et_vk.select_as_symint.default", select_as_symint, true, true);
        add("aten._local_scalar_dense.default", local_scalar_dense, true, true);
        add("aten.sym_constrain_range_for_size.default", nothing, true);
        add("aten._assert_scalar.default", nothing, true);
        return m;
    }();
    return *t;
}

const Entry* find_entry(std::string_view op) {
    const auto& t = table();
    const auto it = t.find(op);
    return it == t.end() ? nullptr : &it->second;
}

}  // namespace

SizeRule find_size_rule(std::string_view op) {
    const Entry* e = find_entry(op);
    return e ? e->rule : nullptr;
}

bool is_host_op(std::string_view op) {
    const Entry* e = find_entry(op);
    return e != nullptr && e->host;
}

bool carries_host_data(std::string_view op) {
    const Entry* e = find_entry(op);
    return e != nullptr && e->carries_data;
}

bool reads_data_for_sizes(std::string_view op) {
    const Entry* e = find_entry(op);
    return e != nullptr && e->reads_data;
}

std::vector<int64_t> broadcast_dims(const SizeCall& call, const std::vector<int64_t>& a,
                                    const std::vector<int64_t>& b) {
    std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
        const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) {
            call.fail("sizes " + std::to_string(x) + " and " + std::to_string(y) +
                      " do not broadcast.");
        }
        out[out.size() - 1 - i] = x == 1 ? y : x;
    }
    return out;
}

}  // namespace wgx::graph
