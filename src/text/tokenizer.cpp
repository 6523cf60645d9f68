#include "text/tokenizer.h"

#include <pytorch/tokenizers/hf_tokenizer.h>
#include <pytorch/tokenizers/regex.h>
#include <pytorch/tokenizers/tiktoken.h>
#include <sentencepiece_processor.h>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>

#include "wgx/error.h"

namespace tokenizers {
// Defined in the library's regex_lookahead.cpp (PCRE2, for the (?!\S) of Llama 3's and GPT-2's
// split patterns, which RE2 rejects) without a header; registered below by hand because a static
// initializer in an archive member that nothing references is never linked in.
Result<std::unique_ptr<IRegex>> create_fallback_regex(const std::string& pattern);
}  // namespace tokenizers

namespace wgx::text {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Llama 3's split pattern: tiktoken files do not carry theirs.
constexpr const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

void register_lookahead_regex() {
    static std::once_flag once;
    std::call_once(once, [] {
        tokenizers::register_override_fallback_regex(tokenizers::create_fallback_regex);
    });
}

[[noreturn]] void fail(const fs::path& path, const std::string& problem) {
    throw LoadError(path.string() + ": " + problem);
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot open the file");
    std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) fail(path, "cannot read the file");
    return bytes;
}

json parse_json(const fs::path& path, const std::string& bytes) {
    try {
        return json::parse(bytes);
    } catch (const json::exception& e) {
        fail(path, std::string("not valid JSON (") + e.what() + ")");
    }
}

// tokenizer_config.json names tokens either as a string or as an AddedToken object.
std::string token_name(const json& config, const char* key) {
    auto it = config.find(key);
    if (it == config.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
        return (*it)["content"].get<std::string>();
    return {};
}

// A chat template is a string, or a list of {name, template} of which "default" is the one.
std::string chat_template(const fs::path& path, const json& config) {
    auto it = config.find("chat_template");
    if (it == config.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array()) {
        const json* first = nullptr;
        for (const auto& entry : *it) {
            if (!entry.is_object() || !entry.contains("template") || !entry["template"].is_string())
                continue;
            if (!first) first = &entry;
            if (entry.value("name", "") == "default") return entry["template"].get<std::string>();
        }
        if (first) return (*first)["template"].get<std::string>();
    }
    fail(path, "chat_template is neither a string nor a list of {name, template}");
}

// "<base64> <rank>" on the first line: what a tiktoken file starts with.
bool looks_like_tiktoken(std::string_view bytes) {
    const auto line = bytes.substr(0, bytes.find('\n'));
    const auto space = line.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 >= line.size()) return false;
    const auto is_b64 = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
    };
    const auto rank = line.substr(space + 1);
    return std::all_of(line.begin(), line.begin() + space, is_b64) &&
           std::all_of(rank.begin(), rank.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) || c == '\r';
           });
}

}  // namespace

const char* format_name(Format format) {
    switch (format) {
        case Format::HuggingFace: return "tokenizer.json";
        case Format::Tiktoken: return "tiktoken";
        case Format::SentencePiece: return "SentencePiece";
    }
    return "?";
}

struct Tokenizer::Impl {
    Format format{};
    fs::path path;
    std::unique_ptr<tokenizers::Tokenizer> bpe;  // HuggingFace and Tiktoken
    sentencepiece::SentencePieceProcessor sp;
    std::size_t vocab_size = 0;
    std::optional<int32_t> bos;
    std::vector<int32_t> eos;
    ChatConfig chat;

    void add_eos(int64_t id) {
        if (id >= 0 && static_cast<std::size_t>(id) < vocab_size)
            eos.push_back(static_cast<int32_t>(id));
    }
};

