// What `wgx generate` and `wgx score` share: reading token lists and numbers from the command
// line, and the facts an LLM export states in its constant methods.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "wgx/program.h"

namespace wgx::cli {

// "1,2,3" -> {1, 2, 3}; an InvalidArgument naming `flag` for anything else.
std::vector<int64_t> parse_tokens(const std::string& text, std::string_view flag);

// A whole string as a number; an InvalidArgument naming `what` otherwise.
double parse_number(const std::string& text, const char* what);

// One integer that a constant method returns, if the file has that method.
std::optional<int64_t> constant_int(const std::vector<ConstantMethod>& methods,
                                    std::string_view name);

// get_eos_ids / get_eos_id, empty when the file has neither.
std::set<int64_t> eos_ids(const std::vector<ConstantMethod>& methods);

// The number of cache positions: get_max_context_len, else get_max_seq_len; an InvalidArgument
// naming the file when it has neither (not an LLM export).
int64_t context_length(const std::vector<ConstantMethod>& methods, const std::string& model);

// Refuses ids outside [0, vocab) (vocab <= 0: unknown, only negatives refused).
void check_token_ids(const std::vector<int64_t>& tokens, int64_t vocab, std::string_view what);

}  // namespace wgx::cli
