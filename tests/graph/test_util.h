// Shared helpers for the format tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "wgx/error.h"

// Expects `statement` to throw wgx::LoadError whose message contains every given fragment.
#define EXPECT_LOAD_ERROR(statement, ...)                                  \
    do {                                                                   \
        try {                                                              \
            statement;                                                     \
            ADD_FAILURE() << "expected a wgx::LoadError from " #statement; \
        } catch (const wgx::LoadError& error) {                            \
            const std::string message = error.what();                      \
            for (const char* fragment : {__VA_ARGS__}) {                   \
                EXPECT_NE(message.find(fragment), std::string::npos)       \
                    << "message lacks '" << fragment << "': " << message;  \
            }                                                              \
        }                                                                  \
    } while (0)
