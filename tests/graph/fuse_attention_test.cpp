// fuse_attention on the exported ViTs: the narrow vit fixture as the pinned ExecuTorch exports
// it and as ExecuTorch 1.2 does (vit_et12: the guard reads softmax and zeros through clones and
// views). Every layer's attention must become one call on both, with the bmm, softmax, guard
// and the copies cutting q, k and v out of the projection gone; the program tests run both
// fused graphs against PyTorch, tests/unit program_attention_test the numbers of the pattern.
#include <gtest/gtest.h>

#include <string>

#include "graph/passes/fuse_attention.h"
#include "model_fixtures.h"

namespace wgx::graph {
namespace {

TEST(FuseAttention, ExportedVitsFuseEveryLayer) {
    for (const char* name : {"vit", "vit_et12"}) {
        Graph g = test::load_model_fixture(name);
        const int layers = test::op_counts(g)["aten._softmax.default"];
        ASSERT_EQ(layers, 2) << name;  // the narrow vit has 2 encoder layers
        EXPECT_EQ(fuse_attention(g), size_t(layers)) << name;
        auto after = test::op_counts(g);
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
}  // namespace wgx::graph
