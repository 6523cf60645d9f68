# Entry points for people and CI. Every target installs what it needs first (Debian packages
# and the pinned wgpu-native; run as root on Debian 12).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build lint tidy test test-python wheel test-wheel test-slow test-readers-sanitized demo clean test-install test-leaks

all: build

deps:
	scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The fast checks, run first in CI: the rooms' include rules (docs/ARCHITECTURE.md), the C++
# format (.clang-format) and python/'s lint and format (scripts/lint.sh). No build needed.
lint: deps
	scripts/lint.sh

# clang-tidy (.clang-tidy) over the engine's sources, through the build's compile commands;
# findings in the headers FlatBuffers generates into the build folder are not ours.
tidy: build
	run-clang-tidy -quiet -p $(BUILD) -j $(JOBS) '$(abspath .)/(src|apps)/' 2>&1 | \
	    sed 's/\x1b\[[0-9;]*m//g' | grep -E '^/.*(warning|error):' | \
	    grep -v '^$(abspath $(BUILD))/' | sort -u | tee $(BUILD)/tidy.log; \
	    test ! -s $(BUILD)/tidy.log

# Builds everything and runs the whole test suite on the default adapter (lavapipe headless):
# the C++ tests, the Python package from the build and from its wheels in new venvs, the
# file-format readers' tests again under AddressSanitizer and UBSan, and the installed package.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|python'
	$(MAKE) test-python
	$(MAKE) test-wheel
	$(MAKE) test-readers-sanitized
	$(MAKE) test-install

# The Python package's tests (bindings/python/tests, pytest) on the module the build made, with
# pytest's own summary line (the ctest entry python_package runs the same).
test-python: build
	WGX_TESTS_DIR=$(abspath tests) PYTHONPATH=$(abspath $(BUILD))/python WGX_BINARY=$(abspath $(BUILD))/wgx \
	    .cache/pkg-venv/bin/python -m pytest -q -p no:cacheprovider bindings/python/tests

# The Python package's wheels for CPython 3.11 and 3.12 (when found), manylinux-repaired, in
# $(BUILD)/dist (scripts/build-wheels.sh: the build folder is reused, only the module is
# compiled again per Python); test-wheel installs each into a new venv and runs the pytest suite
# on it there.
wheel: build
	scripts/build-wheels.sh $(BUILD)

test-wheel: wheel
	scripts/test-wheels.sh $(BUILD)

# The slow set: full-size models (exported once into .cache/models by python/export_models.py
# --full) against PyTorch; run before each submission and on the H200. SLOW_LOG=docs/slow-runs
# writes the dated run log there.
test-slow: build
	python3 scripts/run_slow_set.py --build $(BUILD) $(if $(SLOW_LOG),--log $(SLOW_LOG))

# The readers need no GPU, so they run under the sanitizers without the driver's own
# allocations in the way (see docs/TESTING.md for the leak policy).
test-readers-sanitized: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWGX_SANITIZE=ON \
	    -DWGX_BUILD_APPS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j $(JOBS) --target graph_tests
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest -L graph -j $(JOBS)

# The engine's own code under LeakSanitizer (with ASan and UBSan) on the GPU: the contract tests
# (threads, device loss, logging, load/run/destroy hygiene) and every fixture program, with the
# driver suppressions of tests/contract/lsan-gpu.supp (docs/HYGIENE.md). Not part of `make test`:
# the engine's sanitizer build alone takes about ten minutes on two cores.
test-leaks: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWGX_SANITIZE=ON \
	    -DWGX_BUILD_APPS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j $(JOBS) --target wgx_contract_tests wgx_program_tests
	cd $(BUILD)-asan && export ASAN_OPTIONS=detect_leaks=1 \
	    LSAN_OPTIONS=suppressions=$(abspath tests/contract/lsan-gpu.supp):print_suppressions=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 WGX_HYGIENE_CYCLES=30 && \
	    ctest -L contract -j $(JOBS) --output-on-failure && \
	    ctest -R 'Fixtures\..*/fixtures_' -j $(JOBS) --output-on-failure

# Installs the engine from $(BUILD) into a temporary prefix (nothing is compiled again), builds
# examples/consumer (and the example of docs/EMBEDDING.md) against the installed CMake package,
# shared and static, and runs the installed tool and the consumers without LD_LIBRARY_PATH.
PKG_TEST = $(abspath $(BUILD))/pkg-test
test-install: build
	rm -rf $(PKG_TEST)
	cmake --install $(BUILD) --prefix $(PKG_TEST)/prefix > $(PKG_TEST).log
	cmake -S examples/consumer -B $(PKG_TEST)/consumer -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_PREFIX_PATH=$(PKG_TEST)/prefix -DWGX_EMBEDDING_DOC=$(abspath docs/EMBEDDING.md) \
	    >> $(PKG_TEST).log
	cmake --build $(PKG_TEST)/consumer >> $(PKG_TEST).log
	env -u LD_LIBRARY_PATH $(PKG_TEST)/prefix/bin/wgx --version
	env -u LD_LIBRARY_PATH XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PKG_TEST)/consumer/consumer tests/fixtures/conv
	env -u LD_LIBRARY_PATH XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PKG_TEST)/consumer/consumer_static tests/fixtures/conv
	env -u LD_LIBRARY_PATH XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PKG_TEST)/consumer/embedding_example tests/fixtures/residual/vulkan.pte

# The main job on the bundled default: describe the device, then detect objects on darknet's
# dog.jpg with the bundled NanoDet and write the annotated picture (docs/DEMOS.md).
DEMO_PHOTO ?= /usr/share/darknet/data/dog.jpg
demo: build
	$(BUILD)/wgx info --device
	$(BUILD)/wgx detect $(DEMO_PHOTO) -o $(BUILD)/demo-detect.png

clean:
	rm -rf $(BUILD)
