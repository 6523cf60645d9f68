// Chat templates: a model's Jinja template (tokenizer_config.json's chat_template) rendered
// over a conversation, as Hugging Face's apply_chat_template does, by minja (Google's Jinja
// subset for chat templates; scripts/fetch-minja.sh). Needs no GPU.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "text/tokenizer.h"

namespace wgx::text {

struct ChatMessage {
    std::string role;  // "system", "user" or "assistant"
    std::string content;
};

class ChatTemplate {
  public:
    // Parses the tokenizer's template (bos_token and eos_token as the template sees them).
    // Throws wgx::LoadError naming the tokenizer when it ships no template or one that does not
    // parse.
    explicit ChatTemplate(const Tokenizer& tokenizer);
    // A template given as text; `origin` names it in errors.
    ChatTemplate(const std::string& source, const std::string& bos_token,
                 const std::string& eos_token, const std::string& origin);
    ~ChatTemplate();
    ChatTemplate(ChatTemplate&&) noexcept;

    // The conversation as the model reads it; with add_generation_prompt, followed by what
    // opens the assistant's reply. Throws wgx::InvalidArgument when the template fails (it may
    // raise on a role order it does not accept).
    std::string render(std::span<const ChatMessage> messages, bool add_generation_prompt) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace wgx::text
