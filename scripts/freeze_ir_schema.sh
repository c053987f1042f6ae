#!/usr/bin/env bash
# Freezes the schema of the newest IR version (kIrVersion in tile_ir/version.h):
# writes tile_ir/proto/released/v<N>.binpb, the FileDescriptorSet of today's
# tile_ir/proto/tile_ir.proto, which //tile_ir/proto:released_schemas_test then
# holds every later schema to. Run it once, when a version is released (the
# same change that raises kIrVersion); a frozen set is never rewritten, so
# this refuses to overwrite one. See docs/COMPATIBILITY.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version=$(sed -n 's/^inline constexpr int64_t kIrVersion = \([0-9][0-9]*\);$/\1/p' tile_ir/version.h)
if [[ -z "$version" ]]; then
  echo "freeze_ir_schema: error: no 'inline constexpr int64_t kIrVersion = N;' in tile_ir/version.h" >&2
  exit 1
fi
out=tile_ir/proto/released/v$version.binpb
if [[ -e "$out" ]]; then
  echo "freeze_ir_schema: error: $out exists; version $version is frozen already." >&2
  echo "  A released schema never changes: raise kIrVersion for a new one." >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
# -I. names the file tile_ir/proto/tile_ir.proto, as the compiled-in descriptor is named.
protoc -I. --include_imports --descriptor_set_out="$out" tile_ir/proto/tile_ir.proto
echo "freeze_ir_schema: wrote $out ($(stat -c %s "$out") bytes) for ir_version $version"
