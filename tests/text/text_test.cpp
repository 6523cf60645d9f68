// The tokenizers against the Python packages' ids (tests/text/golden.json, written by
// python/text_fixtures.py with the tokenizer files beside it), round trips, stream decoding of
// characters split over tokens, and damaged files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text/chat.h"
#include "text/tokenizer.h"
#include "wgx/error.h"

namespace fs = std::filesystem;
using wgx::text::Format;
using wgx::text::StreamDecoder;
using wgx::text::Tokenizer;

namespace {

const fs::path kDir = WGX_TEXT_DIR;

const nlohmann::json& golden() {
    static const nlohmann::json g = [] {
        std::ifstream in(kDir / "golden.json");
        return nlohmann::json::parse(in);
    }();
    return g;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One case per file of tests/text: where it is, its key in golden.json, its format.
struct Case {
    const char* path;
    const char* key;
    Format format;
};
const Case kCases[] = {
    {"bpe-llama3", "bpe-llama3", Format::HuggingFace},
    {"bpe-gpt2/tokenizer.json", "bpe-gpt2", Format::HuggingFace},
    {"bpe-llama3.tiktoken", "bpe-llama3.tiktoken", Format::Tiktoken},
    {"sp-bpe.model", "sp-bpe.model", Format::SentencePiece},
};

class Golden : public testing::TestWithParam<Case> {};

TEST_P(Golden, EncodeGivesThePythonPackagesIds) {
    const Case& c = GetParam();
    const Tokenizer tok = Tokenizer::load(kDir / c.path);
    EXPECT_EQ(tok.format(), c.format);
    const auto& texts = golden()["texts"];
    const auto& want = golden()[c.key]["ids"];
    ASSERT_EQ(texts.size(), want.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::string text = texts[i];
        EXPECT_EQ(tok.encode(text), want[i].get<std::vector<int32_t>>())
            << "text " << i << ": " << text;
    }
}

TEST_P(Golden, DecodeGivesThePythonPackagesText) {
    const Case& c = GetParam();
    const Tokenizer tok = Tokenizer::load(kDir / c.path);
    const auto& texts = golden()["texts"];
    const auto& g = golden()[c.key];
    int round_trips = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto ids = g["ids"][i].get<std::vector<int32_t>>();
        const std::string decoded = g["decoded"][i];
        EXPECT_EQ(tok.decode(ids), decoded) << "text " << i;
        // decode(encode(x)) == x wherever the format promises it (byte-level BPE always;
        // SentencePiece folds whitespace runs and drops a leading space).
        if (decoded == texts[i].get<std::string>()) {
            EXPECT_EQ(tok.decode(tok.encode(decoded)), decoded) << "text " << i;
            ++round_trips;
        }
    }
    if (c.format != Format::SentencePiece) {
        EXPECT_EQ(round_trips, int(texts.size()));
    }
}

// Every text, its ids pushed one at a time: the pieces are whole UTF-8 characters and add up to
// decode(all ids).
TEST_P(Golden, StreamDecoderGivesWholeCharacters) {
    const Case& c = GetParam();
    const Tokenizer tok = Tokenizer::load(kDir / c.path);
    const auto& g = golden()[c.key];
    int held_back = 0;
    for (std::size_t i = 0; i < g["ids"].size(); ++i) {
        const auto ids = g["ids"][i].get<std::vector<int32_t>>();
        StreamDecoder stream(tok);
        std::string text;
        for (int32_t id : ids) {
            const std::string piece = stream.push(id);
            EXPECT_EQ(wgx::text::valid_utf8(piece), piece) << "text " << i << ", id " << id;
            if (piece.empty()) ++held_back;
            text += piece;
        }
        text += stream.flush();
        EXPECT_EQ(text, tok.decode(ids)) << "text " << i;
    }
    // The emoji and CJK texts have characters split over byte tokens in all of these.
    EXPECT_GT(held_back, 0);
}

INSTANTIATE_TEST_SUITE_P(Files, Golden, testing::ValuesIn(kCases), [](const auto& info) {
    std::string name = info.param.key;
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(ch); }, '_');
    return name;
});

