# chainhost: `make run` builds everything and starts the local network;
# `make test` builds everything and runs every test.
GO        ?= go
BIN       := build/bin
PLUGINS   := build/plugins
TOOLS     := build/tools/bin
# Every cmd/<name> except the host is a plugin binary, built into $(PLUGINS).
PLUGIN_CMDS := $(filter-out chainhost,$(notdir $(wildcard cmd/*)))
TEST_FLAGS ?= -race -timeout 30m
COMPAT_TEST_FLAGS ?= -timeout 30m
BENCH_FLAGS ?= -run '^$$' -bench . -benchmem -count 1 -timeout 60m
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/chainhost/chainhost/core/version.Version=$(VERSION)

.PHONY: build run test bench proto proto-check lint tools clean

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/chainhost ./cmd/chainhost
	@mkdir -p $(PLUGINS)
	@for p in $(PLUGIN_CMDS); do \
		echo "$(GO) build -o $(PLUGINS)/$$p ./cmd/$$p"; \
		$(GO) build -ldflags '$(LDFLAGS)' -o $(PLUGINS)/$$p ./cmd/$$p || exit 1; \
	done

# ARGS passes flags to the node, e.g. make run ARGS=--api-admin-enabled=true
run: build
	$(BIN)/chainhost $(ARGS)

# Tests that start the host find the binaries through CHAINHOST_BIN_DIR.
# compat/avalanchego is a module of its own (avalanchego's wallets check the
# X-Chain and the C-Chain's atomic transactions; its dependencies stay out
# of the node's binary). It runs without -race: it is a client of the
# node's processes, and the race build of avalanchego's dependencies would
# add minutes to every cold CI run.
test: build
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(TEST_FLAGS) ./...
	cd compat/avalanchego && CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(COMPAT_TEST_FLAGS) ./...

bench: build
	CHAINHOST_BIN_DIR=$(CURDIR)/build $(GO) test $(BENCH_FLAGS) ./bench/... ./core/... ./sdk/...

tools:
	cd build/tools && $(GO) build -o bin/ \
		github.com/bufbuild/buf/cmd/buf \
		google.golang.org/protobuf/cmd/protoc-gen-go \
		google.golang.org/grpc/cmd/protoc-gen-go-grpc \
		honnef.co/go/tools/cmd/staticcheck

proto: tools
	cd proto && ../$(TOOLS)/buf generate

lint: tools
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...

clean:
	rm -rf $(BIN) $(PLUGINS) $(TOOLS)
