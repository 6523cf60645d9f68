// A tensor: an element type, a shape and a range of a GPU buffer. Copies of a Tensor are handles
// to the same GPU memory.
//
// A Tensor belongs to the Context that made it and follows its threading rule (one thread at a
// time, with the context); it keeps that context's device alive. Writes (set_data) are queued
// and ordered with the context's submissions; reads (get_data) wait for the work submitted
// before them. dtype(), shape() and the byte counts never touch the GPU and never throw for a
// defined tensor, even after the context is destroyed or its device lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "wgx/dtype.h"
#include "wgx/error.h"

namespace wgx {

using Shape = std::vector<int64_t>;

inline constexpr int kMaxRank = 8;

// "[2, 3, 4]"
std::string shape_string(std::span<const int64_t> shape);
// Product of the dims; throws InvalidArgument naming `what` when a dim is not positive, the rank
// exceeds kMaxRank, or the product overflows. A rank-0 shape has one element.
int64_t checked_numel(std::span<const int64_t> shape, std::string_view what);

namespace detail {
struct TensorImpl;
// Host element type that matches a dtype (f16 is raw 16-bit storage, bool one byte).
template <typename T>
constexpr bool host_matches(DType t) {
    if constexpr (std::is_same_v<T, float>)
        return t == DType::f32;
    else if constexpr (std::is_same_v<T, double>)
        return t == DType::f64;
    else if constexpr (std::is_same_v<T, int32_t>)
        return t == DType::i32;
    else if constexpr (std::is_same_v<T, int64_t>)
        return t == DType::i64;
    else if constexpr (std::is_same_v<T, int8_t>)
        return t == DType::i8;
    else if constexpr (std::is_same_v<T, uint8_t>)
        return t == DType::u8 || t == DType::boolean;
    else if constexpr (std::is_same_v<T, bool>)
        return t == DType::boolean;
    else if constexpr (std::is_same_v<T, uint16_t>)
        return t == DType::f16;
    else
        return false;
}
}  // namespace detail

class Tensor {
  public:
    Tensor() = default;  // an empty handle; using it throws

    DType dtype() const;
    const Shape& shape() const;
    int64_t numel() const;
    int rank() const { return static_cast<int>(shape().size()); }
    // Bytes of the data in host layout (i64/f64: 8 per element) and on the GPU (4).
    size_t host_bytes() const;
    size_t device_bytes() const;
    bool defined() const { return impl_ != nullptr; }

    // Elements [offset, offset + numel(shape)) of this tensor as a tensor of `shape`: the same
    // GPU memory, no copy (how an op binds part of a tensor larger than one storage binding).
    // The range must lie inside this tensor and, since writes and copies cover whole 4-byte
    // words, start on a word boundary and end on one or where this tensor ends; else
    // InvalidArgument. A dispatch binding the view also needs its start in the buffer to be a
    // multiple of DeviceLimits::min_storage_offset_alignment.
    Tensor view(int64_t offset, const Shape& shape) const;

    // Uploads host data (host layout of dtype(): 8-byte int64/double, 1-byte bool/int8/uint8,
    // raw 16-bit f16). The size must match exactly. int64 values must fit in int32 and are
    // checked. Returns *this for chaining.
    Tensor& set_bytes(std::span<const std::byte> data);
    template <typename T>
    Tensor& set_data(std::span<const T> data) {
        check_host_type(detail::host_matches<T>(dtype()), sizeof(T));
        return set_bytes(std::as_bytes(data));
    }
    template <typename T>
    Tensor& set_data(const std::vector<T>& data) {
        return set_data(std::span<const T>(data));
    }
    template <typename T>
    Tensor& set_data(std::initializer_list<T> data) {
        return set_data(std::span<const T>(data.begin(), data.size()));
    }
    Tensor& set_data(const std::vector<bool>& data);

    // Reads the data back (waits for the GPU), in host layout.
    std::vector<std::byte> get_bytes() const;
    // The same into memory of yours (exactly host_bytes() long), reused from run to run: no
    // allocation, which on outputs of megabytes saves as much time as the copy takes.
    void get_bytes(std::span<std::byte> out) const;
    template <typename T>
    std::vector<T> get_data() const {
        check_host_type(detail::host_matches<T>(dtype()), sizeof(T));
        std::vector<T> out(host_bytes() / sizeof(T));
        get_bytes(std::as_writable_bytes(std::span<T>(out)));
        return out;
    }

    // For op implementations and the engine (internal).
    const detail::TensorImpl& impl() const;
    explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  private:
    void check_host_type(bool matches, size_t size) const;
    std::shared_ptr<detail::TensorImpl> impl_;
};

}  // namespace wgx
