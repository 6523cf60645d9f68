#include <gtest/gtest.h>

#include "core/dispatch_geometry.h"

namespace wgx {
namespace {

TEST(DispatchGeometry, SmallGridsStayOneDimensional) {
    Grid g = fold_grid(1000, 256, 65535);
    EXPECT_EQ(g.x, 4u);
    EXPECT_EQ(g.y, 1u);
    Grid one = fold_grid(1, 64, 65535);
    EXPECT_EQ(one.x, 1u);
}

TEST(DispatchGeometry, LargeGridsFoldAndCoverEveryInvocation) {
    for (uint64_t n : {65535ull * 256, 65535ull * 256 + 1, 100'000'000ull, 4'000'000'000ull}) {
        Grid g = fold_grid(n, 256, 65535);
        EXPECT_LE(g.x, 65535u);
        EXPECT_LE(g.y, 65535u);
        EXPECT_GE(uint64_t(g.x) * g.y * 256, n) << n;
    }
}

TEST(DispatchGeometry, TooLargeIsAnError) {
    EXPECT_THROW(fold_grid(uint64_t(1) << 50, 64, 65535), InvalidArgument);
}

TEST(DispatchGeometry, WorkgroupSizeRespectsLimits) {
    DeviceLimits l;
    l.max_workgroup_invocations = 128;
    l.max_workgroup_size_x = 128;
    EXPECT_EQ(clamp_workgroup_size(256, l), 128u);
    EXPECT_EQ(clamp_workgroup_size(64, l), 64u);
    l.max_workgroup_invocations = 96;
    EXPECT_EQ(clamp_workgroup_size(256, l), 64u);
}

}  // namespace
}  // namespace wgx
