// Tensor shapes and data round-trips for every dtype, including odd byte sizes.
#include <algorithm>
#include <limits>
#include <string>

#include "gpu/device.h"
#include "test_util.h"

namespace wgx::test {
namespace {

template <typename T>
void expect_round_trip(DType dtype, const Shape& shape, std::vector<T> data) {
    Tensor t = ctx().tensor(dtype, shape).set_data(data);
    EXPECT_EQ(t.get_data<T>(), data) << dtype_name(dtype) << " " << shape_string(shape);
}

TEST(Tensor, ReportsShapeAndSizes) {
    Tensor t = ctx().tensor(DType::i64, {2, 3, 5});
    EXPECT_EQ(t.numel(), 30);
    EXPECT_EQ(t.rank(), 3);
    EXPECT_EQ(t.host_bytes(), 240u);
    EXPECT_EQ(t.device_bytes(), 120u);  // int64 lives as int32 on the GPU
    Tensor scalar = ctx().tensor(DType::f32, {});
    EXPECT_EQ(scalar.numel(), 1);
}

TEST(Tensor, RoundTripsEveryDtype) {
    for (Shape shape : {Shape{1}, Shape{3}, Shape{7}, Shape{2, 5}, Shape{13, 1, 3}}) {
        size_t n = numel(shape);
        auto f = random_floats(n, 1);
        auto ints = random_ints(n, 2, -100000, 100000);
        expect_round_trip<float>(DType::f32, shape, f);
        expect_round_trip<int32_t>(DType::i32, shape, ints);
        std::vector<int64_t> i64(ints.begin(), ints.end());
        i64[0] = std::numeric_limits<int32_t>::min();
        expect_round_trip<int64_t>(DType::i64, shape, i64);
        std::vector<double> f64;
        for (float x : f) f64.push_back(x);  // exactly representable in float32
        expect_round_trip<double>(DType::f64, shape, f64);
        std::vector<int8_t> i8;
        std::vector<uint8_t> u8, b;
        for (size_t i = 0; i < n; ++i) {
            i8.push_back(static_cast<int8_t>(ints[i] % 128));
            u8.push_back(static_cast<uint8_t>(ints[i] & 0xff));
            b.push_back(ints[i] > 0 ? 1 : 0);
        }
        expect_round_trip<int8_t>(DType::i8, shape, i8);
        expect_round_trip<uint8_t>(DType::u8, shape, u8);
        expect_round_trip<uint8_t>(DType::boolean, shape, b);
        std::vector<uint16_t> h;
        for (size_t i = 0; i < n; ++i) h.push_back(static_cast<uint16_t>(0x3c00 + i));
        expect_round_trip<uint16_t>(DType::f16, shape, h);
    }
}

TEST(Tensor, ThreeBytesRoundTrip) { expect_round_trip<uint8_t>(DType::u8, {3}, {7, 250, 9}); }

TEST(Tensor, BoolVectorsAreAccepted) {
    Tensor t = ctx()
                   .tensor(DType::boolean, {5})
                   .set_data(std::vector<bool>{true, false, true, true, false});
    EXPECT_EQ(t.get_data<uint8_t>(), (std::vector<uint8_t>{1, 0, 1, 1, 0}));
}

TEST(Tensor, RejectsBadShapes) {
    EXPECT_THROW(ctx().tensor(DType::f32, {2, 0}), InvalidArgument);
    EXPECT_THROW(ctx().tensor(DType::f32, {-1}), InvalidArgument);
    EXPECT_THROW(ctx().tensor(DType::f32, {1, 1, 1, 1, 1, 1, 1, 1, 1}), InvalidArgument);
    EXPECT_THROW(ctx().tensor(DType::f32, {1ll << 40, 1ll << 40}), InvalidArgument);
}

TEST(Tensor, RejectsWrongDataSizeOrType) {
    Tensor t = ctx().tensor(DType::f32, {4});
    EXPECT_THROW(t.set_data({1.f, 2.f}), InvalidArgument);
    EXPECT_THROW(t.set_data(std::vector<int32_t>{1, 2, 3, 4}), InvalidArgument);
    EXPECT_THROW(t.get_data<double>(), InvalidArgument);
}

TEST(Tensor, Int64OutOfInt32RangeIsAnErrorNamingTheElement) {
    Tensor t = ctx().tensor(DType::i64, {3});
    try {
        t.set_data(std::vector<int64_t>{1, int64_t(1) << 40, 3});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("element 1"), std::string::npos) << e.what();
    }
}

// maxBufferSize bounds a tensor; maxStorageBufferBindingSize only what one binding covers (ops
// bind larger tensors in parts, tests/unit/split_bindings_test.cpp).
TEST(Tensor, LargerThanTheDeviceAllowsIsAClearError) {
    uint64_t max = ctx().device_info().limits.max_buffer_bytes;
    int64_t too_many = static_cast<int64_t>(max / 4 + 1024);
    try {
        ctx().tensor(DType::f32, {too_many});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("larger than the device allows"), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::to_string(too_many)), std::string::npos) << msg;  // the shape
        EXPECT_NE(msg.find("maxBufferSize " + std::to_string(max)), std::string::npos) << msg;
    }
}

