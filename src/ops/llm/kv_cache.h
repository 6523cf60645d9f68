// The KV-cache kernels of llama.sdpa_with_kv_cache, kept apart for the two ops plain exports
// split it into (update_cache, custom_sdpa): writing new keys/values into a cache in place,
// and attention of query rows over a cache read in place (no copy of it).
#pragma once

#include <cstdint>
#include <optional>

#include "wgx/op.h"

namespace wgx::ops {

// The uniform of the decode kernels (sdpa_decode_common.wgsl) and sdpa_prefill.wgsl. The first
// position (input_pos) is read from the live integers when start_slot names one (LiveInt), so a
// decode step at the next position replays the same recording.
struct CacheAttentionParams {
    uint32_t seq, heads, kv_heads, dim;
    uint32_t context, start, causal, group;
    float scale;
    uint32_t start_slot;
    uint32_t splits;  // set by record_cache_attention for the decode kernels
    uint32_t pad;
};
static_assert(sizeof(CacheAttentionParams) == 48);
static_assert(offsetof(CacheAttentionParams, context) == 16);
static_assert(offsetof(CacheAttentionParams, scale) == 32);

// A checked attention call: q [B, S, Hq, D], caches [B, C, Hkv, D], out like q.
struct CacheAttention {
    Tensor q, k_cache, v_cache, out;
    DType dtype = DType::f32;  // as stored: f32 or f16
    CacheAttentionParams params{};
    int64_t batch = 0;
};

// Validates an attention over caches: shapes as above with Hq a multiple of Hkv, one float
// type, 0 <= start and start + S <= C (an error naming the op, `pos_name` and the numbers
// otherwise), attn_mask none (the argument at `mask_index`), scale none (1 / sqrt(D)) or a number.
CacheAttention check_cache_attention(const Recorder& rec, const Args& args, const Tensor& q,
                                     const Tensor& k_cache, const Tensor& v_cache,
                                     const Tensor& out, const char* pos_name, LiveInt start,
                                     bool causal, size_t mask_index, std::optional<double> scale);

// Whether the call takes the block kernel (sdpa_prefill.wgsl: query rows share key loads)
// rather than the decode kernels (sdpa_decode_split.wgsl): for at least 4 query rows (half a block)
// and head sizes up to 128.
bool uses_prefill_kernel(int64_t seq, int64_t dim);

// Records the attention: one dispatch for prefill, two for decode (the split keys, then their
// partial results combined).
void record_cache_attention(Recorder& rec, std::string_view label, const CacheAttention& a);

// Checks value [B, S, H, D] against cache [B, C, H, D] (same B, H, D, dtype; 0 <= start and
// start + S <= C) and records the in-place write of value into cache positions start ..
// start + S - 1. `value_name` and `cache_name` name the arguments in errors.
void record_cache_update(Recorder& rec, const Args& args, const Tensor& value, const Tensor& cache,
                         const char* pos_name, LiveInt start, const char* value_name,
                         const char* cache_name);

// The same for a layer's keys and values ("k", "k_cache", "v", "v_cache" in errors): one
// dispatch for both where their shapes and dtypes agree (a decode step's dispatches are a few
// microseconds each whatever their work), else two.
void record_kv_cache_update(Recorder& rec, const Args& args, const Tensor& k, const Tensor& k_cache,
                            const Tensor& v, const Tensor& v_cache, const char* pos_name,
                            LiveInt start);

}  // namespace wgx::ops
