// Attention kernels read from WGSL files (wgx_microbench --attention-wgsl), timed on the same
// cases and checked against the same float64 reference as wgx.attention, so a candidate kernel
// can be measured on a GPU before it replaces src/ops/matmul/attention.wgsl.
//
// A variant file is a complete kernel with the built-in one's interface: entry point `main`,
// bindings 0-4 = q, k, v, out and the uniform Params exactly as attention.wgsl declares them,
// the element type S prepended (`alias S = f32;`, or `enable f16; alias S = f16;`). Its first
// line may be a directive comment saying what the bench must provide:
//   // bench: rows=8 wg=256 overrides=D,DV,LK vec4=k,v
//     rows       query rows per workgroup: the grid is {ceil(Lq / rows), B, 1} (default 8)
//     wg         invocations per workgroup the file declares (default 256); checked against the
//                device's limit, and the value of the override WG if listed
//     overrides  pipeline-override constants to set from the call: D, DV, LK (the head sizes
//                and the key count) and WG (wg)
//     vec4       bindings 5, 6, ... hold these of q, k, v again, in this order, for declarations
//                as array<vec4<S>> (the bench binds the same tensors twice)
#pragma once

#include <string>
#include <vector>

#include "wgx/op.h"

namespace wgx::bench {

struct AttentionVariant {
    std::string path;   // as given
    std::string label;  // the file's name without its folders: names the report rows
    std::string wgsl;   // the file's text (without the element type prefix)
    uint32_t rows = 8;
    uint32_t wg = 256;
    std::vector<std::string> overrides;  // of D, DV, LK, WG
    std::vector<std::string> vec4;       // of q, k, v
};

// Reads and parses a variant file; throws InvalidArgument naming the file for an unreadable
// file or a directive it cannot use.
AttentionVariant load_attention_variant(const std::string& path);

// An op taking wgx.attention.default's arguments ([q, k, v, q_view, k_view, v_view, sizes,
// scale, zero_masked_rows, out]) that dispatches the variant's kernel instead. Not a built-in
// op: its kernels compile with DeviceInfo::shader_checks (main turns them off for a variant run
// so the variants and the built-in kernel are compared alike).
class AttentionVariantOp final : public Op {
  public:
    explicit AttentionVariantOp(const AttentionVariant& variant) : variant_(variant) {}
    std::string_view name() const override { return "bench.attention_variant"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    const AttentionVariant& variant_;
};

}  // namespace wgx::bench