TEST(Tokenizer, SpecialTokensAndChatConfigOfTheDirectory) {
    const Tokenizer tok = Tokenizer::load(kDir / "bpe-llama3");
    const auto& g = golden()["bpe-llama3"];
    EXPECT_EQ(tok.bos_id(), g["bos_id"].get<int32_t>());
    // generation_config.json's list, which holds tokenizer_config.json's eos_token (<|eot_id|>).
    EXPECT_EQ(tok.eos_ids(), g["eos_ids"].get<std::vector<int32_t>>());
    EXPECT_TRUE(tok.is_eos(g["eos_ids"][2].get<int32_t>()));
    EXPECT_FALSE(tok.is_eos(0));
    EXPECT_EQ(tok.chat().bos_token, "<|begin_of_text|>");
    EXPECT_EQ(tok.chat().eos_token, "<|eot_id|>");
    EXPECT_NE(tok.chat().chat_template.find("add_generation_prompt"), std::string::npos);
    EXPECT_EQ(tok.vocab_size(), static_cast<std::size_t>(g["bos_id"].get<int32_t>() + 256));
    // add_bos puts <|begin_of_text|> first, and the text of a special token is that token.
    const auto ids = tok.encode("<|eot_id|>", true);
    EXPECT_EQ(ids,
              (std::vector<int32_t>{g["bos_id"].get<int32_t>(), g["eos_ids"][2].get<int32_t>()}));
}

TEST(Tokenizer, SpecialTokensOfTiktokenAreLlama3s) {
    const Tokenizer tok = Tokenizer::load(kDir / "bpe-llama3.tiktoken");
    const auto& g = golden()["bpe-llama3"];
    EXPECT_EQ(tok.bos_id(), g["bos_id"].get<int32_t>());
    EXPECT_EQ(tok.eos_ids(), g["eos_ids"].get<std::vector<int32_t>>());
    EXPECT_TRUE(tok.chat().chat_template.empty());
}

TEST(Tokenizer, SpecialTokensOfSentencePiece) {
    const Tokenizer tok = Tokenizer::load(kDir / "sp-bpe.model");
    const auto& g = golden()["sp-bpe.model"];
    EXPECT_EQ(tok.bos_id(), g["bos_id"].get<int32_t>());
    EXPECT_EQ(tok.eos_ids(), std::vector<int32_t>{g["eos_id"].get<int32_t>()});
    EXPECT_EQ(tok.encode("", true), std::vector<int32_t>{g["bos_id"].get<int32_t>()});
}

// The stream decoder on an emoji whose four bytes come one token at a time: nothing until the
// last, then the whole character.
TEST(StreamDecoder, HoldsACharacterSplitOverByteTokens) {
    const Tokenizer tok = Tokenizer::load(kDir / "bpe-llama3.tiktoken");
    const std::string emoji = "\xF0\x9F\xA6\x8A";  // U+1F98A, not in the training text
    const auto ids = tok.encode(emoji);
    ASSERT_GT(ids.size(), 1u);
    StreamDecoder stream(tok);
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) EXPECT_EQ(stream.push(ids[i]), "");
    EXPECT_EQ(stream.push(ids.back()), emoji);
    EXPECT_EQ(stream.flush(), "");
    // Cut short, what is held comes out as one U+FFFD.
    EXPECT_EQ(stream.push(ids[0]), "");
    EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD");
}

TEST(StreamDecoder, SentencePieceKeepsSpacesBetweenWords) {
    const Tokenizer tok = Tokenizer::load(kDir / "sp-bpe.model");
    const std::string text = "Hello world, Größe 日本 \xF0\x9F\xA6\x8A end";
    const auto ids = tok.encode(text);
    StreamDecoder stream(tok);
    std::string out;
    for (int32_t id : ids) out += stream.push(id);
    out += stream.flush();
    EXPECT_EQ(out, tok.decode(ids));
    EXPECT_EQ(out, text);
}

