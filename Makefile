# Thin wrapper: `make run` and `make test` are the README's quick start.
# Each installs missing Debian packages (as root; otherwise prints the line and stops),
# configures and builds into build/, then runs the default sweep or the tests.
DEBS := g++ cmake make pkg-config libxbyak-dev libcli11-dev nlohmann-json3-dev doctest-dev \
        libcapstone-dev binutils python3 python3-jsonschema gnuplot-nox \
        libbenchmark-tools python3-numpy python3-scipy git \
        libpfm4-dev libhwloc-dev
JOBS ?= $(shell nproc)

.PHONY: deps build run test clean

deps:
	@./.ci/install-deps $(DEBS)

build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build -j $(JOBS)

run: build
	./build/kex run --force -o build/default-results.json --plot-dir build/plots

test: build
	cd build && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
