#!/usr/bin/env bash
# A remote hit against a compile and a disk hit: starts a private redis-server (Debian's) on a
# free loopback port with no persistence, runs //bench:jit_latency with TILE_CACHE_URL pointing
# at it (cold compile, disk hit, and a new folder's remote hit, each in a new process), stops
# the server. Arguments go to jit_latency (default: --op=gemm_f16 --runs=5).
#
#   bench/remote_cache_latency.sh [--op=add_f32] [--runs=9]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v redis-server >/dev/null || { echo "remote_cache_latency: no redis-server (apt-get install redis-server)" >&2; exit 1; }
bazel build -c opt //bench:jit_latency >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/jit_latency"

work=$(mktemp -d)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  --logfile "$work/redis.log" --daemonize no &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && break
  sleep 0.1
done

echo "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$port (loopback)"
[[ $# -gt 0 ]] || set -- --op=gemm_f16
TILE_CACHE_URL="redis://127.0.0.1:$port/0" "$bin" "$@"
