// The ops through which a hybrid LLM (Qwen 3.5's DeltaNet, LFM2's short convolutions) keeps its
// state buffers: aten.copy / aten.copy_ (src broadcast into self's shape, copy_ writing self in
// place), aten.slice_scatter (self with one slice replaced) and aten.select_scatter (one index).
// Pure data movement, so the results must equal the CPU reference exactly: random inputs (never all
// zeros), outputs poisoned with NaN first, odd sizes, broadcasting, negative and clamped bounds,
// steps > 1, int32, and float16 and byte elements packed in shared words; bad arguments give errors
// naming the argument.
#include <algorithm>
#include <random>

#include "test_util.h"

namespace wgx::test {
namespace {

std::vector<float> run_copy(const char* name, const Shape& self_shape, const Shape& src_shape,
                            const std::vector<float>& src) {
    Tensor self = ctx().tensor(DType::f32, self_shape);
    poison(self);
    Tensor s = ctx().tensor(DType::f32, src_shape).set_data(src);
    const bool in_place = std::string(name) == "aten.copy_.default";
    Tensor out = in_place ? self : ctx().tensor(DType::f32, self_shape);
    if (!in_place) poison(out);
    ctx().reset();
    ctx().record(op(name), {self, s, false, out});
    ctx().submit();
    auto got = out.get_data<float>();
    ctx().reset();
    return got;
}

// src [.., 1 or n, ..] read at every index of self's shape (trailing dims aligned).
std::vector<float> broadcast_ref(const Shape& shape, const Shape& src_shape,
                                 const std::vector<float>& src) {
    std::vector<float> out(size_t(numel(shape)));
    const size_t lead = shape.size() - src_shape.size();
    for (int64_t o = 0; o < numel(shape); ++o) {
        int64_t rest = o, at = 0, stride = 1;
        for (size_t d = shape.size(); d-- > 0;) {
            const int64_t i = rest % shape[d];
            rest /= shape[d];
            if (d >= lead) {
                const int64_t n = src_shape[d - lead];
                at += (n == 1 ? 0 : i) * stride;
                stride *= n;
            }
        }
        out[size_t(o)] = src[size_t(at)];
    }
    return out;
}

TEST(StateOps, CopyAndCopyInPlaceBroadcastSrcIntoSelf) {
    struct Case {
        Shape self, src;
    };
    const std::vector<Case> cases = {
        {{1, 160, 4}, {1, 160, 4}},  // a conv state written back whole
        {{1, 4, 16, 24}, {1, 4, 16, 24}},
        {{3, 5, 7}, {5, 1}},  // broadcast over a middle and a leading dim
        {{2, 1, 9}, {9}},
        {{13}, {1}},
    };
    uint32_t seed = 40;
    for (const char* name : {"aten.copy.default", "aten.copy_.default"}) {
        for (const Case& c : cases) {
            const auto src = random_floats(size_t(numel(c.src)), seed++);
            EXPECT_EQ(run_copy(name, c.self, c.src, src), broadcast_ref(c.self, c.src, src))
                << name << " " << shape_string(c.self) << " <- " << shape_string(c.src);
        }
    }
}

// copy_ into a tensor that persists: a second recording reads what the first wrote.
TEST(StateOps, CopyInPlaceWritesTheBufferItself) {
    Tensor state = ctx().tensor(DType::f32, {2, 3});
    poison(state);
    const auto fresh = random_floats(6, 7);
    Tensor src = ctx().tensor(DType::f32, {2, 3}).set_data(fresh);
    Tensor out = ctx().tensor(DType::f32, {2, 3});
    ctx().reset();
    ctx().record(op("aten.copy_.default"), {state, src, false, state});
    ctx().record(op("aten.clone.default"), {state, out});
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), fresh);
    EXPECT_EQ(state.get_data<float>(), fresh);
    ctx().reset();
}

struct ScatterCase {
    Shape self;
    int64_t dim;
    std::optional<int64_t> start, end;
    int64_t step;
};

// PyTorch's clamped [start, end) of a dim of n.
std::pair<int64_t, int64_t> bounds(const ScatterCase& c, int64_t n) {
    auto fix = [n](std::optional<int64_t> v, int64_t absent) {
        if (!v) return absent;
        int64_t x = *v < 0 ? *v + n : *v;
        return std::clamp<int64_t>(x, 0, n);
    };
    const int64_t s = fix(c.start, 0);
    return {s, std::max(s, fix(c.end, n))};
}

