// Running the FlatBuffers verifier safely on untrusted bytes: the verifier asserts (aborts) on
// buffers of 2 GiB or more, so sizes are checked first, and the table limit grows with the
// buffer so that large honest files pass while shared-table bombs stay bounded.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "graph/util/text.h"

namespace wgx::graph {

// `verify` is a generated Verify<Root>Buffer function (it also checks the file identifier).
template <typename VerifyFn>
void verify_flatbuffer(std::span<const uint8_t> bytes, VerifyFn verify, std::string_view file,
                       const std::string& what) {
    if (bytes.size() < 8) {
        fail(file, cat(what, " is ", bytes.size(), " bytes, too small for a flatbuffer"));
    }
    if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
        fail(file, cat(what, " is ", bytes.size(), " bytes; flatbuffers are limited to ",
                       FLATBUFFERS_MAX_BUFFER_SIZE - 1));
    }
    flatbuffers::Verifier::Options options;
    options.max_depth = 64;
    options.max_tables =
        static_cast<flatbuffers::uoffset_t>(std::max<size_t>(1'000'000, bytes.size() / 4));
    flatbuffers::Verifier verifier(bytes.data(), bytes.size(), options);
    if (!verify(verifier)) {
        fail(file, cat(what, " (", bytes.size(),
                       " bytes) failed FlatBuffers verification: corrupt or truncated"));
    }
}

// The verifier (2.0.8) checks a vector's length prefix for alignment, not its elements: an
// 8-byte element can sit at a 4-byte boundary. Reading such elements through the generated
// accessors is a misaligned load, so 8-byte vectors are copied bytewise instead.
static_assert(std::endian::native == std::endian::little, "FlatBuffers data is little-endian");

template <typename T>
std::vector<T> copy_scalars(const flatbuffers::Vector<T>* vector) {
    static_assert(std::is_arithmetic_v<T>);
    std::vector<T> items(vector ? vector->size() : 0);
    if (!items.empty()) std::memcpy(items.data(), vector->Data(), items.size() * sizeof(T));
    return items;
}

// Element `index` (< size) of a verified scalar vector.
template <typename T>
T scalar_at(const flatbuffers::Vector<T>& vector, uint32_t index) {
    static_assert(std::is_arithmetic_v<T>);
    T value;
    std::memcpy(&value, vector.Data() + size_t{index} * sizeof(T), sizeof(T));
    return value;
}

}  // namespace wgx::graph