namespace {

void load_bpe(Tokenizer::Impl& t, const fs::path& file, const fs::path& dir, bool tiktoken) {
    register_lookahead_regex();
    const auto& names = [] {
        // Llama 3's: eleven named, then <|reserved_special_token_N|> up to 256 in all, as the
        // library's own default list has them (the ids of the named ones are what matter).
        std::vector<std::string> v = {"<|begin_of_text|>",
                                      "<|end_of_text|>",
                                      "<|reserved_special_token_0|>",
                                      "<|reserved_special_token_1|>",
                                      "<|finetune_right_pad_id|>",
                                      "<|step_id|>",
                                      "<|start_header_id|>",
                                      "<|end_header_id|>",
                                      "<|eom_id|>",
                                      "<|eot_id|>",
                                      "<|python_tag|>"};
        for (int n = 2; v.size() < 256; ++n)
            v.push_back("<|reserved_special_token_" + std::to_string(n) + "|>");
        return v;
    }();
    tokenizers::Error err{};
    try {
        if (tiktoken) {
            t.bpe = std::make_unique<tokenizers::Tiktoken>(kLlama3Pattern, names, 0, 1);
            err = t.bpe->load(file.string());
        } else {
            t.bpe = std::make_unique<tokenizers::HFTokenizer>();
            // Given the directory, the library also reads tokenizer_config.json's bos and eos.
            err = t.bpe->load((dir.empty() ? file : dir).string());
        }
    } catch (const std::exception& e) {
        fail(file, std::string("the tokenizer library rejected it: ") + e.what());
    }
    if (err != tokenizers::Error::Ok || !t.bpe->is_loaded())
        fail(file, std::string("not a readable ") + (tiktoken ? "tiktoken" : "tokenizer.json") +
                       " file (tokenizer library error " + std::to_string(static_cast<int>(err)) +
                       ")");
    t.vocab_size = static_cast<std::size_t>(t.bpe->vocab_size());
    t.bos = static_cast<int32_t>(t.bpe->bos_tok());
    t.add_eos(static_cast<int64_t>(t.bpe->eos_tok()));
    if (tiktoken) {
        const int64_t base = static_cast<int64_t>(t.vocab_size) - 256;
        for (const char* name : {"<|end_of_text|>", "<|eom_id|>", "<|eot_id|>"})
            t.add_eos(base + (std::find(names.begin(), names.end(), name) - names.begin()));
    }
}

void load_sentencepiece(Tokenizer::Impl& t, const fs::path& file, const std::string& bytes) {
    const auto status = t.sp.LoadFromSerializedProto(bytes);
    if (!status.ok())
        fail(file, "not a tokenizer.json, tiktoken or SentencePiece file (SentencePiece: " +
                       std::string(status.message()) + ")");
    t.vocab_size = static_cast<std::size_t>(t.sp.GetPieceSize());
    if (t.sp.bos_id() >= 0) t.bos = t.sp.bos_id();
    t.add_eos(t.sp.eos_id());
}

// tokenizer_config.json and generation_config.json beside a tokenizer.json, when present; read
// before the library reads the former itself, so that a broken one is named with its problem.
// The eos ids come back for after the vocabulary is known.
std::vector<int64_t> read_configs(Tokenizer::Impl& t, const fs::path& dir) {
    std::vector<int64_t> eos;
    const auto config_path = dir / "tokenizer_config.json";
    if (fs::is_regular_file(config_path)) {
        const json config = parse_json(config_path, read_file(config_path));
        if (!config.is_object()) fail(config_path, "not a JSON object");
        t.chat = {chat_template(config_path, config), token_name(config, "bos_token"),
                  token_name(config, "eos_token")};
    }
    const auto gen_path = dir / "generation_config.json";
    if (fs::is_regular_file(gen_path)) {
        const json gen = parse_json(gen_path, read_file(gen_path));
        const auto it = gen.is_object() ? gen.find("eos_token_id") : gen.end();
        if (it != gen.end()) {
            if (it->is_number_integer()) eos.push_back(it->get<int64_t>());
            if (it->is_array())
                for (const auto& id : *it)
                    if (id.is_number_integer()) eos.push_back(id.get<int64_t>());
        }
    }
    return eos;
}

}  // namespace

