# Entry points. `make test` is the README's test command and what CI runs.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_FLAGS ?= --output-on-failure

.PHONY: all deps configure build test bench run clean format

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

test: build
	cd $(BUILD_DIR) && ctest -j $(JOBS) $(CTEST_FLAGS)

bench: build
	$(BUILD_DIR)/tests/bench/compopt_bench

# The main job on its built-in default: every study of the papers at the quick
# scale, figures and report.md under runs/reproduce-<time>/ (runs/latest-reproduce
# links to it).
run: build
	$(BUILD_DIR)/experiments/compopt reproduce

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
