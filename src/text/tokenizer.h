// Text to token ids and back, for `wgx generate` (docs/TOKENIZERS.md). The file formats LLMs
// ship are read by libraries chosen for it, not by code of ours: Hugging Face tokenizer.json and
// tiktoken files by pytorch-tokenizers' C++ library, SentencePiece models by libsentencepiece.
// This room needs no GPU and includes nothing of the engine but its errors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgx::text {

enum class Format {
    HuggingFace,    // tokenizer.json (byte-level BPE: Llama 3, Qwen, SmolLM, GPT-2)
    Tiktoken,       // lines of "<base64 token> <rank>" (Llama 3's tokenizer.model)
    SentencePiece,  // a SentencePiece ModelProto (Llama 2, Gemma, T5 ...)
};
const char* format_name(Format format);

// What tokenizer_config.json says about chat, when the directory has one. The template is Jinja
// text, kept as is: applying it is the caller's business (no Jinja engine here yet).
struct ChatConfig {
    std::string chat_template;  // empty when none is shipped
    std::string bos_token;      // token names, e.g. "<|begin_of_text|>"; empty when not given
    std::string eos_token;
};

class Tokenizer {
  public:
    // Reads a tokenizer.json, a directory holding one (with tokenizer_config.json and
    // generation_config.json beside it, when present), a tiktoken file or a SentencePiece model;
    // the format is told from the contents, not the name (Llama 3's tiktoken file is called
    // tokenizer.model too). A tiktoken file carries no split pattern and no special tokens: it
    // gets Llama 3's (the 256 special tokens after the base vocabulary). Throws wgx::LoadError,
    // naming the file, for anything it cannot read.
    static Tokenizer load(const std::filesystem::path& path);

    // Special-token text such as "<|eot_id|>" in `text` becomes that token for the BPE formats
    // (as the references do); SentencePiece treats all text as text. add_bos puts bos_id() first.
    // Throws wgx::InvalidArgument if the library cannot encode the text.
    std::vector<int32_t> encode(std::string_view text, bool add_bos = false) const;
    // Special tokens decode to their text for the BPE formats, to nothing for SentencePiece (as
    // the references do). Bytes that do not form UTF-8 become U+FFFD. Throws
    // wgx::InvalidArgument for an id outside the vocabulary.
    std::string decode(std::span<const int32_t> ids) const;

    Format format() const;
    std::size_t vocab_size() const;
    std::optional<int32_t> bos_id() const;
    // Every id that ends a generation: the file's eos, generation_config.json's eos_token_id
    // list and, for tiktoken, Llama 3's <|end_of_text|>, <|eom_id|> and <|eot_id|>. Sorted.
    const std::vector<int32_t>& eos_ids() const;
    bool is_eos(int32_t id) const;
    const ChatConfig& chat() const;
    const std::filesystem::path& path() const;

    struct Impl;

  private:
    explicit Tokenizer(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> impl_;  // immutable once loaded: copies share it
};

// Turns ids arriving one at a time into text, returning only whole UTF-8 characters: a
// character whose bytes are split over several tokens comes out with its last token. Decoding
// a window of recent ids and keeping what the last id added makes the output equal to
// decode(all ids) for every format (SentencePiece drops the leading space of the text only).
class StreamDecoder {
  public:
    explicit StreamDecoder(const Tokenizer& tokenizer);
    // The text that `id` completes; empty while a character is still incomplete.
    std::string push(int32_t id);
    // Whatever is held back (an incomplete character at the end comes out as U+FFFD).
    std::string flush();

  private:
    const Tokenizer* tokenizer_;
    std::vector<int32_t> ids_;
    std::size_t prefix_ = 0;  // ids_[prefix_, read_) were emitted and give the next context
    std::size_t read_ = 0;
};

// A copy of `bytes` with each invalid or incomplete UTF-8 sequence (its longest valid-looking
// start, at least one byte) replaced by U+FFFD, as Rust's from_utf8_lossy does for HF tokenizers.
std::string valid_utf8(std::string_view bytes);

}  // namespace wgx::text
