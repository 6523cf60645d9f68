#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    setenv("XDG_RUNTIME_DIR", "/tmp", 0);  // silences Mesa's Wayland probe (see apps/wgx)
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
