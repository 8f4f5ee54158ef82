#!/usr/bin/env bash
# CPU per request of the host and of the C-Chain plugin under load.
#
#   make build && bench/cpu-per-request.sh [build dir] [seconds] [method body]
#
# Starts the host of <build dir> (default build/) on the embedded default
# config in a fresh data dir, sends eth_blockNumber (or the given body) from
# 8 concurrent clients, and prints requests per second and the CPU time the
# host and the EVM plugin spent per request, read from /proc. Also the host
# alone, serving info.getNetworkID itself.
set -euo pipefail
build=$(realpath "${1:-build}")
secs=${2:-8}
body=${3:-'{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'}
port=9790
data=$(mktemp -d)
trap 'kill $host 2>/dev/null || true; wait $host 2>/dev/null || true; rm -rf "$data"' EXIT
load=$data/rpcload
go build -o "$load" ./bench/rpcload

"$build/bin/chainhost" --data-dir "$data/node" --http-port $port --log-display-level WARN >"$data/host.log" 2>&1 &
host=$!
url=http://127.0.0.1:$port
for _ in $(seq 1 120); do
	if curl -sf -XPOST "$url/ext/bc/C/rpc" -H 'content-type: application/json' -d "$body" | grep -q result; then break; fi
	sleep 0.5
done
plugin=$(pgrep -P $host -f "$build/plugins/evm")
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

measure() { # name url body
	"$load" -url "$2" -body "$3" -d 2s >/dev/null # warm up
	local h0 p0 out n
	h0=$(ticks $host); p0=$(ticks $plugin)
	out=$("$load" -url "$2" -body "$3" -d "${secs}s")
	n=${out%% *}
	printf '%-28s %s | host %d µs/req, plugin %d µs/req\n' "$1" "$out" \
		$(( ($(ticks $host) - h0) * 1000000 / hz / n )) $(( ($(ticks $plugin) - p0) * 1000000 / hz / n ))
}
measure "C-Chain through the host" "$url/ext/bc/C/rpc" "$body"
measure "host alone (info API)" "$url/ext/info" '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}'
