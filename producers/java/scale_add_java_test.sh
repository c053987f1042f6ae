#!/usr/bin/env bash
# The Java producer end to end: protoc --java_out over the project's own schema, javac
# against Debian's protobuf.jar, ScaleAdd writes a .tilepb, tile-run runs it on the CPU
# at a ragged N against a float64 reference; a wrong reference and a truncated module fail.
# Args: PROTOC TILE_RUN TILE_IR_PROTO JAVA_SOURCES...
set -euo pipefail

protoc=$1 tile_run=$2 schema=$3
shift 3
sources=("$@")
jar=/usr/share/java/protobuf.jar
work=${TEST_TMPDIR:-$(mktemp -d)}
export TILE_CACHE_DIR=$work/tile-cache

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[[ -f $jar ]] || fail "$jar is missing: install Debian's libprotobuf-java (scripts/setup.sh does)"
command -v javac >/dev/null || fail "javac is missing: install a JDK (scripts/setup.sh does)"
[[ -x /usr/bin/python3 ]] || fail "/usr/bin/python3 is missing (scripts/setup.sh installs python3-numpy)"

# -I. keeps the descriptor's name tile_ir/proto/tile_ir.proto, as libtile's own.
mkdir -p "$work/gen" "$work/classes"
"$protoc" -I. --java_out="$work/gen" "$schema"
javac -nowarn -cp "$jar" -d "$work/classes" $(find "$work/gen" -name '*.java') "${sources[@]}"
module=$work/scale_add.tilepb
java -cp "$jar:$work/classes" tile.examples.ScaleAdd "$module"

# Locations name the Java line that added each statement: the store is loop.store(...).
scale_add_java=$(printf '%s\n' "${sources[@]}" | grep '/ScaleAdd.java$')
store_line=$(grep -n 'loop.store(' "$scale_add_java" | cut -d: -f1)
decoded=$("$protoc" -I. --decode=tile_ir.v1.Module "$schema" <"$module")
store_loc=$(awk '/store \{/ {seen = 1} seen && /line:/ {print $2; exit}' <<<"$decoded")
[[ $store_loc == "$store_line" ]] ||
  fail "the store's loc.line is '$store_loc', expected ScaleAdd.java's line $store_line"
grep -q 'file: "ScaleAdd.java"' <<<"$decoded" || fail "no location names ScaleAdd.java"

# N = 1000 is not a multiple of the 64-element tile, so the last block is ragged.
# alpha = 0.75 is exact in f32, so the float64 reference uses the kernel's alpha.
/usr/bin/python3 - "$work" <<'EOF'
import sys
import numpy as np
work = sys.argv[1]
rng = np.random.default_rng(16)
x = rng.standard_normal(1000).astype(np.float32)
y = rng.standard_normal(1000).astype(np.float32)
np.save(f"{work}/x.npy", x)
np.save(f"{work}/y.npy", y)
np.save(f"{work}/z.npy", 0.75 * x.astype(np.float64) + y.astype(np.float64))
np.save(f"{work}/z_without_alpha.npy", x.astype(np.float64) + y.astype(np.float64))
EOF

run() {
  "$tile_run" "$1" --target=cpu --in X="$work/x.npy" --in Y="$work/y.npy" \
    --scalars alpha=0.75 --expect Z="$2"
}

run "$module" "$work/z.npy" >"$work/pass.log" 2>&1 || {
  cat "$work/pass.log"
  fail "tile-run on the Java module did not pass"
}
grep -q '^PASS' "$work/pass.log" || { cat "$work/pass.log"; fail "tile-run printed no PASS"; }

# The comparison is not vacuous: a reference without alpha must fail.
if run "$module" "$work/z_without_alpha.npy" >"$work/wrong.log" 2>&1; then
  cat "$work/wrong.log"
  fail "tile-run passed against a wrong reference"
fi

# A module cut short is refused, naming the file.
truncated=$work/truncated.tilepb
head -c -5 "$module" >"$truncated"
if run "$truncated" "$work/z.npy" >"$work/truncated.log" 2>&1; then
  fail "tile-run accepted a truncated module"
fi
grep -q "truncated.tilepb" "$work/truncated.log" ||
  { cat "$work/truncated.log"; fail "tile-run's error does not name truncated.tilepb"; }

# For the log: what tile-run said on the good run and on the truncated module.
cat "$work/pass.log" "$work/truncated.log"
echo "PASS: Java-built scale_add ran on the CPU at N=1000; wrong reference and truncated module refused"
