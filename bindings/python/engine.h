// What the module's files share: the device and the prepared program as Python holds them.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "wgx/wgx.h"

namespace wgx::python {

// The device programs run on, shared by the programs made with it. Calls on one wgx::Context
// must not overlap (context.h), so every run, generator step and state reset on its programs
// takes its lock, with the GIL released while it waits and works: threads sharing a context
// take turns and each gets its own outputs; threads wanting to run at once use a context each.
struct EngineContext {
    explicit EngineContext(wgx::Context c) : context(std::move(c)) {}
    wgx::Context context;
    std::mutex lock;
};

// One method of a program, prepared on a context.
struct EngineProgram {
    std::shared_ptr<EngineContext> context;
    std::unique_ptr<wgx::Runner> runner;
    std::mutex& lock() { return context->lock; }

    EngineProgram() = default;
    EngineProgram(const EngineProgram&) = delete;
    EngineProgram& operator=(const EngineProgram&) = delete;
    // Freeing the runner's buffers is a call on the context too. It runs with the GIL held
    // (Python frees the program); that is safe because no thread holding the lock ever waits
    // for the GIL.
    ~EngineProgram() {
        if (!context) return;
        std::lock_guard<std::mutex> held(context->lock);
        runner.reset();
    }
};

}  // namespace wgx::python
