#include "ops/llm/kv_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/common/wgsl_types.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/llm/kv_cache_update.wgsl.h"
#include "ops/llm/sdpa_decode_combine.wgsl.h"
#include "ops/llm/sdpa_decode_common.wgsl.h"
#include "ops/llm/sdpa_decode_split.wgsl.h"
#include "ops/llm/sdpa_prefill.wgsl.h"

namespace wgx::ops {
namespace {

constexpr int64_t kPrefillRows = 8;      // sdpa_prefill.wgsl QR
constexpr int64_t kPrefillMaxDim = 128;  // sdpa_prefill.wgsl D_MAX
constexpr int64_t kDecodeMaxDim = 512;   // sdpa_decode_split.wgsl D_MAX
constexpr int64_t kDecodeColumns = 4;    // columns per invocation in sdpa_decode_split.wgsl
constexpr uint32_t kDecodeWorkgroup = 128;
constexpr uint32_t kDecodeLanesPerKey = 16;  // sdpa_decode_split.wgsl LPK
// Splits of the keys a decode row sees (sdpa_decode_common.wgsl): one per MIN_CHUNK positions
// of the cache, at most this many. At 32 heads that is up to 1024 workgroups, enough to fill a
// large GPU; fewer are live while the cache is short.
constexpr int64_t kDecodeMinChunk = 32;  // sdpa_decode_common.wgsl MIN_CHUNK
constexpr int64_t kDecodeMaxSplits = 32;

// The uniform of kv_cache_update.wgsl.
struct CacheUpdateParams {
    uint32_t total, seq, context, row, start, start_slot, pad1, pad2;
};
static_assert(sizeof(CacheUpdateParams) == 32);
static_assert(offsetof(CacheUpdateParams, start) == 16);

void expect_rank4(const Args& args, const Tensor& t, const char* name, const char* layout) {
    if (t.rank() != 4) {
        args.fail(fmt::format("{} must be 4-D {}, got {}.", name, layout, shape_string(t.shape())));
    }
}

// start and start + seq within a cache of `context` positions; `pos_name` names start.
void expect_positions(const Args& args, const char* pos_name, int64_t start, int64_t seq,
                      int64_t context) {
    if (start < 0 || start + seq > context) {
        args.fail(fmt::format("{} {} + seq_len {} = {} is outside the cache of {} positions.",
                              pos_name, start, seq, start + seq, context));
    }
}

}  // namespace

CacheAttention check_cache_attention(const Recorder& rec, const Args& args, const Tensor& q,
                                     const Tensor& k_cache, const Tensor& v_cache,
                                     const Tensor& out, const char* pos_name, LiveInt start,
                                     bool causal, size_t mask_index, std::optional<double> scale) {
    CacheAttention a{q, k_cache, v_cache, out};
    a.dtype = one_float_type(
        rec, args, {{&q, "q"}, {&k_cache, "k_cache"}, {&v_cache, "v_cache"}, {&out, "out"}});
    expect_rank4(args, q, "q", "[B, S, Hq, D]");
    expect_rank4(args, k_cache, "k_cache", "[B, C, Hkv, D]");
    expect_shape(args, v_cache, k_cache.shape(), "v_cache");
    expect_shape(args, out, q.shape(), "out");
    const int64_t B = q.shape()[0], S = q.shape()[1], Hq = q.shape()[2], D = q.shape()[3];
    const int64_t C = k_cache.shape()[1], Hkv = k_cache.shape()[2];
    if (k_cache.shape()[0] != B || k_cache.shape()[3] != D) {
        args.fail(fmt::format("k_cache {} must have q's batch {} and head size {}.",
                              shape_string(k_cache.shape()), B, D));
    }
    if (Hq % Hkv != 0) {
        args.fail(fmt::format("q's {} heads must be a multiple of the caches' {} heads.", Hq, Hkv));
    }
    const int64_t decode_wg = rec.workgroup_size(kDecodeWorkgroup);
    if (D > kDecodeMaxDim || (!uses_prefill_kernel(S, D) && D > kDecodeColumns * decode_wg)) {
        args.fail(
            fmt::format("head size {} is above the supported {} (or {} invocations per "
                        "workgroup are too few for it).",
                        D, kDecodeMaxDim, decode_wg));
    }
    expect_positions(args, pos_name, start.value, S, C);
    if (!args.is_none(mask_index)) {
        args.fail(
            "attn_mask is not supported; only is_causal (or attention over every written "
            "position) is.");
    }
    const int64_t max_groups = rec.device().limits.max_workgroups_per_dimension;
    if (B > max_groups || S > max_groups || Hq > max_groups) {
        args.fail(fmt::format("q {} exceeds the device's {} workgroups per dimension.",
                              shape_string(q.shape()), max_groups));
    }
    expect_indexable(args, q, "q");
    expect_indexable(args, k_cache, "k_cache");
    a.batch = B;
    CacheAttentionParams& p = a.params;
    p.seq = uint32_t(S);
    p.heads = uint32_t(Hq);
    p.kv_heads = uint32_t(Hkv);
    p.dim = uint32_t(D);
    p.context = uint32_t(C);
    p.start = uint32_t(start.value);
    p.start_slot = start.slot;
    p.causal = causal ? 1u : 0u;
    p.group = uint32_t(Hq / Hkv);
    p.scale = float(scale ? *scale : 1.0 / std::sqrt(double(D)));
    return a;
}

bool uses_prefill_kernel(int64_t seq, int64_t dim) {
    return seq >= kPrefillRows / 2 && dim <= kPrefillMaxDim;
}

void record_cache_attention(Recorder& rec, std::string_view label, const CacheAttention& a) {
    CacheAttentionParams p = a.params;
    const char* type = wgsl_scalar(a.dtype);
    if (uses_prefill_kernel(p.seq, p.dim)) {
        Kernel k = rec.kernel(fmt::format("{}/prefill_{}", label, type),
                              wgsl_alias(a.dtype) + std::string(wgsl::ops_llm_sdpa_prefill));
        const uint32_t blocks = uint32_t((p.seq + kPrefillRows - 1) / kPrefillRows);
        rec.dispatch(k, {a.q, a.k_cache, a.v_cache, a.out, Binding::uniform(p), rec.live_ints()},
                     Grid{blocks, p.heads, uint32_t(a.batch)});
        return;
    }
    // Flash-decoding: the keys split among workgroups, then their partial results combined.
    const uint32_t wg = rec.workgroup_size(kDecodeWorkgroup);
    if (wg % kDecodeLanesPerKey != 0) {
        throw InvalidArgument(fmt::format(
            "{}: decode attention needs workgroups of a multiple of {} invocations; the device "
            "allows {}.",
            label, kDecodeLanesPerKey, wg));
    }
    p.splits = uint32_t(std::clamp<int64_t>((p.context + kDecodeMinChunk - 1) / kDecodeMinChunk, 1,
                                            kDecodeMaxSplits));
    const uint32_t rows = p.seq * uint32_t(a.batch);
    Tensor partial = rec.scratch(DType::f32, {int64_t(rows) * p.heads * p.splits * (p.dim + 2)});
    const bool subgroups = use_subgroups(rec);
    const std::string common(wgsl::ops_llm_sdpa_decode_common);
    Kernel split =
        rec.kernel(fmt::format("{}/decode_split_{}{}", label, type, subgroups ? "_subgroups" : ""),
                   workgroup_reduce_prelude(a.dtype, subgroups) + common +
                       std::string(wgsl::ops_llm_sdpa_decode_split),
                   {{"WG", double(wg)}});
    rec.dispatch(split, {a.q, a.k_cache, a.v_cache, partial, Binding::uniform(p), rec.live_ints()},
                 Grid{p.heads, p.splits, rows});
    const uint32_t combine_wg = rec.workgroup_size(64);
    Kernel combine =
        rec.kernel(fmt::format("{}/decode_combine_{}", label, type),
                   wgsl_alias(a.dtype) + common + std::string(wgsl::ops_llm_sdpa_decode_combine),
                   {{"WG", double(combine_wg)}});
    rec.dispatch(combine, {partial, a.out, Binding::uniform(p), rec.live_ints()},
                 Grid{p.heads, 1, rows});
}

namespace {

// The checks of one (value, cache) pair and the kernel's parameters for it.
CacheUpdateParams check_cache_update(Recorder& rec, const Args& args, const Tensor& value,
                                     const Tensor& cache, const char* pos_name, LiveInt start,
                                     const char* value_name, const char* cache_name, DType& dt) {
    dt = one_float_type(rec, args, {{&value, value_name}, {&cache, cache_name}});
    if (value.rank() != 4 || cache.rank() != 4) {
        args.fail(fmt::format("{} [B, S, H, D] and {} [B, C, H, D] must be 4-D, got {} and {}.",
                              value_name, cache_name, shape_string(value.shape()),
                              shape_string(cache.shape())));
    }
    const Shape& v = value.shape();
    const Shape& c = cache.shape();
    if (v[0] != c[0] || v[2] != c[2] || v[3] != c[3]) {
        args.fail(fmt::format("{} {} and {} {} must agree in B, H and D.", value_name,
                              shape_string(v), cache_name, shape_string(c)));
    }
    expect_positions(args, pos_name, start.value, v[1], c[1]);
    expect_indexable(args, cache, cache_name);
    return CacheUpdateParams{uint32_t(value.numel()),
                             uint32_t(v[1]),
                             uint32_t(c[1]),
                             uint32_t(v[2] * v[3]),
                             uint32_t(start.value),
                             start.slot,
                             0,
                             0};
}

// One dispatch writing one pair, or (with `second`, of the first pair's shapes) two.
void dispatch_cache_update(Recorder& rec, const Args& args, DType dt, const CacheUpdateParams& p,
                           const Tensor& value, const Tensor& cache,
                           const std::pair<const Tensor*, const Tensor*>* second) {
    std::string text(wgsl::ops_llm_kv_cache_update);
    replace_wgsl_marker(text, "SECOND_PAIR",
                        second
                            ? "@group(0) @binding(4) var<storage, read> value2: array<T>;\n"
                              "@group(0) @binding(5) var<storage, read_write> cache2: array<T>;\n"
                              "fn write_second(at: u32, t: u32) { cache2[at] = value2[t]; }\n"
                            : "fn write_second(at: u32, t: u32) {}\n");
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(
        fmt::format("{}/cache_update{}_{}", args.op(), second ? "_pair" : "", wgsl_scalar(dt)),
        wgsl_alias(dt) + text, {{"WG", double(wg)}, {"PAIRS", second ? 2.0 : 1.0}});
    std::vector<Binding> bindings = {value, cache, Binding::uniform(p), rec.live_ints()};
    if (second) bindings.insert(bindings.end(), {*second->first, *second->second});
    rec.dispatch(k, bindings, rec.grid_1d(uint64_t(p.total) * (second ? 2 : 1), wg));
}

}  // namespace

void record_cache_update(Recorder& rec, const Args& args, const Tensor& value, const Tensor& cache,
                         const char* pos_name, LiveInt start, const char* value_name,
                         const char* cache_name) {
    DType dt{};
    const CacheUpdateParams p =
        check_cache_update(rec, args, value, cache, pos_name, start, value_name, cache_name, dt);
    dispatch_cache_update(rec, args, dt, p, value, cache, nullptr);
}

void record_kv_cache_update(Recorder& rec, const Args& args, const Tensor& k, const Tensor& k_cache,
                            const Tensor& v, const Tensor& v_cache, const char* pos_name,
                            LiveInt start) {
    DType dt{}, dv{};
    const CacheUpdateParams p =
        check_cache_update(rec, args, k, k_cache, pos_name, start, "k", "k_cache", dt);
    const CacheUpdateParams pv =
        check_cache_update(rec, args, v, v_cache, pos_name, start, "v", "v_cache", dv);
    if (dt == dv && v.shape() == k.shape() && v_cache.shape() == k_cache.shape()) {
        const std::pair<const Tensor*, const Tensor*> second{&v, &v_cache};
        dispatch_cache_update(rec, args, dt, p, k, k_cache, &second);
        return;
    }
    dispatch_cache_update(rec, args, dt, p, k, k_cache, nullptr);
    dispatch_cache_update(rec, args, dv, pv, v, v_cache, nullptr);
}

}  // namespace wgx::ops
