# toolroute's tasks. `make run` runs the main job, `make test` the tests.
GO       ?= go
FUZZTIME ?= 10s

# Fuzz targets as package:Target, each run for FUZZTIME by `make fuzz`.
FUZZ_TARGETS = \
	registry:FuzzLoadManifest \
	registry:FuzzNormalizeSchema \
	registry/wire:FuzzDecode \
	registry/wire:FuzzStream \
	registry/session:FuzzHistory \
	registry/session:FuzzEvents

.PHONY: run test check fuzz

run:
	$(GO) run ./host/cmd/toolroute check

test:
	$(GO) test ./...

# check: formatting, vet, registry/ building for wasip1 with nothing outside
# the standard library, and a tidy go.mod.
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) build ./registry/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./registry/...
	@deps=$$(GOOS=wasip1 GOARCH=wasm $(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./registry/... \
		| grep -v '^github.com/toolroute/toolroute/registry\(/\|$$\)'); \
	if [ -n "$$deps" ]; then echo "registry/ must use only the standard library; it reaches:"; echo "$$deps"; exit 1; fi
	$(GO) mod tidy
	git diff --exit-code -- go.mod go.sum

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name for $(FUZZTIME)"; \
		$(GO) test ./$$pkg -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) || exit 1; \
	done
