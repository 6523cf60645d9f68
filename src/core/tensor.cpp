#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "core/context_state.h"

namespace wgx {

std::string shape_string(std::span<const int64_t> shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

int64_t checked_numel(std::span<const int64_t> shape, std::string_view what) {
    if (shape.size() > static_cast<size_t>(kMaxRank)) {
        throw InvalidArgument(fmt::format("{}: rank ({}) is larger than the maximum ({}).", what,
                                          shape.size(), kMaxRank));
    }
    int64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0) {
            throw InvalidArgument(
                fmt::format("{}: dim {} of shape {} is {}; dims must be positive.", what, i,
                            shape_string(shape), shape[i]));
        }
        if (n > std::numeric_limits<int64_t>::max() / shape[i]) {
            throw InvalidArgument(fmt::format("{}: the element count of shape {} overflows.", what,
                                              shape_string(shape)));
        }
        n *= shape[i];
    }
    return n;
}

DType Tensor::dtype() const { return impl().dtype; }
const Shape& Tensor::shape() const { return impl().shape; }
int64_t Tensor::numel() const { return impl().numel; }
size_t Tensor::host_bytes() const { return impl().numel * host_size(impl().dtype); }
size_t Tensor::device_bytes() const { return impl().device_bytes(); }

Tensor Tensor::view(int64_t offset, const Shape& shape) const {
    const detail::TensorImpl& t = impl();
    const int64_t n = checked_numel(shape, "Tensor::view");
    if (offset < 0 || offset > t.numel || n > t.numel - offset) {
        throw InvalidArgument(
            fmt::format("Tensor::view: elements [{}, {}) are not inside the {} tensor of shape {} "
                        "({} elements).",
                        offset, offset + n, dtype_name(t.dtype), shape_string(t.shape), t.numel));
    }
    const uint64_t size = device_size(t.dtype);
    const uint64_t begin = uint64_t(offset) * size, end = uint64_t(offset + n) * size;
    if (begin % 4 != 0 || (end % 4 != 0 && offset + n != t.numel)) {
        throw InvalidArgument(fmt::format(
            "Tensor::view: elements [{}, {}) of a {} tensor start or end inside a 4-byte word, "
            "which writes and copies of the view would spill out of.",
            offset, offset + n, dtype_name(t.dtype)));
    }
    return t.ctx->make_tensor(t.buffer, t.offset + begin, t.dtype, shape);
}

const detail::TensorImpl& Tensor::impl() const {
    if (!impl_) throw InvalidArgument("The tensor is empty (default-constructed).");
    return *impl_;
}

void Tensor::check_host_type(bool matches, size_t size) const {
    if (!matches) {
        throw InvalidArgument(
            fmt::format("Host element type of {} bytes does not match the tensor's dtype ({}).",
                        size, dtype_name(dtype())));
    }
}

Tensor& Tensor::set_data(const std::vector<bool>& data) {
    std::vector<uint8_t> bytes(data.begin(), data.end());
    if (dtype() != DType::boolean) check_host_type(false, 1);
    return set_bytes(std::as_bytes(std::span<const uint8_t>(bytes)));
}

Tensor& Tensor::set_bytes(std::span<const std::byte> data) {
    const detail::TensorImpl& t = usable(*this, "set_data");
    if (data.size() != host_bytes()) {
        throw InvalidArgument(
            fmt::format("set_data: {} bytes given for a {} tensor of shape {} ({} bytes expected).",
                        data.size(), dtype_name(t.dtype), shape_string(t.shape), host_bytes()));
    }
    std::vector<std::byte> staged(t.padded_bytes(), std::byte{0});
    if (t.dtype == DType::i64) {
        for (int64_t i = 0; i < t.numel; ++i) {
            int64_t v;
            std::memcpy(&v, data.data() + i * 8, 8);
            if (v < std::numeric_limits<int32_t>::min() ||
                v > std::numeric_limits<int32_t>::max()) {
                throw InvalidArgument(fmt::format(
                    "set_data: int64 element {} ({}) does not fit in the int32 the GPU stores.", i,
                    v));
            }
            auto narrow = static_cast<int32_t>(v);
            std::memcpy(staged.data() + i * 4, &narrow, 4);
        }
    } else if (t.dtype == DType::f64) {
        for (int64_t i = 0; i < t.numel; ++i) {
            double v;
            std::memcpy(&v, data.data() + i * 8, 8);
            auto narrow = static_cast<float>(v);
            std::memcpy(staged.data() + i * 4, &narrow, 4);
        }
    } else {
        std::memcpy(staged.data(), data.data(), data.size());
    }
    t.ctx->device().write_buffer(t.raw(), t.offset, staged.data(), staged.size());
    return *this;
}

std::vector<std::byte> Tensor::get_bytes() const {
    std::vector<std::byte> out(host_bytes());
    get_bytes(out);
    return out;
}

void Tensor::get_bytes(std::span<std::byte> out) const {
    const detail::TensorImpl& t = usable(*this, "get_data");
    if (out.size() != host_bytes()) {
        throw InvalidArgument(
            fmt::format("get_bytes: the destination holds {} bytes; a {} {} "
                        "tensor needs {}.",
                        out.size(), dtype_name(t.dtype), shape_string(t.shape), host_bytes()));
    }
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    if (t.dtype != DType::i64 && t.dtype != DType::f64) {
        // Same layout on the GPU and the host: straight into the caller's memory.
        t.ctx->device().read_buffer(t.raw(), t.offset, std::span<uint8_t>(dst, out.size()));
        return;
    }
    // int64 / float64 live as 32-bit values on the GPU: read those, then widen.
    std::vector<uint8_t> raw = t.ctx->device().read_buffer(t.raw(), t.offset, t.device_bytes());
    for (int64_t i = 0; i < t.numel; ++i) {
        if (t.dtype == DType::i64) {
            int32_t v;
            std::memcpy(&v, raw.data() + i * 4, 4);
            auto wide = static_cast<int64_t>(v);
            std::memcpy(dst + i * 8, &wide, 8);
        } else {
            float v;
            std::memcpy(&v, raw.data() + i * 4, 4);
            auto wide = static_cast<double>(v);
            std::memcpy(dst + i * 8, &wide, 8);
        }
    }
}

const detail::TensorImpl& usable(const Tensor& t, std::string_view what) {
    const detail::TensorImpl& impl = t.impl();
    if (!impl.ctx) throw InvalidArgument(fmt::format("{}: the tensor has no context.", what));
    impl.ctx->ensure_usable();
    return impl;
}

}  // namespace wgx
