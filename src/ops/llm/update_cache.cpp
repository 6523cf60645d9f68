// llama.update_cache.default (also update_cache.default): copies value into cache at positions
// start_pos .. start_pos + S - 1, in place; the other positions keep their contents.
// Args: [value [B, S, H, D], cache [B, C, H, D], start_pos, out]. out is the schema's
// placeholder result ([1]); like ExecuTorch's CPU kernel, the op leaves it unwritten.
// float32, or float16 throughout. One dispatch (kv_cache_update.wgsl, shared with
// sdpa_with_kv_cache).
#include "ops/llm/kv_cache.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class UpdateCache final : public BuiltinOp {
  public:
    std::string_view name() const override { return "llama.update_cache.default"; }
    std::vector<std::string_view> aliases() const override { return {"update_cache.default"}; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& value = args.tensor(0, "value");
        const Tensor& cache = args.tensor(1, "cache");
        const LiveInt start = args.live_integer(2, "start_pos");
        args.tensor(3, "out");
        record_cache_update(rec, args, value, cache, "start_pos", start, "value", "cache");
    }
};

}  // namespace

const Op& update_cache_op() {
    static const UpdateCache op;
    return op;
}

}  // namespace wgx::ops
