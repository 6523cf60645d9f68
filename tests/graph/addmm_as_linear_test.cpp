// addmm_as_linear: which products with a transposed matrix become aten.linear (addmm with a
// 1-D bias and alpha = beta = 1, mm), which stay (other scales, a 2-D bias, a copy read by
// another call or not a plain transpose), and that the dropped copy's source keeps a valid
// memory plan. The program tests run every plain fixture (whose linear layers are this form)
// against PyTorch with the pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "copy_interpreter.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/addmm_as_linear.h"
#include "graph/passes/graph_uses.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

// y = addmm(b, x, permute(w, perm), beta, alpha) with x [5, 3], w [4, 3] (a relu output, so
// planned), b [4]; or mm(x, permute(w)) without the bias.
struct Product {
    test::GraphBuilder b;
    int32_t x, w, bias, wt, y, relu_out;
    Product(bool with_bias, std::vector<int64_t> perm = {1, 0}, double beta = 1, double alpha = 1,
            std::vector<int64_t> bias_dims = {4}) {
        const int32_t w0 = b.tensor({4, 3});
        x = b.tensor({5, 3});
        w = b.tensor({4, 3});
        b.relu(w0, w);
        bias = b.tensor(bias_dims);
        wt = b.tensor({3, 4});
        y = b.tensor({5, 4});
        b.permute(w, perm, wt);
        if (with_bias) {
            b.call("aten.addmm.default",
                   {bias, x, wt, b.add(Double{beta}), b.add(Double{alpha}), y});
        } else {
            b.call("aten.mm.default", {x, wt, y});
        }
        relu_out = b.tensor({5, 4});
        b.relu(y, relu_out);
        b.g.input_ids = {w0, x, bias};
        b.g.output_ids = {relu_out};
    }
};

TEST(AddmmAsLinear, AddmmAndMmWithATransposeBecomeLinear) {
    for (bool with_bias : {true, false}) {
        Product p(with_bias);
        const Graph before = p.b.g;
        assign_memory_pools(p.b.g);  // as a file's own plan
        EXPECT_EQ(addmm_as_linear(p.b.g), 1u);
        EXPECT_EQ(test::call_names(p.b.g),
                  (std::vector<std::string>{"aten.relu.default", "aten.linear.default",
                                            "aten.relu.default"}));
        const OpCall& linear = p.b.g.chain[1];
        EXPECT_EQ(linear.args[0], p.x);
        EXPECT_EQ(linear.args[1], p.w);  // read transposed by the GEMM, no copy
        if (with_bias) {
            EXPECT_EQ(linear.args[2], p.bias);
        } else {
            EXPECT_TRUE(is_null(p.b.g, linear.args[2]));
        }
        EXPECT_EQ(linear.args[3], p.y);
        // w is read later than before: its pool was cleared for the planner.
        EXPECT_EQ(std::get<Tensor>(p.b.g.values[size_t(p.w)]).mem_obj_id, -1);
        assign_memory_pools(p.b.g);
        check_graph(p.b.g, "test");
        test::expect_pools_disjoint(p.b.g);
    }
}

TEST(AddmmAsLinear, NearMissesStay) {
    // A scaled product, a 2-D bias, a permutation that is not a transpose of a 2-D matrix.
    for (Product p : {Product(true, {1, 0}, 2.0), Product(true, {1, 0}, 1.0, 0.5),
                      Product(true, {1, 0}, 1.0, 1.0, {5, 4}), Product(true, {0, 1})}) {
        EXPECT_EQ(addmm_as_linear(p.b.g), 0u);
    }
    // The transposed copy is also a graph output, or read by another call.
    Product out(true);
    out.b.g.output_ids.push_back(out.wt);
    EXPECT_EQ(addmm_as_linear(out.b.g), 0u);
    Product shared(false);
    const int32_t other = shared.b.tensor({3, 4});
    shared.b.relu(shared.wt, other);
    shared.b.g.output_ids.push_back(other);
    EXPECT_EQ(addmm_as_linear(shared.b.g), 0u);
    // A malformed call (too few arguments) is left alone, not read past its end.
    Product bad(true);
    bad.b.g.chain[2].args.resize(3);
    EXPECT_EQ(addmm_as_linear(bad.b.g), 0u);
}

}  // namespace
}  // namespace wgx::graph
