#!/usr/bin/env bash
# Builds the GPU machine's binaries here (bazel -c opt; none links LLVM) and
# gathers them into .devrun/ (git-ignored) with the shared libraries they
# need, the operator suite's .tile files and the peer-baselines script. The
# folder then travels with a device run: carry [".devrun"], and run
# scripts/gpu/run_on_device.sh there. See scripts/gpu/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

BUNDLE=.devrun
MAX_BYTES=$((60 * 1000 * 1000))
PEER_BASELINES=${PEER_BASELINES:-/work/shared/tools/peer_baselines.py}
# label -> file name in the bundle. cuda_device_test runs the CUDA device's
# end-to-end tests, which skip here for want of a GPU.
TARGETS=(
  //tools/tile_run:tile-run-gpu
  //bench:launch_overhead_cuda
  //runtime/cuda:cuda_device_test
  //bench:jit_latency_cuda
  //tools/tile_matrix:tile-matrix-gpu
)
# The Python package's pieces, checked like the binaries: libtile without LLVM,
# the stable-ABI call path, and tile_ir.proto's Python classes.
PYTHON_TARGETS=(
  //capi:libtile-gpu.so
  //python:_launch.abi3.so
  //python:tile_ir_pb2
)
# Libraries every Linux has, or that must come from the GPU machine itself:
# glibc, the compiler's runtime (Ubuntu 24.04's is newer than ours and takes
# our binaries), and the NVIDIA driver and NVRTC (loaded with dlopen anyway).
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libutil\.so|libresolv\.so|libstdc\+\+\.so|libgcc_s\.so|libcuda\.so|libnvrtc)'

echo "build_bundle: bazel build -c opt ${TARGETS[*]}"
bazel build -c opt "${TARGETS[@]}" "${PYTHON_TARGETS[@]}"
# Other builds may point bazel-bin at another configuration meanwhile; ask
# for the -c opt output folder itself.
BIN_DIR=$(bazel info -c opt bazel-bin 2>/dev/null)

rm -rf "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/ops" "$BUNDLE/python" "$BUNDLE/peer_baselines.py" \
  "$BUNDLE/MANIFEST"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/ops" "$BUNDLE/python/examples"

# The Python package as a clone has it, with libtile-gpu.so in lib/ (TILE_LIBRARY) and the
# call path beside the package (TILE_LAUNCH_EXTENSION); run_python_on_device.sh sets both.
cp -r python/tile "$BUNDLE/python/"
find "$BUNDLE/python" -name __pycache__ -prune -exec rm -rf {} +
cp "$BIN_DIR/python/tile/tile_ir_pb2.py" "$BUNDLE/python/tile/"
cp python/examples/*.py bench/python_call/torch_on_gpu.py bench/python_call/call_timing.py \
  bench/python_call/gemm_do_bench.py bench/python_call/issue37_checks.py \
  bench/python_call/tilelang_examples_on_gpu.py bench/python_call/tilelang_programs_on_gpu.py \
  bench/python_call/tilelang_programs.txt "$BUNDLE/python/examples/"
mkdir -p "$BUNDLE/python/examples/tilelang"
cp python/examples/tilelang/*.py "$BUNDLE/python/examples/tilelang/"
cp -L "$BIN_DIR/capi/libtile-gpu.so" "$BUNDLE/lib/"
cp -L "$BIN_DIR/python/_launch.abi3.so" "$BUNDLE/python/"

for binary in "${TARGETS[@]}" //capi:libtile-gpu.so; do
  package=${binary#//}
  package=${package%%:*}
  binary="$BIN_DIR/$package/${binary##*:}"
  [[ -f "$binary" ]] || { echo "build_bundle: error: $binary was not built" >&2; exit 1; }
  [[ "$binary" == *.so ]] || cp -L "$binary" "$BUNDLE/bin/"
  # "libfoo.so => /path/libfoo.so (0x...)": copy every library that is not
  # the system's; a "not found" one would fail there too, so stop here.
  while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    if [[ "$path" == "not" ]]; then
      echo "build_bundle: error: $binary needs $name, which the loader cannot find" >&2
      exit 1
    fi
    [[ "$name" =~ $SYSTEM_LIBS ]] && continue
    cp -L -n "$path" "$BUNDLE/lib/$name"
  done < <(ldd "$binary")
done

cp ops/*.tile "$BUNDLE/ops/"
if [[ -f "$PEER_BASELINES" ]]; then
  cp "$PEER_BASELINES" "$BUNDLE/peer_baselines.py"
else
  echo "build_bundle: warning: no $PEER_BASELINES; the run will skip the peers" >&2
fi

# The GPU machine cannot take LLVM (libLLVM-16 alone is 118 MB): neither libLLVM, nor
# Bazel's libraries of the llvm package, nor the CPU target (whose libraries link it).
LLVM_LIBS='libLLVM|_Sllvm_S|external_Sllvm|targets_Scpu_S'
if ls "$BUNDLE/lib" | grep -qE "$LLVM_LIBS"; then
  echo "build_bundle: error: LLVM got into the bundle: $(ls "$BUNDLE/lib" | grep -E "$LLVM_LIBS")" >&2
  exit 1
fi
for binary in "$BUNDLE"/bin/* "$BUNDLE"/lib/libtile-gpu.so; do
  # By library name, as above: "targets_without_llvm" names the very library that keeps it out.
  if ldd "$binary" | grep -qE "$LLVM_LIBS"; then
    echo "build_bundle: error: $binary links LLVM" >&2
    exit 1
  fi
done
bytes=$(du -sb "$BUNDLE" | cut -f1)
if ((bytes >= MAX_BYTES)); then
  echo "build_bundle: error: the bundle is $bytes bytes; it must stay under $MAX_BYTES" >&2
  exit 1
fi

{
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  (cd "$BUNDLE" && find bin lib ops python -type f -printf '%s %p\n' | sort -k2)
} >"$BUNDLE/MANIFEST"
echo "build_bundle: $BUNDLE is $((bytes / 1000 / 1000)) MB:" \
  "$(ls "$BUNDLE/bin" | wc -l) binaries, $(ls "$BUNDLE/lib" | wc -l) libraries," \
  "$(ls "$BUNDLE/ops" | wc -l) .tile files"
