#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# build.sh: set up, build and run damsim on a Debian machine.
#
#   sh build.sh          install what is missing, build, run the flagship what-if
#   sh build.sh test     install what is missing, build, run every test
#   sh build.sh asan     the same tests in the AddressSanitizer + UBSan build
#                        (with fault injection and gcov: prints coverage)
#   sh build.sh fuzz [S] the libFuzzer targets (clang): the scenario loader
#                        each other input parser and the profiler-trace reader, S seconds each (60)
#   sh build.sh faults   every allocation failed in turn (fault injection)
#   sh build.sh coverage line and branch coverage of model/ and solver/
#
# Packages come from Debian's archive (apt-get, as root or through sudo).
# Under CI (CI=true) warnings are errors.
set -eu
cd "$(dirname "$0")"

packages="gcc make cmake pkg-config libgsl-dev libconfig-dev libcairo2-dev libjansson-dev zlib1g-dev python3
    libpango1.0-dev fonts-dejavu-core libopenmpi-dev openmpi-bin
    python3-pip python3-setuptools python3-wheel python3-pytest bash-completion"
# the tests' own: a headless browser for the HTML explorer (report_explore)
test_packages="chromium"
# install what is missing of the packages named
need() {
    missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "build.sh: installing$missing"
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
    fi
}
# shellcheck disable=SC2086
need $packages

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc 2>/dev/null || echo 2)

case "${1:-run}" in
run)
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDAM_WERROR=$werror >/dev/null
    cmake --build build -j "$jobs"
    ./build/damsim
    ;;
test)
    # shellcheck disable=SC2086
    need $test_packages
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDAM_WERROR=$werror >/dev/null
    cmake --build build -j "$jobs"
    ctest --test-dir build --output-on-failure -j "$jobs"
    ;;
asan)
    # shellcheck disable=SC2086
    need $test_packages
    # MPI off here: OpenMPI's own allocations are not ours to audit
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDAM_SANITIZE=ON \
        -DDAM_MPI=OFF -DDAM_WERROR=$werror >/dev/null
    cmake --build build-asan -j "$jobs"
    find build-asan -name '*.gcda' -delete
    # gcov's own complaints (a test that kills damsim while it writes its
    # counters leaves a file the next process cannot merge) go to a file,
    # not into the output the tests read
    rm -f build-asan/gcov-errors.txt
    GCOV_ERROR_FILE="$PWD/build-asan/gcov-errors.txt" \
    ASAN_OPTIONS=detect_leaks=1 \
    LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs"
    if [ -s build-asan/gcov-errors.txt ]; then
        echo "build.sh: note: coverage counters of some files were not merged" \
             "(build-asan/gcov-errors.txt: $(wc -l <build-asan/gcov-errors.txt) lines)"
    fi
    # the same run measured: line and branch coverage of model/ and solver/
    python3 tests/coverage/report.py build-asan . --min 85
    ;;
faults)
    # every allocation of check, run, whatif and report failed in turn
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDAM_SANITIZE=ON \
        -DDAM_MPI=OFF -DDAM_WERROR=$werror >/dev/null
    cmake --build build-asan -j "$jobs" --target damsim
    python3 tests/faults/run.py build-asan/damsim . --jobs "$jobs"
    ;;
coverage)
    cmake -S . -B build-cov -DCMAKE_BUILD_TYPE=Debug -DDAM_COVERAGE=ON \
        -DDAM_WERROR=$werror >/dev/null
    cmake --build build-cov -j "$jobs"
    find build-cov -name '*.gcda' -delete
    ctest --test-dir build-cov -j "$jobs" >/dev/null || true
    python3 tests/coverage/report.py build-cov .
    ;;
fuzz)
    # libFuzzer needs clang and its runtimes (this target only); clang's
    # warnings differ from gcc's, so they do not fail this build
    need clang libclang-rt-dev
    seconds=${2:-60}
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DDAM_SANITIZE=ON -DDAM_FUZZ=ON -DDAM_MPI=OFF -DDAM_WERROR=OFF \
        -DDAM_COVERAGE=OFF -DDAM_FAULT_INJECTION=OFF \
        >/dev/null
    targets="measure profile requests arrivals vary"
    cmake --build build-fuzz -j "$jobs" --target fuzz_scenario fuzz_kineto \
        $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)
    mkdir -p build-fuzz/corpus build-fuzz/corpus_kineto
    export ASAN_OPTIONS=detect_leaks=1
    export LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp"
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    ./build-fuzz/tests/fuzz_scenario -max_total_time="$seconds" \
        -dict=tests/fuzz/scenario.dict -max_len=8192 -timeout=20 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        build-fuzz/corpus tests/fuzz/corpus tests/fuzz/regressions
    # every other input parser, S seconds each (tests/fuzz/fuzz_inputs.c)
    for t in $targets; do
        mkdir -p "build-fuzz/corpus-$t"
        "./build-fuzz/tests/fuzz_$t" -max_total_time="$seconds" \
            -max_len=8192 -timeout=20 -rss_limit_mb=2048 \
            -print_final_stats=1 "build-fuzz/corpus-$t" "tests/fuzz/inputs/$t"
    done
    # the profiler-trace reader, as long again
    ./build-fuzz/tests/fuzz_kineto -max_total_time="$seconds" \
        -dict=tests/fuzz/kineto.dict -max_len=65536 -timeout=20 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        build-fuzz/corpus_kineto tests/fuzz/corpus_kineto
    ;;
*)
    echo "usage: sh build.sh [run|test|asan|fuzz [SECONDS]|faults|coverage]" >&2
    exit 2
    ;;
esac
