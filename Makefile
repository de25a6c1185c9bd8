# SPDX-License-Identifier: MIT
# Thin wrapper over CMake. The README's two commands are `make run` and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps build run test test-asan test-fast test-gpu clean support-matrix install

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: build, check the machine, then train LeNet-5 on Fashion-MNIST for one epoch
# on the default backend and evaluate it (samples/lenet/README.md).
run: build
	$(BUILD)/tools/doctor/freednn-doctor
	$(BUILD)/samples/lenet/lenet

# Every test: the normal build, then the whole suite again under ASan + UBSan.
test: test-fast test-asan

# Tests never read or write the user's tuning cache (tests/api/test_tunecache.c sets its own).
test-fast: build
	FREEDNN_TUNE_CACHE=off ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DFREEDNN_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	FREEDNN_TUNE_CACHE=off ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -E 'docs/|abi/'

# The GPU tier (a machine with an sm_80+ GPU and nvcc): build-gpu, tests/gpu, compute-sanitizer.
test-gpu:
	tests/gpu/run.sh

# Library (with the libcudnn.so.7/.9/.so names), headers, freednn.pc, CMake package: docs/compat.md.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# docs/support-matrix.md: functions from the code, and the op x dtype x backend table measured
# by tools/support_probe on this build.
support-matrix: build
	python3 tools/gen_support_matrix.py --probe $(BUILD)/tools/support_probe/support_probe

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
