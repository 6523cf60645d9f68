#include <cstdio>
#include <cstdlib>

#include "vision_test_util.h"

namespace wgx::vision::test {

Context& ctx() {
    static Context context = [] {
        Context c = Context::create();
        const auto& a = c.device_info().adapter;
        std::printf("[wgx] testing on %s (%s, %s)\n", a.name.c_str(), to_string(a.type),
                    a.backend.c_str());
        return c;
    }();
    return context;
}

}  // namespace wgx::vision::test

int main(int argc, char** argv) {
    setenv("XDG_RUNTIME_DIR", "/tmp", 0);  // silences Mesa's Wayland probe on headless machines
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
