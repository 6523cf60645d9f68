# Entry points for people and CI. Every target installs what it needs first (Debian packages
# and the pinned wgpu-native; run as root on Debian 12).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test demo clean

all: build

deps:
	scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Builds everything and runs the whole test suite on the default adapter (lavapipe headless).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The main job on the bundled default: describe the device, then run the built-in example.
demo: build
	$(BUILD)/wgx info --device
	$(BUILD)/wgx example

clean:
	rm -rf $(BUILD)
