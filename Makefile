# Thin wrapper: `make run` and `make test` are the README's quick start.
# Each installs missing Debian packages (as root; otherwise prints the line and stops),
# configures and builds into build/, then runs the default sweep or the tests.
DEBS := g++ cmake make ninja-build pkg-config libxbyak-dev libcli11-dev nlohmann-json3-dev doctest-dev \
        libcapstone-dev libfmt-dev binutils python3 python3-jsonschema gnuplot-nox \
        libbenchmark-tools python3-numpy python3-scipy git \
        libpfm4-dev libhwloc-dev libre2-dev chromium python3-pil cmark-gfm \
        libelf-dev musl-dev llvm nettle-dev libseccomp-dev
# `make fuzz` only: clang and its libFuzzer runtime (-fsanitize=fuzzer).
FUZZ_DEBS := clang libclang-rt-14-dev
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
# The verifier runs faulting kernels in child processes that must die by the
# signal itself (kex reads "killed by SIGSEGV"), and the segment probe installs
# its own handlers: AddressSanitizer must leave SIGSEGV/SIGBUS/SIGILL/SIGFPE alone.
SAN_ENV := ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:allow_user_segv_handler=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: deps configure build run test sanitize fuzz clean

deps:
	@./.ci/install-deps $(DEBS)

# Ninja for a new build folder: it compiles the tests' sources while kex's libraries are
# still building (Make waits for a target's dependencies first). A folder configured
# before keeps its generator (CMake refuses to switch one).
gen = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)

configure: deps
	@cmake -S . -B build $(call gen,build) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build build -j $(JOBS)

# The run needs kex alone, not the tests.
run: configure
	@cmake --build build -j $(JOBS) --target kex
	./build/kex run --force -o build/default-results.json --plot-dir build/plots

test: build
	cd build && ctest --output-on-failure -j $(JOBS)

# The whole test suite built with -fsanitize=address,undefined in build-asan/ (all but
# UBSan's null and vptr checks: CMakeLists.txt says why), but for the browser test: what it
# adds to kex report's own tests (run here) is Chromium's view of the page.
sanitize: deps
	@cmake -S . -B build-asan $(call gen,build-asan) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEX_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -LE browser

# libFuzzer on config, name and number parsing, the results and journal readers and the
# plot writer, FUZZ_SECONDS per target, FUZZ_TARGETS (e.g. "results plot") to pick (build-fuzz/).
FUZZ_TARGETS ?=
fuzz: deps
	@./.ci/install-deps $(FUZZ_DEBS)
	JOBS=$(JOBS) TARGETS="$(FUZZ_TARGETS)" tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf build build-asan build-fuzz
