#!/bin/bash
# Build Simbody 3.7 (Debian's source of libsimbody-dev, the same version) in Release mode
# and install it where the benchmarks look for it: $MBSTUDIO_SIMBODY_RELEASE, default
# ~/.cache/mbstudio/simbody-3.7-release. The benchmarks then add a "simbody_rel" column:
# the same C++ program against this build, without Debian's debug assertions (each
# bench_*.py compiles its program against it through common.build_simbody_program:
# simbody_bench.cpp, simbody_integration_bench.cpp, simbody_contact_bench.cpp, and
# simbody_span_bench.cpp for bench_span.py's window-by-window cost of chain50). Installs what it
# needs from Debian's packages (cmake, g++, curl, liblapack-dev, libblas-dev) when they are
# missing; about 25 minutes on 2 cores.
set -euo pipefail
# Without LAPACK's development files cmake still configures and builds Simbody, but its
# libraries then leave LAPACK's symbols undefined and no benchmark program links: install them.
missing=()
for pkg in cmake g++ curl liblapack-dev libblas-dev; do
    dpkg -s "$pkg" > /dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
        apt-get install -y -q "${missing[@]}"
    else
        sudo apt-get install -y -q "${missing[@]}"
    fi
fi
prefix="${MBSTUDIO_SIMBODY_RELEASE:-$HOME/.cache/mbstudio/simbody-3.7-release}"
url="http://deb.debian.org/debian/pool/main/s/simbody/simbody_3.7+dfsg.orig.tar.xz"
sha256="c2e2a3e7def05ba4fda4b216d04d41bdc6477c0cfcec20bfce98c1005532dfb6"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "downloading $url"
curl -fsSL -o "$work/simbody.tar.xz" "$url"
echo "$sha256  $work/simbody.tar.xz" | sha256sum --check --quiet
tar -xJf "$work/simbody.tar.xz" -C "$work"
cmake -S "$work/simbody-Simbody-3.7" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_EXAMPLES=OFF -DBUILD_TESTING=OFF \
    -DBUILD_VISUALIZER=OFF -DBUILD_STATIC_LIBRARIES=OFF
cmake --build "$work/build" -j"$(nproc)"
cmake --install "$work/build"
echo "Simbody 3.7 (Release) installed in $prefix"
