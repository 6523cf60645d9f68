#include "ops/reduce/reduce.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/common/wgsl_types.h"
#include "ops/reduce/reduce.wgsl.h"

namespace wgx::ops {
namespace {

struct Dim {
    int64_t size, stride;
};

// Drops size-1 dims and merges neighbours that are contiguous with each other, keeping the
// order (so a flattened reduced index stays row-major, as argmax over all dims needs).
std::vector<Dim> collapse(const std::vector<Dim>& dims) {
    std::vector<Dim> out;
    for (const Dim& d : dims) {
        if (d.size == 1) continue;
        if (!out.empty() && out.back().stride == d.stride * d.size) {
            out.back().size *= d.size;
            out.back().stride = d.stride;
            continue;
        }
        out.push_back(d);
    }
    return out;
}

bool is_packed_byte(DType t) { return device_size(t) == 1; }

// The prefix reduce.wgsl expects: accumulator type, input binding and load, NaN test, output
// binding and store. float16 is read into and accumulated as f32 and rounded once on store.
std::string prefix(ReduceKind kind, DType in, DType out) {
    bool sum_like = kind == ReduceKind::sum || kind == ReduceKind::mean;
    bool float_acc = sum_like ? is_float(out) : is_float(in);
    std::string s = in == DType::f16 || out == DType::f16 ? "enable f16;\n" : "";
    s += fmt::format("alias A = {};\n", float_acc ? "f32" : "i32");
    if (is_packed_byte(in)) {
        s += "@group(0) @binding(0) var<storage, read> x: array<u32>;\n";
        s +=
            in == DType::i8
                ? "fn load(i: u32) -> A { return A(extractBits(bitcast<i32>(x[i / 4u]), "
                  "(i % 4u) * 8u, 8u)); }\n"
                : "fn load(i: u32) -> A { return A(extractBits(x[i / 4u], (i % 4u) * 8u, 8u)); }\n";
    } else {
        s += fmt::format("@group(0) @binding(0) var<storage, read> x: array<{}>;\n",
                         wgsl_scalar(in));
        s += "fn load(i: u32) -> A { return A(x[i]); }\n";
    }
    s += float_acc ? "fn is_nan(v: A) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > "
                     "0x7f800000u; }\n"
                   : "fn is_nan(v: A) -> bool { return false; }\n";
    const char* o = wgsl_scalar(out);
    s += fmt::format("@group(0) @binding(1) var<storage, read_write> out: array<{}>;\n", o);
    switch (kind) {
        case ReduceKind::mean:
            s += fmt::format(
                "fn store(o: u32, v: A, index: u32) {{ out[o] = {}(v * params.scale); }}\n", o);
            break;
        case ReduceKind::argmax:
        case ReduceKind::argmin:
            s += "fn store(o: u32, v: A, index: u32) { out[o] = i32(index); }\n";
            break;
        default:
            s += fmt::format("fn store(o: u32, v: A, index: u32) {{ out[o] = {}(v); }}\n", o);
            break;
    }
    return s;
}

const char* kind_name(ReduceKind k) {
    switch (k) {
        case ReduceKind::sum: return "sum";
        case ReduceKind::mean: return "mean";
        case ReduceKind::max: return "max";
        case ReduceKind::min: return "min";
        case ReduceKind::argmax: return "argmax";
        case ReduceKind::argmin: return "argmin";
    }
    return "?";
}

}  // namespace

Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim) {
    Shape out;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
        bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
        if (!reduced) {
            out.push_back(shape[d]);
        } else if (keepdim) {
            out.push_back(1);
        }
    }
    return out;
}

std::vector<int64_t> reduction_dims(const Args& args, size_t i, int64_t rank) {
    auto list = optional_int_list_arg(args, i, "dim");
    std::vector<int64_t> dims;
    if (!list || list->empty()) {
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
        return dims;
    }
    return wrap_dims(args, *list, rank, "dim");
}

void record_reduce(Recorder& rec, const Args& args, ReduceKind kind, const Tensor& self,
                   const std::vector<int64_t>& dims, const Tensor& out) {
    DType in = storage_dtype(self.dtype());
    DType out_storage = storage_dtype(out.dtype());
    if (device_size(out.dtype()) != 4 && out_storage != DType::f16) {
        args.fail(
            fmt::format("out has dtype {}; expected a 32-bit type (float32, int32, int64) "
                        "or float16.",
                        dtype_name(out.dtype())));
    }
    // float16 only where every float tensor of the call is float16 (no float32 mixed in).
    bool in16 = in == DType::f16, out16 = out_storage == DType::f16;
    if (is_float(in) && is_float(out_storage) && in16 != out16) {
        args.fail(fmt::format("self has dtype {} and out {}; both must be float16 or neither.",
                              dtype_name(self.dtype()), dtype_name(out.dtype())));
    }
    if ((in16 || out16) && !rec.device().features.shader_f16) {
        args.fail("float16 tensors need the adapter's shader-f16 feature; this device lacks it.");
    }
    if (kind == ReduceKind::mean && !is_float(out.dtype())) {
        args.fail(
            fmt::format("out has dtype {}; mean needs a floating dtype.", dtype_name(out.dtype())));
    }
    expect_indexable(args, self, "self");

    auto strides = contiguous_strides(self.shape());
    std::vector<Dim> keep, red;
    for (int64_t d = 0; d < self.rank(); ++d) {
        bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
        (reduced ? red : keep).push_back({self.shape()[d], strides[d]});
    }
    keep = collapse(keep);
    red = collapse(red);
    int64_t count = 1, outputs = 1;
    ReduceParams p{};
    for (size_t i = 0; i < keep.size(); ++i) {
        p.keep_sizes[i] = static_cast<uint32_t>(keep[i].size);
        p.keep_strides[i] = static_cast<uint32_t>(keep[i].stride);
        outputs *= keep[i].size;
    }
    for (size_t i = 0; i < red.size(); ++i) {
        p.red_sizes[i] = static_cast<uint32_t>(red[i].size);
        p.red_strides[i] = static_cast<uint32_t>(red[i].stride);
        count *= red[i].size;
    }
    p.outputs = static_cast<uint32_t>(outputs);
    p.count = static_cast<uint32_t>(count);
    p.scale = static_cast<float>(1.0 / static_cast<double>(count));

    // Variant: one invocation per output when rows are short, or when the kept dims are the
    // innermost (the reduction strides over memory and neighbouring outputs are neighbours);
    // else a workgroup per output, no wider than the row needs.
    bool kept_inner = !keep.empty() && keep.back().stride == 1;
    bool per_thread = count <= 16 || (kept_inner && outputs >= 256);
    uint32_t preferred = 64;
    while (preferred < 256 && preferred < count) preferred *= 2;
    uint32_t wg = rec.workgroup_size(per_thread ? 256 : preferred);
    Grid grid = per_thread ? rec.grid_1d(static_cast<uint64_t>(outputs), wg)
                           : rec.grid_1d(static_cast<uint64_t>(outputs), 1);
    Kernel k = rec.kernel(fmt::format("{}/{}{}", args.op(), kind_name(kind),
                                      per_thread ? "_per_thread" : "_workgroup"),
                          prefix(kind, in, out_storage) + std::string(wgsl::ops_reduce_reduce),
                          {{"WG", double(wg)},
                           {"OP", double(static_cast<uint32_t>(kind))},
                           {"KEEP_RANK", double(keep.size())},
                           {"RED_RANK", double(red.size())},
                           {"PER_THREAD", per_thread ? 1.0 : 0.0}});
    rec.dispatch(k, {self, out, Binding::uniform(p)}, grid);
}

}  // namespace wgx::ops
