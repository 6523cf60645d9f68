// ops::split_rows, the planner behind binding a tensor larger than one storage binding in parts:
// one range when the tensor fits (exactly at the limit too), else ranges that cover every row
// once, in order, each within the limit, each starting at an aligned byte offset for the tensor
// and for the others bound from the same row (also_row_bytes), all but the last of one size;
// and an error naming the tensor when no aligned part fits.
#include <gtest/gtest.h>

#include <string>

#include "ops/common/row_split.h"
#include "wgx/error.h"

namespace wgx::ops {
namespace {

DeviceLimits limits(uint64_t max_binding, uint32_t align) {
    DeviceLimits l;
    l.max_storage_binding_bytes = max_binding;
    l.min_storage_offset_alignment = align;
    return l;
}

// Checks the properties every split must have; returns the number of parts.
size_t check_split(const DeviceLimits& l, int64_t rows, uint64_t row_bytes,
                   std::initializer_list<uint64_t> also) {
    const auto parts = split_rows(l, rows, row_bytes, also, "t");
    const uint64_t align = std::max<uint64_t>(16, l.min_storage_offset_alignment);
    int64_t next = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        const RowRange& r = parts[i];
        EXPECT_EQ(r.first, next);
        EXPECT_GT(r.count, 0);
        if (parts.size() > 1) {
            EXPECT_LE(uint64_t(r.count) * row_bytes, l.max_storage_binding_bytes);
            EXPECT_EQ(uint64_t(r.first) * row_bytes % align, 0u) << "part " << i;
            for (uint64_t b : also) {
                EXPECT_EQ(uint64_t(r.first) * b % align, 0u) << "part " << i;
            }
            if (i + 1 < parts.size()) {
                EXPECT_EQ(r.count, parts[0].count);
            }
        }
        next = r.first + r.count;
    }
    EXPECT_EQ(next, rows);
    return parts.size();
}

TEST(RowSplit, OneRangeWhenTheTensorFits) {
    EXPECT_EQ(check_split(limits(4096, 256), 16, 256, {}), 1u);  // exactly the limit
    EXPECT_EQ(check_split(limits(uint64_t(128) << 20, 256), 128256, 1024, {4}), 1u);
    EXPECT_EQ(check_split(limits(4096, 256), 1, 4096, {}), 1u);
}

TEST(RowSplit, PartsFitAndStayAligned) {
    // One row past the limit: two parts.
    EXPECT_EQ(check_split(limits(4096, 256), 17, 256, {}), 2u);
    // Odd row widths: the part size is a multiple of the rows that realign (8 rows of 148
    // bytes with a 32-byte alignment; 64 with 256).
    EXPECT_EQ(check_split(limits(4096, 32), 301, 148, {}), 13u);
    EXPECT_EQ(check_split(limits(65536, 256), 1001, 148, {4}), 3u);
    // The other tensors' alignment decides when the row already realigns: 256-byte rows, but a
    // float32 output column per row needs parts of multiples of 64 rows.
    EXPECT_EQ(check_split(limits(60000, 256), 300, 256, {}), 2u);
    EXPECT_EQ(check_split(limits(60000, 256), 300, 256, {4}), 2u);
    EXPECT_EQ(split_rows(limits(60000, 256), 300, 256, {}, "t")[0].count, 234);
    EXPECT_EQ(split_rows(limits(60000, 256), 300, 256, {4}, "t")[0].count, 192);
    // A 1B model's fp32 output projection under the WebGPU default: 128256 x 2048.
    EXPECT_EQ(check_split(limits(uint64_t(128) << 20, 256), 128256, 8192, {4}), 8u);
    // float16 rows of odd length.
    EXPECT_EQ(check_split(limits(8192, 32), 333, 90, {2}), 5u);
    // An alignment below 16 is raised to 16.
    EXPECT_EQ(check_split(limits(4096, 4), 100, 100, {}), 3u);
}

TEST(RowSplit, NoAlignedPartFitsIsAnErrorNamingTheTensor) {
    try {
        split_rows(limits(4096, 256), 8, 6000, {}, "op: weight float32 [8, 1500]");
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("op: weight float32 [8, 1500]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("4096"), std::string::npos) << msg;
        EXPECT_NE(msg.find("maxStorageBufferBindingSize"), std::string::npos) << msg;
    }
    // Rows that fit, but not the 64 of them an aligned start needs.
    EXPECT_THROW(split_rows(limits(4096, 256), 100, 100, {4}, "t"), InvalidArgument);
}

}  // namespace
}  // namespace wgx::ops
