#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# build.sh: set up, build and run damsim on a Debian machine.
#
#   sh build.sh          install what is missing, build, run the flagship what-if
#   sh build.sh test     install what is missing, build, run every test
#   sh build.sh asan     the same tests in the AddressSanitizer + UBSan build
#
# Packages come from Debian's archive (apt-get, as root or through sudo).
# Under CI (CI=true) warnings are errors.
set -eu
cd "$(dirname "$0")"

packages="gcc make cmake pkg-config libgsl-dev libconfig-dev libcairo2-dev libjansson-dev python3
    libpango1.0-dev fonts-dejavu-core libopenmpi-dev openmpi-bin"
missing=""
for p in $packages; do
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
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDAM_WERROR=$werror >/dev/null
    cmake --build build -j "$jobs"
    ctest --test-dir build --output-on-failure -j "$jobs"
    ;;
asan)
    # MPI off here: OpenMPI's own allocations are not ours to audit
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDAM_SANITIZE=ON \
        -DDAM_MPI=OFF -DDAM_WERROR=$werror >/dev/null
    cmake --build build-asan -j "$jobs"
    ASAN_OPTIONS=detect_leaks=1 \
    LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs"
    ;;
*)
    echo "usage: sh build.sh [run|test|asan]" >&2
    exit 2
    ;;
esac
