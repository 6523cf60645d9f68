// Shared test helpers: one device for the whole suite, seeded random data, float64 references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "wgx/wgx.h"

namespace wgx::test {

// The suite's context (created once; lavapipe device creation is slow).
Context& ctx();

// Normal(0, 1) values from a fixed seed, with no zeros (zeros hide unwritten outputs).
inline std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist(0.f, 1.f);
    std::vector<float> v(n);
    for (auto& x : v) {
        do {
            x = dist(gen);
        } while (x == 0.f);
    }
    return v;
}

inline std::vector<int32_t> random_ints(size_t n, uint32_t seed, int lo = -50, int hi = 50) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

inline int64_t numel(const Shape& s) {
    int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

// Max |got - want| relative to max(1, max |want|): the error measure of DESIGN.md §6.
inline double max_rel_error(const std::vector<float>& got, const std::vector<double>& want) {
    EXPECT_EQ(got.size(), want.size());
    double scale = 1.0, err = 0.0;
    for (double w : want) scale = std::max(scale, std::abs(w));
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        err = std::max(err, std::abs(got[i] - want[i]));
    }
    return err / scale;
}

// Poisons a tensor with NaN so unwritten outputs show up.
inline void poison(Tensor& t) {
    std::vector<float> nan(t.numel(), std::nanf(""));
    t.set_data(nan);
}

// Expects recording `name` with `args` to throw InvalidArgument whose message names the op and
// holds every one of `parts` (the argument and what was wrong with it).
inline void expect_invalid(std::string_view name, std::vector<Arg> args,
                           std::initializer_list<std::string> parts) {
    ctx().reset();
    try {
        ctx().record(op(name), args);
        ADD_FAILURE() << name << ": accepted; expected an InvalidArgument";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(std::string(name)), std::string::npos) << msg;
        for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
    ctx().reset();
}

inline void expect_invalid(std::string_view name, std::vector<Arg> args, const std::string& part) {
    expect_invalid(name, std::move(args), {part});
}

}  // namespace wgx::test
