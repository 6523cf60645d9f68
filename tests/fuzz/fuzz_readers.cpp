// libFuzzer target for every file reader; see fuzz_one_input.h for what it exercises.
#include "fuzz_one_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    wgx::fuzz::fuzz_one_input(data, size);
    return 0;
}
