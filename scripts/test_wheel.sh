#!/usr/bin/env bash
# Tests the installed wheel, not the tree: builds it (scripts/build_wheel.sh), installs it into a
# fresh virtual environment (its numpy and protobuf from PyPI, as a user's pip would), and from a
# folder outside the checkout, with the package's Python sources and no PYTHONPATH,
#   1. checks that every library the installed libtile.so needs beyond glibc and the C++ runtime
#      resolves into the wheel's tile.libs/ (ldd);
#   2. runs python/packaging/wheel_smoke.py (a kernel from text and a tile.language GEMM on numpy)
#      and the package's pytest suites (python/tests) against the installed package, in a mount
#      namespace where Debian's copies of those libraries (protobuf, Abseil, libcrypto, LLVM
#      and what libLLVM pulls in) are unreadable, so they cannot be what runs.
# Without the privilege for a mount namespace (unshare -m), step 2 runs with them visible and
# says so. The temporary folder is removed at the end. --no-build tests the wheel already in dist/;
# TILE_WHEEL_TORCH=1 adds torch to the venv, so that tile.torch's tests run rather than skip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
start=$SECONDS

if [[ "${1:-}" != --no-build ]]; then
  ./scripts/build_wheel.sh
fi
wheel=$(ls dist/tile-*.whl)

WORK=$(mktemp -d /tmp/tile-wheel-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "test_wheel: $PYTHON -m venv; pip install $wheel pytest"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel" pytest
# tile.torch's tests (python/tests/test_torch.py) skip without torch; TILE_WHEEL_TORCH=1 installs
# it from PyPI first (torch 2.15 with its CUDA libraries: 5.4 GB, about 90 s here).
if [[ "${TILE_WHEEL_TORCH:-0}" == 1 ]]; then
  echo "test_wheel: pip install torch (TILE_WHEEL_TORCH=1)"
  "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check torch
fi
site=$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')

# 1. What the loader finds for the installed libtile: tile.libs/ or the base system.
SYSTEM_LIBS='^(linux-vdso\.so|/lib64/ld-linux|ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libpthread\.so|libdl\.so|librt\.so|libz\.so)'
bundled=0
while read -r name arrow path _; do
  [[ "$name" =~ $SYSTEM_LIBS ]] && continue
  [[ "$arrow" == "=>" && "$path" == /* ]] && path=$(realpath "$path")
  if [[ "$arrow" != "=>" || "$path" != "$site/tile.libs/"* ]]; then
    echo "test_wheel: error: the installed libtile.so takes $name from ${path:-?}, not tile.libs/" >&2
    exit 1
  fi
  bundled=$((bundled + 1))
done < <(env -u LD_LIBRARY_PATH ldd "$site/tile/libtile.so")
echo "test_wheel: ldd: the installed libtile.so finds $bundled libraries in tile.libs/, the rest" \
  "is glibc, libstdc++, libgcc_s and zlib"

# 2. The package's tests, copied out of the checkout with the data files they read.
mkdir -p "$WORK/tests" "$WORK/data/capi/testdata" "$WORK/data/docs/examples" "$WORK/data/ops" \
  "$WORK/data/python"
cp python/packaging/wheel_smoke.py python/tests/test_*.py "$WORK/tests/"
cp -r python/tests/language "$WORK/tests/language"
cp capi/testdata/scale_add.tile "$WORK/data/capi/testdata/"
cp docs/examples/scale_add.json docs/examples/scale_add.tile "$WORK/data/docs/examples/"
cp ops/*.tile "$WORK/data/ops/"
cp -r python/examples "$WORK/data/python/examples"
# test_tile.py checks that the call path was loaded from where it was built: here, the wheel.
ln -s "$site/tile/_launch.abi3.so" "$WORK/data/python/_launch.abi3.so"

# Debian's files of libtile's dependencies, made unreadable inside the namespace only.
# (zstd and terminfo stay: gcc, which torch.compile runs, needs them; ldd above checks those.)
HIDDEN='libprotobuf|libabsl_|libcrypto\.so|libLLVM|libz3\.so|libicu|libxml2\.so'
cat >"$WORK/run.sh" <<RUN
set -euo pipefail
if [[ "\${1:-}" == hide ]]; then
  hidden=0
  for file in \$(find /usr/lib/x86_64-linux-gnu /usr/lib/llvm-16/lib -maxdepth 1 -type f \
                  -regextype egrep -regex '.*/($HIDDEN)[^/]*' 2>/dev/null); do
    mount --bind /dev/null "\$file"
    hidden=\$((hidden + 1))
  done
  # The hiding works: Debian's own protobuf no longer loads.
  if "$PYTHON" -c 'import ctypes; ctypes.CDLL("libprotobuf.so.32")' 2>/dev/null; then
    echo "test_wheel: error: Debian's libprotobuf.so.32 still loads in the namespace" >&2
    exit 1
  fi
  echo "test_wheel: \$hidden of Debian's library files hidden in this mount namespace" \
    "(libprotobuf.so.32 no longer loads there)"
fi
cd "$WORK"
export TILE_CACHE_DIR="$WORK/cache" TEST_SRCDIR_ROOT="$WORK/data"
unset PYTHONPATH TILE_LIBRARY TILE_LAUNCH_EXTENSION LD_LIBRARY_PATH
"$WORK/venv/bin/python" tests/wheel_smoke.py
"$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider tests --ignore=tests/test_torch.py
RUN
if unshare -m --propagation private true 2>/dev/null; then
  unshare -m --propagation private bash "$WORK/run.sh" hide
else
  echo "test_wheel: no mount namespace here (unshare -m needs root or CAP_SYS_ADMIN): the tests" \
    "run with Debian's libraries visible; the ldd check above still holds"
  bash "$WORK/run.sh"
fi
# tile.torch's tests outside the namespace: torch.compile's C++ backend runs `openssl`, which
# needs Debian's libcrypto (the bundling is proven above).
if [[ "${TILE_WHEEL_TORCH:-0}" == 1 ]]; then
  (cd "$WORK" && env -u PYTHONPATH -u TILE_LIBRARY -u TILE_LAUNCH_EXTENSION \
    TILE_CACHE_DIR="$WORK/cache" "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/test_torch.py)
else
  echo "test_wheel: tile.torch's tests (python/tests/test_torch.py) not run: no torch in the" \
    "venv (TILE_WHEEL_TORCH=1 installs it)"
fi
echo "test_wheel: $wheel installed and tested in $((SECONDS - start)) s"