TEST(StateOps, SliceScatterReplacesOneSlice) {
    const int64_t kMax = std::numeric_limits<int64_t>::max();
    const std::vector<ScatterCase> cases = {
        {{1, 160, 4}, 0, 0, 1, 1},  // a state's [:batch] after mul_ (the exports' form)
        {{1, 4, 16, 24}, 0, 0, 1, 1},
        {{5, 7, 3}, 1, 2, 6, 1},
        {{5, 7, 3}, 1, 1, kMax, 2},  // to the end, every other index
        {{5, 7, 3}, -1, -2, std::nullopt, 1},
        {{11, 2}, 0, std::nullopt, std::nullopt, 3},
        {{4, 9}, 1, -20, 40, 4},  // bounds clamped to the dim
    };
    uint32_t seed = 60;
    for (const ScatterCase& c : cases) {
        const int64_t dim = c.dim < 0 ? c.dim + int64_t(c.self.size()) : c.dim;
        const int64_t n = c.self[size_t(dim)];
        const auto [start, end] = bounds(c, n);
        const int64_t len = (end - start + c.step - 1) / c.step;
        Shape src_shape = c.self;
        src_shape[size_t(dim)] = len;
        const auto self = random_floats(size_t(numel(c.self)), seed++);
        const auto src = random_floats(size_t(numel(src_shape)), seed++);
        std::vector<float> want = self;
        int64_t inner = 1;
        for (size_t d = size_t(dim) + 1; d < c.self.size(); ++d) inner *= c.self[d];
        const int64_t outer = numel(c.self) / (inner * n);
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t k = 0; k < len; ++k) {
                for (int64_t i = 0; i < inner; ++i) {
                    want[size_t((o * n + start + k * c.step) * inner + i)] =
                        src[size_t((o * len + k) * inner + i)];
                }
            }
        }
        Tensor out = ctx().tensor(DType::f32, c.self);
        poison(out);
        auto opt = [](std::optional<int64_t> v) { return v ? Arg(*v) : Arg(); };
        ctx().reset();
        ctx().record(op("aten.slice_scatter.default"),
                     {ctx().tensor(DType::f32, c.self).set_data(self),
                      ctx().tensor(DType::f32, src_shape).set_data(src), c.dim, opt(c.start),
                      opt(c.end), c.step, out});
        ctx().submit();
        EXPECT_EQ(out.get_data<float>(), want)
            << shape_string(c.self) << " dim " << c.dim << " step " << c.step;
    }
    ctx().reset();
}

// 16- and 8-bit elements share words: odd sizes put a slice's edge inside a word, which must
// come out whole (bits compared exactly; float16 as its bit patterns).
template <typename T>
void check_packed_scatter(DType dtype, uint32_t seed) {
    const Shape self_shape{3, 7, 5}, src_shape{3, 3, 5};
    std::mt19937 gen(seed);
    auto fill = [&](size_t n) {
        std::vector<T> v(n);
        for (T& x : v) x = T(1 + gen() % 200);  // nonzero; valid float16 bits (tiny normals)
        return v;
    };
    const auto self = fill(size_t(numel(self_shape)));
    const auto src = fill(size_t(numel(src_shape)));
    std::vector<T> want = self;
    for (int64_t o = 0; o < 3; ++o) {
        for (int64_t k = 0; k < 3; ++k) {
            for (int64_t i = 0; i < 5; ++i) {
                want[size_t((o * 7 + 1 + 2 * k) * 5 + i)] = src[size_t((o * 3 + k) * 5 + i)];
            }
        }
    }
    Tensor out = ctx().tensor(dtype, self_shape);
    out.set_data(std::vector<T>(want.size(), T(255)));
    ctx().reset();
    ctx().record(op("aten.slice_scatter.default"),
                 {ctx().tensor(dtype, self_shape).set_data(self),
                  ctx().tensor(dtype, src_shape).set_data(src), 1, 1, 6, 2, out});
    ctx().submit();
    EXPECT_EQ(out.get_data<T>(), want) << dtype_name(dtype);
    ctx().reset();
}

TEST(StateOps, SliceScatterMovesPackedElementsAsBits) {
    check_packed_scatter<uint16_t>(DType::f16, 1);
    check_packed_scatter<uint8_t>(DType::u8, 2);
    check_packed_scatter<int8_t>(DType::i8, 3);
}

TEST(StateOps, SliceScatterTakesInt32) {
    const auto self = random_ints(12, 3), src = random_ints(4, 4);
    Tensor out = ctx().tensor(DType::i32, {3, 4});
    ctx().reset();
    ctx().record(op("aten.slice_scatter.default"),
                 {ctx().tensor(DType::i32, {3, 4}).set_data(self),
                  ctx().tensor(DType::i32, {1, 4}).set_data(src), 0, 2, 3, 1, out});
    ctx().submit();
    std::vector<int32_t> want = self;
    std::copy(src.begin(), src.end(), want.begin() + 8);
    EXPECT_EQ(out.get_data<int32_t>(), want);
    ctx().reset();
}