// A view reads and writes its range of the tensor's memory; one outside the tensor, or ending
// inside a 4-byte word before the tensor's end, is refused.
TEST(Tensor, ViewsShareTheTensorsMemory) {
    std::vector<float> data = random_floats(24, 5);
    Tensor t = ctx().tensor(DType::f32, {4, 6}).set_data(data);
    Tensor v = t.view(8, {2, 5});
    EXPECT_EQ(v.shape(), (Shape{2, 5}));
    EXPECT_EQ(v.get_data<float>(), std::vector<float>(data.begin() + 8, data.begin() + 18));
    v.set_data(std::vector<float>(10, 3.f));
    std::vector<float> want = data;
    std::fill(want.begin() + 8, want.begin() + 18, 3.f);
    EXPECT_EQ(t.get_data<float>(), want);

    EXPECT_THROW(t.view(20, {5}), InvalidArgument);
    EXPECT_THROW(t.view(-1, {2}), InvalidArgument);
    Tensor h = ctx().tensor(DType::f16, {7});
    EXPECT_THROW(h.view(1, {2}), InvalidArgument);  // starts inside a word
    EXPECT_THROW(h.view(2, {3}), InvalidArgument);  // ends inside one, before the end
    EXPECT_NO_THROW(h.view(4, {3}));                // ends inside one, at the end
}

// Writes larger than the device layer stages at once (gpu::Device::kMaxUnsubmittedWriteBytes)
// go in pieces with a submit between: one such write and several smaller ones in a row all
// arrive whole.
TEST(Tensor, WritesLargerThanOneStagingRoundArriveWhole) {
    const int64_t n = int64_t(gpu::Device::kMaxUnsubmittedWriteBytes / 4) + 12345;
    std::vector<float> big(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) big[size_t(i)] = float(i % 1000003) * 0.5f - 7.f;
    Tensor t = ctx().tensor(DType::f32, {n}).set_data(big);
    EXPECT_EQ(t.get_data<float>(), big);
    std::vector<Tensor> parts;
    for (int k = 0; k < 3; ++k) {
        std::vector<float> part(big.begin() + k, big.begin() + k + n / 2);
        parts.push_back(ctx().tensor(DType::f32, {n / 2}).set_data(part));
    }
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(parts[size_t(k)].get_data<float>(),
                  std::vector<float>(big.begin() + k, big.begin() + k + n / 2))
            << "write " << k;
    }
}

}  // namespace
}  // namespace wgx::test

namespace wgx::test {
namespace {

// get_bytes into the caller's memory: the same bytes as the allocating form, for a type stored
// as is and for int64 (widened from the GPU's int32), and a destination of the wrong size is
// refused without touching it.
TEST(Tensor, GetBytesIntoCallerMemory) {
    Context& c = ctx();
    std::vector<float> f = random_floats(1031, 77);
    Tensor tf = c.tensor(DType::f32, {1031}).set_data(f);
    std::vector<std::byte> mine(tf.host_bytes());
    tf.get_bytes(mine);
    EXPECT_EQ(mine, tf.get_bytes());
    EXPECT_EQ(std::memcmp(mine.data(), f.data(), mine.size()), 0);

    std::vector<int64_t> l = {-3, 0, 7, 2147483647, -2147483647 - 1};
    Tensor tl = c.tensor(DType::i64, {5}).set_data(l);
    std::vector<int64_t> back(5, 99);
    tl.get_bytes(std::as_writable_bytes(std::span<int64_t>(back)));
    EXPECT_EQ(back, l);

    std::vector<std::byte> short_buffer(tf.host_bytes() - 4, std::byte{0x5a});
    try {
        tf.get_bytes(short_buffer);
        ADD_FAILURE() << "a short destination was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("destination"), std::string::npos) << e.what();
    }
    for (std::byte b : short_buffer) ASSERT_EQ(b, std::byte{0x5a});
}

}  // namespace
}  // namespace wgx::test