Tokenizer Tokenizer::load(const fs::path& path) {
    auto t = std::make_shared<Impl>();
    t->path = path;
    std::error_code ec;
    fs::path file = path, dir;
    if (fs::is_directory(path, ec)) {
        dir = path;
        file = path / "tokenizer.json";
        if (!fs::is_regular_file(file, ec)) fail(path, "the directory has no tokenizer.json");
    } else if (!fs::exists(path, ec)) {
        fail(path, "no such file");
    }
    const std::string bytes = read_file(file);
    if (bytes.empty()) fail(file, "the file is empty");

    const auto first = bytes.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && bytes[first] == '{') {
        t->format = Format::HuggingFace;
        // Checked here so that a broken file gets the JSON parser's message, not a code.
        const json spec = parse_json(file, bytes);
        if (!spec.is_object() || !spec.contains("model") || !spec["model"].is_object())
            fail(file, "a JSON file without a \"model\": not a tokenizer.json");
        const std::string type = spec["model"].value("type", "BPE");
        if (type != "BPE")
            fail(file, "a tokenizer.json with a " + type + " model; only BPE is supported");
        const auto eos = read_configs(*t, dir.empty() ? file.parent_path() : dir);
        load_bpe(*t, file, dir, false);
        for (int64_t id : eos) t->add_eos(id);
    } else if (looks_like_tiktoken(bytes)) {
        t->format = Format::Tiktoken;
        load_bpe(*t, file, {}, true);
    } else {
        t->format = Format::SentencePiece;
        load_sentencepiece(*t, file, bytes);
    }
    std::sort(t->eos.begin(), t->eos.end());
    t->eos.erase(std::unique(t->eos.begin(), t->eos.end()), t->eos.end());
    return Tokenizer(std::move(t));
}

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_bos) const {
    std::vector<int32_t> ids;
    if (add_bos && impl_->bos) ids.push_back(*impl_->bos);
    if (impl_->format == Format::SentencePiece) {
        std::vector<int> pieces;
        const auto status = impl_->sp.Encode(std::string(text), &pieces);
        if (!status.ok())
            throw InvalidArgument(impl_->path.string() +
                                  ": SentencePiece cannot encode the text (" + status.message() +
                                  ")");
        ids.insert(ids.end(), pieces.begin(), pieces.end());
        return ids;
    }
    auto result = impl_->bpe->encode(std::string(text), 0, 0);
    if (!result.ok())
        throw InvalidArgument(impl_->path.string() +
                              ": the tokenizer cannot encode the text (error " +
                              std::to_string(static_cast<int>(result.error())) + ")");
    for (uint64_t id : *result) ids.push_back(static_cast<int32_t>(id));
    return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
    for (int32_t id : ids)
        if (id < 0 || static_cast<std::size_t>(id) >= impl_->vocab_size)
            throw InvalidArgument(impl_->path.string() + ": token id " + std::to_string(id) +
                                  " is outside the vocabulary of " +
                                  std::to_string(impl_->vocab_size));
    if (impl_->format == Format::SentencePiece) {
        std::string text;
        const auto status = impl_->sp.Decode(std::vector<int>(ids.begin(), ids.end()), &text);
        if (!status.ok())
            throw InvalidArgument(impl_->path.string() + ": SentencePiece cannot decode (" +
                                  status.message() + ")");
        return text;
    }
    // Byte-level BPE: each token stands for bytes; the text is their concatenation.
    std::string bytes;
    for (int32_t id : ids) {
        auto piece = impl_->bpe->decode(0, static_cast<uint64_t>(id));
        if (!piece.ok())
            throw InvalidArgument(impl_->path.string() + ": token id " + std::to_string(id) +
                                  " has no text");
        bytes += *piece;
    }
    return valid_utf8(bytes);
}

Format Tokenizer::format() const { return impl_->format; }
std::size_t Tokenizer::vocab_size() const { return impl_->vocab_size; }
std::optional<int32_t> Tokenizer::bos_id() const { return impl_->bos; }
const std::vector<int32_t>& Tokenizer::eos_ids() const { return impl_->eos; }
bool Tokenizer::is_eos(int32_t id) const {
    return std::binary_search(impl_->eos.begin(), impl_->eos.end(), id);
}
const ChatConfig& Tokenizer::chat() const { return impl_->chat; }
const fs::path& Tokenizer::path() const { return impl_->path; }

}  // namespace wgx::text