// select_scatter: self with self.select(dim, index) replaced by src, for each dim of an odd
// shape, a negative index, float32 and float16 / bool elements packed in shared words.
TEST(StateOps, SelectScatterReplacesOneIndex) {
    const Shape self_shape{3, 5, 7};
    uint32_t seed = 60;
    for (int64_t dim : {0, 1, 2, -1}) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        const int64_t n = self_shape[size_t(d)];
        for (int64_t index : {int64_t(0), n - 1, int64_t(-2)}) {
            const int64_t at = index < 0 ? index + n : index;
            Shape src_shape = self_shape;
            src_shape.erase(src_shape.begin() + d);
            const auto self = random_floats(size_t(numel(self_shape)), seed++);
            const auto src = random_floats(size_t(numel(src_shape)), seed++);
            std::vector<float> want = self;
            int64_t inner = 1;
            for (size_t k = size_t(d) + 1; k < 3; ++k) inner *= self_shape[k];
            const int64_t outer = numel(self_shape) / (inner * n);
            for (int64_t o = 0; o < outer; ++o) {
                for (int64_t i = 0; i < inner; ++i) {
                    want[size_t((o * n + at) * inner + i)] = src[size_t(o * inner + i)];
                }
            }
            Tensor out = ctx().tensor(DType::f32, self_shape);
            poison(out);
            ctx().reset();
            ctx().record(op("aten.select_scatter.default"),
                         {ctx().tensor(DType::f32, self_shape).set_data(self),
                          ctx().tensor(DType::f32, src_shape).set_data(src), dim, index, out});
            ctx().submit();
            EXPECT_EQ(out.get_data<float>(), want) << "dim " << dim << " index " << index;
        }
    }
    // Bytes share words: a bool row of odd length replaced in the middle.
    std::vector<uint8_t> flags(3 * 7), row(7);
    for (size_t i = 0; i < flags.size(); ++i) flags[i] = uint8_t(i % 3 == 0);
    for (size_t i = 0; i < row.size(); ++i) row[i] = uint8_t(i % 2);
    Tensor out = ctx().tensor(DType::boolean, {3, 7});
    ctx().reset();
    ctx().record(op("aten.select_scatter.default"),
                 {ctx().tensor(DType::boolean, {3, 7}).set_data(flags),
                  ctx().tensor(DType::boolean, {7}).set_data(row), 0, 1, out});
    ctx().submit();
    std::vector<uint8_t> want = flags;
    std::copy(row.begin(), row.end(), want.begin() + 7);
    EXPECT_EQ(out.get_data<uint8_t>(), want);
    ctx().reset();
}

TEST(StateOps, BadArgumentsNameWhatIsWrong) {
    auto f = [](Shape s) { return ctx().tensor(DType::f32, s); };
    expect_invalid("aten.copy.default", {f({2, 3}), f({4}), false, f({2, 3})},
                   {"src", "broadcast"});
    expect_invalid("aten.copy_.default",
                   {f({2, 3}), ctx().tensor(DType::i32, {2, 3}), false, f({2, 3})},
                   {"src", "int32"});
    expect_invalid("aten.copy.default", {f({2, 3}), f({2, 3}), false, f({3, 2})}, {"out"});
    expect_invalid("aten.slice_scatter.default", {f({4, 5}), f({2, 5}), 0, 0, 3, 1, f({4, 5})},
                   {"src", "[3, 5]"});
    expect_invalid("aten.slice_scatter.default", {f({4, 5}), f({2, 5}), 0, 0, 2, 0, f({4, 5})},
                   {"step"});
    expect_invalid("aten.slice_scatter.default", {f({4, 5}), f({2, 5}), 2, 0, 2, 1, f({4, 5})},
                   {"dim"});
    expect_invalid("aten.slice_scatter.default",
                   {f({4, 5}), ctx().tensor(DType::f16, {2, 5}), 0, 0, 2, 1, f({4, 5})},
                   {"src", "float16"});
    expect_invalid("aten.select_scatter.default", {f({4, 5}), f({5}), 0, 4, f({4, 5})},
                   {"index 4"});
    expect_invalid("aten.select_scatter.default", {f({4, 5}), f({4}), 0, 1, f({4, 5})},
                   {"src", "[5]"});
}

}  // namespace
}  // namespace wgx::test