TEST(Utf8, InvalidSequencesBecomeReplacementCharacters) {
    using wgx::text::valid_utf8;
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(valid_utf8("abc"), "abc");
    EXPECT_EQ(valid_utf8("\xC3\xA4"), "\xC3\xA4");
    EXPECT_EQ(valid_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(valid_utf8("\xF0\x9F\x98"), r);          // truncated: one replacement
    EXPECT_EQ(valid_utf8("\x80x"), r + "x");           // a lone continuation byte
    EXPECT_EQ(valid_utf8("\xC0\xAF"), r + r);          // overlong: both bytes are bad
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r + r + r);  // a surrogate
    EXPECT_EQ(valid_utf8("\xE6\x97x"), r + "x");
}

// --- damaged files: one wgx::LoadError naming the file, never a crash ---------------------------

class BadFiles : public testing::Test {
  protected:
    fs::path dir_;
    void SetUp() override {
        dir_ = fs::path(testing::TempDir()) /
               ("wgx_text_" +
                std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path write(const std::string& name, const std::string& bytes) {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }
    // Loading `path` throws LoadError whose message starts with `named` (the file at fault).
    static void expect_load_error(const fs::path& path, const fs::path& named,
                                  const std::string& says = "") {
        try {
            (void)Tokenizer::load(path);
            ADD_FAILURE() << path << " loaded";
        } catch (const wgx::LoadError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(named.string(), 0), 0u) << msg;
            EXPECT_NE(msg.find(says), std::string::npos) << msg;
        }
    }
};

TEST_F(BadFiles, MissingEmptyAndGarbage) {
    expect_load_error(dir_ / "nothing.json", dir_ / "nothing.json", "no such file");
    expect_load_error(write("empty.model", ""), dir_ / "empty.model", "empty");
    std::string garbage(4096, '\0');
    for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = char((i * 7919 + 13) % 251);
    expect_load_error(write("garbage.model", garbage), dir_ / "garbage.model", "SentencePiece");
    expect_load_error(write("text.txt", "hello world\n"), dir_ / "text.txt");
    expect_load_error(dir_, dir_, "no tokenizer.json");
}

TEST_F(BadFiles, TruncatedAndWrongJson) {
    const std::string json = slurp(kDir / "bpe-llama3/tokenizer.json");
    for (std::size_t cut : {std::size_t{1}, std::size_t{100}, json.size() / 2, json.size() - 3}) {
        const auto p = write("cut" + std::to_string(cut) + ".json", json.substr(0, cut));
        expect_load_error(p, p, "JSON");
    }
    expect_load_error(write("array.json", "[1, 2]"), dir_ / "array.json", "model");
    expect_load_error(write("wordpiece.json", R"({"model": {"type": "WordPiece", "vocab": {}}})"),
                      dir_ / "wordpiece.json", "WordPiece");
    // Parts missing or of the wrong type: the library's checks, still one LoadError.
    expect_load_error(write("novocab.json", R"({"model": {"type": "BPE"}, "added_tokens": []})"),
                      dir_ / "novocab.json");
    expect_load_error(
        write("badvocab.json",
              R"({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}, "added_tokens": [],
                  "pre_tokenizer": {"type": "ByteLevel"}})"),
        dir_ / "badvocab.json");
    expect_load_error(
        write("badpre.json",
              R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "added_tokens": [],
                  "pre_tokenizer": {"type": "Nonsense"}})"),
        dir_ / "badpre.json");
}

TEST_F(BadFiles, BrokenConfigBesideTokenizerJson) {
    write("model/tokenizer.json", slurp(kDir / "bpe-llama3/tokenizer.json"));
    write("model/tokenizer_config.json", "{\"chat_template\": ");
    expect_load_error(dir_ / "model", dir_ / "model/tokenizer_config.json", "JSON");
    write("model/tokenizer_config.json", R"({"chat_template": 42})");
    expect_load_error(dir_ / "model", dir_ / "model/tokenizer_config.json", "chat_template");
    write("model/tokenizer_config.json", "{}");
    write("model/generation_config.json", "[");
    expect_load_error(dir_ / "model", dir_ / "model/generation_config.json", "JSON");
}

