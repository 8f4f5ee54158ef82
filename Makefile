# chainhost: `make run` builds everything and starts the local network;
# `make test` builds everything and runs every test.
GO        ?= go
BIN       := build/bin
PLUGINS   := build/plugins
TOOLS     := build/tools/bin
# Every cmd/<name> except the host is a plugin binary, built into $(PLUGINS).
PLUGIN_CMDS := $(filter-out chainhost,$(notdir $(wildcard cmd/*)))
# The timeout stops a hung package. The packages of the node's code run
# under the race detector; those of tests/ are clients of the node's
# processes, which are built without it, so -race there would check only
# the tests' own code at twice the CPU (docs/decisions.md, "Tests").
# tests/e2e, the longest, spends most of its time waiting for chains,
# restarts and backoffs: its tests run side by side, two at a time on 2
# cores.
TEST_FLAGS ?= -race -timeout 45m
CLIENT_TEST_FLAGS ?= -timeout 45m
COMPAT_TEST_FLAGS ?= -timeout 30m
BENCH_FLAGS ?= -run '^$$' -bench . -benchmem -count 1 -timeout 60m
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/chainhost/chainhost/core/version.Version=$(VERSION)
# The data API conformance suite: Node.js, with the npm packages of its
# committed lockfile (docs/data-api.md, "Conformance suite").
SDK_SUITE := tests/dataapi-sdk
SDK_DEPS  := $(SDK_SUITE)/node_modules/.package-lock.json
# avalanche.js 3.16 on its defaults for avalanchego's local network
# (docs/avalanchego-clients.md): the npm packages of its committed lockfile.
AVALANCHEJS_SUITE := tests/avalanchejs
AVALANCHEJS_DEPS  := $(AVALANCHEJS_SUITE)/node_modules/.package-lock.json
# The explorer's front end (docs/explorer.md): npm packages of its committed
# lockfile, built into the folder the explorer module embeds.
EXPLORER_WEB  := plugins/explorer/web
EXPLORER_DEPS := $(EXPLORER_WEB)/node_modules/.package-lock.json
EXPLORER_DIST := $(EXPLORER_WEB)/dist/index.html
# avalanchego's VM plugins that compat/rpcchainvm runs under the host,
# built from the Go module proxy by the modules of compat/rpcchainvm/plugins.
AVALANCHEGO_PLUGINS := build/avalanchego-plugins
XSVM_CMD := github.com/ava-labs/avalanchego/vms/example/xsvm/cmd/xsvm
# avalanchego v1.14.2's own node and the tool that creates a subnet-evm
# chain on it, for the benchmark of the rpcchainvm runtime against
# avalanchego (bench/avalanchego).
AVALANCHEGO_NODE := build/avalanchego-node

.PHONY: build geth avalanchego-plugins avalanchego-node run test test-deps test-node test-clients test-compat-avalanchego test-compat-rpcchainvm test-sdk sdk-deps avalanchejs-deps pg-deps explorer chromium-deps bench fuzz proto lint tools clean

build: explorer
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/chainhost ./cmd/chainhost
	@mkdir -p $(PLUGINS)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(PLUGINS)/ $(addprefix ./cmd/,$(PLUGIN_CMDS))

# go-ethereum's geth at the version of go.mod, for the tests that check a
# client of any EVM node's standard JSON-RPC against it (internal/gethtest).
# go install pkg@version resolves geth's own dependencies, which the node
# never links, outside go.mod.
GETH_VERSION = $(shell $(GO) list -m -f '{{.Version}}' github.com/ethereum/go-ethereum)
geth: build/geth

build/geth: go.mod
	GOBIN=$(CURDIR)/build $(GO) install github.com/ethereum/go-ethereum/cmd/geth@$(GETH_VERSION)

# subnet-evm and xsvm of avalanchego v1.14.2 (rpcchainvm protocol 45), and
# xsvm of v1.14.1 (protocol 44): real plugins of avalanchego, of the
# protocol the host speaks and of another (compat/rpcchainvm/plugins).
avalanchego-plugins:
	cd compat/rpcchainvm/plugins && $(GO) build -o $(CURDIR)/$(AVALANCHEGO_PLUGINS)/subnet-evm ./cmd/subnet-evm
	cd compat/rpcchainvm/plugins && $(GO) build -o $(CURDIR)/$(AVALANCHEGO_PLUGINS)/xsvm $(XSVM_CMD)
	cd compat/rpcchainvm/plugins/protocol44 && $(GO) build -o $(CURDIR)/$(AVALANCHEGO_PLUGINS)/xsvm-protocol44 $(XSVM_CMD)

# avalanchego v1.14.2's node (its main package, as the release builds it)
# and bench/avalanchego/createchain, which creates a subnet and a
# subnet-evm chain on it: BenchmarkRPCChainVMInterleaved runs subnet-evm
# on both nodes, avalanchego's and chainhost (docs/benchmarks.md).
avalanchego-node:
	cd bench/avalanchego && $(GO) build -o $(CURDIR)/$(AVALANCHEGO_NODE)/avalanchego github.com/ava-labs/avalanchego/main
	cd bench/avalanchego && $(GO) build -o $(CURDIR)/$(AVALANCHEGO_NODE)/createchain ./createchain

# ARGS passes flags to the node, e.g. make run ARGS=--api-admin-enabled=true
run: build
	$(BIN)/chainhost $(ARGS)

# Tests that start the host find the binaries through CHAINHOST_BIN_DIR.
# What the tests need is built two recipes at a time (links, npm and
# compiles overlap); then the four sets of tests run side by side, each
# set's output printed whole when it ends: the packages of the node's
# code under the race detector, those of tests/ (tests/e2e the longest;
# clients of the node's processes, so without it: docs/decisions.md,
# "Tests"), and the two modules of compat/ (each a module of its own so
# that avalanchego's dependencies stay out of the node's binary; clients
# too: compat/avalanchego checks the X-Chain and the C-Chain's atomic
# transactions with avalanchego's wallets, compat/rpcchainvm runs
# avalanchego's VM plugins under the host, docs/rpcchainvm.md).
test:
	$(MAKE) -j2 --output-sync=target test-deps
	$(MAKE) -j4 --output-sync=target test-node test-clients test-compat-avalanchego test-compat-rpcchainvm

test-deps: lint build geth avalanchego-plugins sdk-deps avalanchejs-deps pg-deps chromium-deps

# The longest packages of the node's code under the race detector, named
# first so that they start first.
SLOW_NODE_PKGS := ./plugins/dataapi/store/pgstore ./plugins/dataapi/store/kvstore ./plugins/evm

test-node:
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(TEST_FLAGS) $(SLOW_NODE_PKGS) $$($(GO) list ./... | grep -v /tests/)

test-clients:
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(CLIENT_TEST_FLAGS) ./tests/e2e ./tests/...

test-compat-avalanchego:
	cd compat/avalanchego && CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(COMPAT_TEST_FLAGS) ./...

test-compat-rpcchainvm:
	cd compat/rpcchainvm && CHAINHOST_BIN_DIR=$(CURDIR)/build AVALANCHEGO_PLUGINS_DIR=$(CURDIR)/$(AVALANCHEGO_PLUGINS) $(GO) test $(COMPAT_TEST_FLAGS) ./...

# The conformance suites of the data and metrics APIs alone (their tests
# start the node).
test-sdk: build sdk-deps pg-deps
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(CLIENT_TEST_FLAGS) -run '^Test(DataAPI|MetricsAPI)SDK$$' -v ./tests/e2e

# npm ci installs exactly the lockfile, and writes node_modules/.package-lock.json
# last: it runs again only when package.json or the lockfile is newer.
sdk-deps: $(SDK_DEPS)

$(SDK_DEPS): $(SDK_SUITE)/package.json $(SDK_SUITE)/package-lock.json
	@command -v npm >/dev/null || { echo "make test needs Node.js 20 or later with npm, for the data API conformance suite ($(SDK_SUITE))"; exit 1; }
	cd $(SDK_SUITE) && npm ci --no-audit --no-fund
	@touch $@

avalanchejs-deps: $(AVALANCHEJS_DEPS)

$(AVALANCHEJS_DEPS): $(AVALANCHEJS_SUITE)/package.json $(AVALANCHEJS_SUITE)/package-lock.json
	@command -v npm >/dev/null || { echo "make test needs Node.js 20 or later with npm, for the avalanche.js suite ($(AVALANCHEJS_SUITE))"; exit 1; }
	cd $(AVALANCHEJS_SUITE) && npm ci --no-audit --no-fund
	@touch $@

# The explorer's front end, built when a source file, the build script or
# the installed packages are newer than the last build; go:embed needs it
# before go vet and go build see plugins/explorer.
explorer: $(EXPLORER_DIST)

$(EXPLORER_DEPS): $(EXPLORER_WEB)/package.json $(EXPLORER_WEB)/package-lock.json
	@command -v npm >/dev/null || { echo "make build needs Node.js 20 or later with npm, for the explorer's front end ($(EXPLORER_WEB))"; exit 1; }
	cd $(EXPLORER_WEB) && npm ci --no-audit --no-fund
	@touch $@

$(EXPLORER_DIST): $(EXPLORER_DEPS) $(EXPLORER_WEB)/build.mjs $(shell find $(EXPLORER_WEB)/src -type f 2>/dev/null)
	cd $(EXPLORER_WEB) && npm run --silent build

# Chromium for the explorer's browser tests, installed (Debian's chromium
# package) when missing.
chromium-deps:
	@build/chromium.sh

# PostgreSQL's server binaries for the data API's PostgreSQL tests,
# installed (Debian's postgresql package) when missing.
pg-deps:
	@build/postgresql.sh

# Every fuzz target (func Fuzz... in a _test.go file) for FUZZTIME each;
# `make test` runs their committed seeds only (docs/bad-input.md).
FUZZTIME ?= 30s
fuzz:
	@for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for f in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
			echo "fuzz $$dir $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$dir || exit 1; \
		done; \
	done

# BenchmarkRPCChainVMInterleaved runs avalanchego's subnet-evm under the host
# and under avalanchego's own node.
bench: build geth pg-deps avalanchego-plugins avalanchego-node
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(BENCH_FLAGS) ./bench/... ./core/... ./sdk/... ./plugins/dataapi/... ./avax/evmremote/

# The pinned generators and linters of build/tools/go.mod.
tools: $(TOOLS)/staticcheck $(TOOLS)/paralleltest
	cd build/tools && $(GO) build -o bin/ \
		github.com/bufbuild/buf/cmd/buf \
		google.golang.org/protobuf/cmd/protoc-gen-go \
		google.golang.org/grpc/cmd/protoc-gen-go-grpc

$(TOOLS)/staticcheck: build/tools/go.mod
	cd build/tools && $(GO) build -o bin/ honnef.co/go/tools/cmd/staticcheck

$(TOOLS)/paralleltest: build/tools/go.mod
	cd build/tools && $(GO) build -o bin/ github.com/kunwardeep/paralleltest

proto: tools
	cd proto && ../$(TOOLS)/buf generate

# gofmt, go vet, staticcheck, paralleltest on the end-to-end tests (each
# starts its own node on its own ports and data dir, so they run side by
# side: docs/decisions.md, "Tests"), the check that every document a file
# cites is in the repository, and the check of the arrows between folders
# (internal/layout; docs/decisions.md, "Layout"); make test runs it first.
lint: $(TOOLS)/staticcheck $(TOOLS)/paralleltest explorer
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	$(TOOLS)/paralleltest -ignoremissingsubtests ./tests/e2e
	$(GO) test -count 1 ./docs/ ./internal/layout/

clean:
	rm -rf $(BIN) $(PLUGINS) $(TOOLS) build/geth $(AVALANCHEGO_PLUGINS) $(AVALANCHEGO_NODE)
