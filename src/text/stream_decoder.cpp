#include <cstdint>

#include "text/tokenizer.h"

namespace wgx::text {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at the start of `s`, or 0 if it is not one; in `taken`
// the bytes that looked right before it went wrong (at least one), which one U+FFFD replaces.
std::size_t sequence_length(std::string_view s, std::size_t& taken) {
    const auto b0 = static_cast<unsigned char>(s[0]);
    taken = 1;
    if (b0 < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
        if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    for (std::size_t i = 1; i < n; ++i) {
        if (i >= s.size()) return 0;
        const auto c = static_cast<unsigned char>(s[i]);
        if (i == 1 ? (c < lo || c > hi) : !continuation(c)) return 0;
        taken = i + 1;
    }
    return n;
}

}  // namespace

std::string valid_utf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        std::size_t taken = 0;
        const std::size_t n = sequence_length(bytes.substr(i), taken);
        if (n) {
            out.append(bytes.substr(i, n));
            i += n;
        } else {
            out.append(kReplacement);
            i += taken;
        }
    }
    return out;
}

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer) : tokenizer_(&tokenizer) {}

std::string StreamDecoder::push(int32_t id) {
    ids_.push_back(id);
    const std::span<const int32_t> all(ids_);
    // The text of the context ids alone and with everything after them: what the new ids add
    // is the difference, as long as it does not end in a character still incomplete. Decoding
    // with context keeps the formats' rules about the start of the text (SentencePiece drops
    // the first leading space) from applying in the middle.
    const std::string before = tokenizer_->decode(all.subspan(prefix_, read_ - prefix_));
    const std::string after = tokenizer_->decode(all.subspan(prefix_));
    if (after.size() <= before.size() || after.ends_with(kReplacement) ||
        after.compare(0, before.size(), before) != 0)
        return {};
    prefix_ = read_;
    read_ = ids_.size();
    // The window only ever holds the last emitted ids and those not yet emitted.
    if (prefix_ > 0) {
        ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(prefix_));
        read_ -= prefix_;
        prefix_ = 0;
    }
    return after.substr(before.size());
}

std::string StreamDecoder::flush() {
    const std::span<const int32_t> all(ids_);
    const std::string before = tokenizer_->decode(all.subspan(prefix_, read_ - prefix_));
    const std::string after = tokenizer_->decode(all.subspan(prefix_));
    ids_.clear();
    prefix_ = read_ = 0;
    if (after.size() <= before.size() || after.compare(0, before.size(), before) != 0) return {};
    return after.substr(before.size());
}

}  // namespace wgx::text
