// llama.custom_sdpa.default (also custom_sdpa.default): the attention half of
// sdpa_with_kv_cache, over caches that llama.update_cache filled: query row s (absolute
// position start_pos + s) attends to positions 0 .. start_pos + s when is_causal, else to
// 0 .. start_pos + S - 1 (as ExecuTorch's CPU kernel). Query head h reads kv head
// h / (Hq / Hkv); scale defaults to 1 / sqrt(D).
// Args: [q [B, S, Hq, D], k_cache [B, C, Hkv, D], v_cache, start_pos, attn_mask (none only),
//   dropout_p (ignored, as ExecuTorch does), is_causal, scale (none or a number), out].
// float32, or float16 throughout. One dispatch reading the caches in place (kv_cache.h).
#include "ops/llm/kv_cache.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class CustomSdpa final : public BuiltinOp {
  public:
    std::string_view name() const override { return "llama.custom_sdpa.default"; }
    std::vector<std::string_view> aliases() const override { return {"custom_sdpa.default"}; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(9, 9);
        const Tensor& q = args.tensor(0, "q");
        const Tensor& k_cache = args.tensor(1, "k_cache");
        const Tensor& v_cache = args.tensor(2, "v_cache");
        const LiveInt start = args.live_integer(3, "start_pos");
        args.number(5, "dropout_p");
        const bool causal = args.boolean(6, "is_causal");
        const std::optional<double> scale = args.optional_number(7, "scale");
        const Tensor& out = args.tensor(8, "out");
        const CacheAttention a = check_cache_attention(rec, args, q, k_cache, v_cache, out,
                                                       "start_pos", start, causal, 4, scale);
        record_cache_attention(rec, name(), a);
    }
};

}  // namespace

const Op& custom_sdpa_op() {
    static const CustomSdpa op;
    return op;
}

}  // namespace wgx::ops
