// llama.sdpa_with_kv_cache.default (the Vulkan delegate spells it sdpa_with_kv_cache.default):
// writes k and v into k_cache and v_cache at positions input_pos .. input_pos + S - 1, in
// place (the caches are state that persists from run to run), then attention of each query
// row s (absolute position input_pos + s) over the cache: positions 0 .. input_pos + s when
// is_causal, 0 .. input_pos + S - 1 otherwise (as ExecuTorch's CPU kernel). Query head h reads
// kv head h / (Hq / Hkv); scale defaults to 1 / sqrt(D).
// Args: [q [B, S, Hq, D], k [B, S, Hkv, D], v [B, S, Hkv, D], k_cache [B, C, Hkv, D], v_cache,
//   input_pos, seq_len (read, not used: S is q's; the Vulkan delegate writes the traced example's
//   value there, 1, whatever the run's S), attn_mask (none only), dropout_p (ignored, as ExecuTorch
//   does), is_causal, scale (none or a number), out [B, S, Hq, D]]. float32, or float16 throughout.
// Three dispatches: the two cache writes, then the attention, which reads the caches in place
// (kv_cache.h).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/llm/kv_cache.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class SdpaWithKvCache final : public BuiltinOp {
  public:
    std::string_view name() const override { return "llama.sdpa_with_kv_cache.default"; }
    std::vector<std::string_view> aliases() const override {
        return {"sdpa_with_kv_cache.default"};
    }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(12, 12);
        const Tensor& q = args.tensor(0, "q");
        const Tensor& k = args.tensor(1, "k");
        const Tensor& v = args.tensor(2, "v");
        const Tensor& k_cache = args.tensor(3, "k_cache");
        const Tensor& v_cache = args.tensor(4, "v_cache");
        const LiveInt input_pos = args.live_integer(5, "input_pos");
        args.integer(6, "seq_len");
        args.number(8, "dropout_p");
        const bool causal = args.boolean(9, "is_causal");
        const std::optional<double> scale = args.optional_number(10, "scale");
        const Tensor& out = args.tensor(11, "out");

        const CacheAttention a = check_cache_attention(rec, args, q, k_cache, v_cache, out,
                                                       "input_pos", input_pos, causal, 7, scale);
        for (const auto& [t, what] : {std::pair{&k, "k"}, std::pair{&v, "v"}}) {
            expect_dtype(args, *t, q.dtype(), what);
            Shape want = k_cache.shape();
            want[1] = q.shape()[1];
            expect_shape(args, *t, want, what);
        }
        record_kv_cache_update(rec, args, k, k_cache, v, v_cache, "input_pos", input_pos);
        record_cache_attention(rec, name(), a);
    }
};

}  // namespace

const Op& sdpa_with_kv_cache_op() {
    static const SdpaWithKvCache op;
    return op;
}

}  // namespace wgx::ops
