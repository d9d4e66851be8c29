# skillctl — build, test, benchmark, demo.
GO       ?= go
BIN      ?= bin/skillctl
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/skillctl/skillctl/cmd.version=$(VERSION)
PREFIX   ?= /usr/local
# Tools the Makefile installs from the Go module proxy, pinned.
TOOLS    := $(abspath bin/tools)
STATICCHECK_VERSION ?= v0.8.2
BENCH_N  ?= 10000
BENCH_RUNS ?= 7

export CGO_ENABLED ?= 0

.PHONY: all build test test-short bench lint fmt golden docs completions demo install clean cross dist

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# What CI runs. -race needs cgo; it is used where a C compiler is available.
test:
	@if command -v gcc >/dev/null 2>&1; then \
		CGO_ENABLED=1 $(GO) test -race -count=1 ./... ; \
	else \
		$(GO) test -count=1 ./... ; \
	fi

test-short:
	$(GO) test -count=1 -short ./...

cross:
	GOOS=linux   GOARCH=amd64 $(GO) build -o /dev/null ./...
	GOOS=darwin  GOARCH=arm64 $(GO) build -o /dev/null ./...
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./...

bench: build
	$(GO) run ./internal/bench -skillctl $(BIN) -n $(BENCH_N) -runs $(BENCH_RUNS)
	@echo "run: direct wall time and sandbox overhead per isolation tier (medians, ms)"
	$(GO) test -run '^$$' -bench 'BenchmarkRun' -benchtime 30x ./pkg/run

# go vet and staticcheck for every OS skillctl builds for, and the layering
# rule: pkg/** depends on neither cobra, lipgloss, cmd/ nor internal/render.
lint: $(TOOLS)/staticcheck
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	GOOS=darwin $(TOOLS)/staticcheck ./...
	GOOS=windows $(TOOLS)/staticcheck ./...
	GO=$(GO) sh scripts/check-imports.sh

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

fmt:
	gofmt -w $$(git ls-files '*.go')

golden:
	UPDATE_GOLDEN=1 $(GO) test -count=1 ./...

# Reference pages (docs/reference), man pages (docs/man) and completion
# scripts (completions/) are generated from the command tree; a test fails
# when the committed files differ.
docs:
	$(GO) run ./internal/gendocs docs

completions:
	$(GO) run ./internal/gendocs completions

demo: build
	@BIN=$(abspath $(BIN)) sh testdata/demo/demo.sh

# The binary, its man pages and its completion scripts under PREFIX.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/skillctl
	install -m 0644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 completions/skillctl.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/skillctl
	install -m 0644 completions/_skillctl $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_skillctl
	install -m 0644 completions/skillctl.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/skillctl.fish

# Release archives for linux, darwin and windows on amd64 and arm64, and
# SHA256SUMS, in dist/: reproducible (the same commit gives the same bytes).
dist:
	$(GO) run ./internal/dist -out dist -version $(VERSION)

clean:
	rm -rf bin dist