TEST_F(BadFiles, TruncatedTiktokenAndSentencePiece) {
    const std::string tik = slurp(kDir / "bpe-llama3.tiktoken");
    // Cut in the middle of a line: the rank or the base64 is broken.
    const auto p = write("cut.tiktoken", tik.substr(0, tik.size() / 2 + 3) + "\n!!!! x\n");
    expect_load_error(p, p, "tiktoken");
    const auto q = write("badrank.tiktoken", "YQ== 0\nYg== 0\n");  // two tokens of one rank
    expect_load_error(q, q, "tiktoken");
    const std::string sp = slurp(kDir / "sp-bpe.model");
    for (std::size_t cut : {sp.size() / 3, sp.size() - 5}) {
        const auto r = write("cut" + std::to_string(cut) + ".model", sp.substr(0, cut));
        expect_load_error(r, r, "SentencePiece");
    }
}

TEST(Tokenizer, IdsOutsideTheVocabularyAreRefused) {
    for (const Case& c : kCases) {
        const Tokenizer tok = Tokenizer::load(kDir / c.path);
        const std::vector<int32_t> bad = {static_cast<int32_t>(tok.vocab_size())};
        EXPECT_THROW((void)tok.decode(bad), wgx::InvalidArgument) << c.path;
        EXPECT_THROW((void)tok.decode(std::vector<int32_t>{-1}), wgx::InvalidArgument) << c.path;
    }
}

}  // namespace

namespace wgx::text {
namespace {

// Chat templates render as Python's jinja2 renders them (what Hugging Face's
// apply_chat_template uses): the expected strings are jinja2's output for the same messages.
TEST(ChatTemplate, Llama3StyleTemplateOfTheDirectory) {
    const Tokenizer tok = Tokenizer::load(fs::path(WGX_TEXT_DIR) / "bpe-llama3");
    const ChatTemplate tmpl(tok);
    const std::vector<ChatMessage> messages = {{"user", "Hi"}, {"assistant", "Hello."}};
    EXPECT_EQ(tmpl.render(messages, false),
              "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nHello.<|eot_id|>");
    EXPECT_EQ(tmpl.render(std::span(messages).first(1), true),
              "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

// A ChatML template in Qwen's manner: a default system message, filters, loop variables and
// whitespace control.
TEST(ChatTemplate, ChatMlWithDefaultSystemMessage) {
    const std::string source =
        "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + "
        "messages[0]['content'] | trim + '<|im_end|>\\n' }}{%- else %}{{- "
        "'<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{%- endif %}{%- for "
        "message in messages %}{%- if not (loop.first and message['role'] == 'system') %}{{- "
        "'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' "
        "}}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' "
        "}}{%- endif %}";
    const ChatTemplate tmpl(source, "", "<|im_end|>", "chatml");
    const std::vector<ChatMessage> one = {{"user", "Hi"}};
    EXPECT_EQ(tmpl.render(one, true),
              "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi"
              "<|im_end|>\n<|im_start|>assistant\n");
    const std::vector<ChatMessage> four = {
        {"system", "  Be brief.  "}, {"user", "Hi"}, {"assistant", "Hello."}, {"user", "Ça va ?"}};
    EXPECT_EQ(tmpl.render(four, true),
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nÇa va ?<|im_end|>\n"
              "<|im_start|>assistant\n");
}

TEST(ChatTemplate, MissingOrBrokenTemplatesAreLoadErrors) {
    EXPECT_THROW(ChatTemplate("", "", "", "none"), LoadError);
    EXPECT_THROW(ChatTemplate("{% for m in messages %}", "", "", "broken"), LoadError);
}

}  // namespace
}  // namespace wgx::text
