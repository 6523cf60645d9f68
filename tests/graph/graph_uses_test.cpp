// graph_uses' element_count: what the passes use instead of multiplying dims themselves. Shapes
// with a zero dim pass graph_check whatever their other dims are, and a reshape's target shape
// is an unchecked int list, so the count must neither overflow nor trust either (the fuzzer
// found constant_scalar multiplying [1623485986416, 83886080, 0] into a signed overflow).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "graph/passes/graph_uses.h"

namespace wgx::graph {
namespace {

TEST(ElementCount, CountsZeroOverflowAndNegativeDims) {
    EXPECT_EQ(element_count({}), 1);
    EXPECT_EQ(element_count({2, 3, 7}), 42);
    // A zero dim makes the shape empty even when the dims before it overflow.
    EXPECT_EQ(element_count({1623485986416, 83886080, 0}), 0);
    EXPECT_EQ(element_count({0, std::numeric_limits<int64_t>::max()}), 0);
    // Overflow and negative dims give -1, never equal to a real count.
    EXPECT_EQ(element_count({int64_t(1) << 40, int64_t(1) << 40}), -1);
    EXPECT_EQ(element_count({std::numeric_limits<int64_t>::max(), 2}), -1);
    EXPECT_EQ(element_count({-1, 4}), -1);
    EXPECT_EQ(element_count({3, -2, -2}), -1);
}

}  // namespace
}  // namespace wgx::graph
