# Entry points. `make test` is the README's test command and what CI runs.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_FLAGS ?= --output-on-failure

.PHONY: all deps configure build test bench run clean format golden fuzz test-asan test-tsan

all: build

# Installs Debian packages only when one is missing (fast no-op otherwise).
deps:
	@bash scripts/install_deps.sh

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)
	@bash scripts/install_python_path.sh

test: build
	cd $(BUILD_DIR) && ctest -j $(JOBS) $(CTEST_FLAGS)

bench: build
	$(BUILD_DIR)/tests/bench/compopt_bench
	$(BUILD_DIR)/tests/bench/compopt_sim_scale_bench
	PYTHONPATH=python COMPOPT_BUILD_DIR=$(BUILD_DIR) /usr/bin/python3 tests/bench/python_optimizer_bench.py
	bash tests/bench/train_overhead_bench.sh $(BUILD_DIR)

# The main job on its built-in default: every study of the papers at the quick
# scale, figures and report.md under runs/reproduce-<time>/ (runs/latest-reproduce
# links to it).
run: build
	$(BUILD_DIR)/experiments/compopt reproduce

format:
	git ls-files '*.h' '*.cc' '*.cu' '*.cuh' | xargs clang-format -i

# Refreshes tests/golden/ (the pinned numbers of the simulator studies) after a reviewed
# model change; `git diff tests/golden` shows what moved.
golden: build
	bash scripts/update_golden.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)

# Robustness (docs/robustness.md), each in its own build directory:
#   make fuzz       libFuzzer targets of fuzz/ (clang; installed when missing), FUZZ_SECONDS each
#   make test-asan  the ctest suite under ASan + UBSan
#   make test-tsan  the Local and TCP backend tests under TSan (TSAN_TESTS, a ctest -R regex)
FUZZ_SECONDS ?= 60
TSAN_TESTS ?= /local_|/tcp_|ErrorConformance.*/(local|tcp)$$|Tcp|FrameTest|LocalWorld|Ranks/Reference|TrainLoop|launch_|ParallelFor|SignKernels|SignFeedback|RandomKernels|RingPipeline|RingShift

fuzz: deps
	bash scripts/run_fuzzers.sh --build-dir build-fuzz --seconds $(FUZZ_SECONDS) --jobs $(JOBS)

test-asan: deps
	bash scripts/run_sanitized_tests.sh address build-asan $(JOBS) $(CTEST_FLAGS)

test-tsan: deps
	bash scripts/run_sanitized_tests.sh thread build-tsan $(JOBS) $(CTEST_FLAGS) -R '$(TSAN_TESTS)'
