// fuse_attention on the exported ViTs: the narrow vit fixture as the pinned ExecuTorch exports
// it and as ExecuTorch 1.2 does (vit_et12: the guard reads softmax and zeros through clones and
// views). Every layer's attention must become one call on both, with the bmm, softmax, guard
// and the copies cutting q, k and v out of the projection gone; the program tests run both
// fused graphs against PyTorch, tests/unit program_attention_test the numbers of the pattern.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "program/load.h"
#include "program/passes/fold_prepack.h"
#include "program/passes/fuse_attention.h"

namespace wgx::program {
namespace {

TEST(FuseAttention, ExportedVitsFuseEveryLayer) {
    for (const char* name : {"vit", "vit_et12"}) {
        const auto pte = std::filesystem::path(WGX_FIXTURES_DIR) / ".." / "models" / name /
                         "vulkan.pte";
        ASSERT_TRUE(std::filesystem::exists(pte)) << pte;
        Graph g = load_graph(pte);
        fold_prepack(g);
        auto count = [&] {
            std::map<std::string, int> n;
            for (const OpCall& op : g.chain) n[op.name]++;
            return n;
        };
        const int layers = count()["aten._softmax.default"];
        ASSERT_EQ(layers, 2) << name;  // the narrow vit has 2 encoder layers
        EXPECT_EQ(fuse_attention(g), size_t(layers)) << name;
        auto after = count();
        for (const char* gone : {"aten.bmm.default", "aten._softmax.default", "aten.where.self",
                                 "aten.any.dim", "aten.eq.Scalar", "aten.mul.Scalar"}) {
            EXPECT_EQ(after[gone], 0) << name << ": " << gone;
        }
        EXPECT_EQ(after["wgx.attention.default"], layers) << name;
        // One select per layer is the class token's (after the encoder), none from q, k, v.
        EXPECT_LE(after["aten.select_copy.int"], 1) << name;
    }
}

}  // namespace
}  // namespace wgx::program
