# doceval — see README.md. Every target works on a fresh Debian machine with Go: what it
# needs and is missing is installed with apt-get when running as root (make run and make
# build: only what the stack runs, RUN_TOOLS; the test targets add TEST_TOOLS, PostgreSQL
# and, for Spectral, Node.js).

SHELL := /bin/bash
GO    ?= go

# Pinned generator and linter versions; `go run pkg@version` builds them from the module
# proxy, so nothing needs installing and every machine runs the same versions.
OAPI_CODEGEN := github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
SQLC         := github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1
STATICCHECK  := honnef.co/go/tools/cmd/staticcheck@v0.8.2
SPECTRAL     := @stoplight/spectral-cli@6.16.3
SPECTRAL_OWASP := @stoplight/spectral-owasp-ruleset@2.0.1

SERVICES := api ingest evaluator dispatcher admin console extractor devstack
# The chart's verification is a module of its own (Helm and Kubernetes stay out of the
# main module and the images); it is vetted and linted with the others.
MAIN_MODULES := ./... github.com/doceval/doceval/gen/client/... github.com/doceval/doceval/pkg/sdk/... github.com/doceval/doceval/services/doceval/...
CHART_CHECK  := github.com/doceval/doceval/deploy/chartcheck/...
MODULES      := $(MAIN_MODULES) $(CHART_CHECK)
DEVSTACK := bin/doceval-devstack

FUZZTIME ?= 20s

.PHONY: all build run test real-dev replicas chaos bench scale fuzz fuzz-targets generate check-generated tidy tidy-module release release-check lint fmt-check spec-lint vet staticcheck tools node-tools run-tools install-missing clean

all: build

build: run-tools
	@mkdir -p bin
	@for s in $(SERVICES); do $(GO) build -o bin/doceval-$$s ./services/$$s || exit 1; done
	@$(GO) build -o bin/doceval ./services/doceval

# The whole stack on one machine: private PostgreSQL and embedded JetStream under .data/.
run: build
	$(DEVSTACK) run

# Every module's tests with -race, against a private PostgreSQL cluster made for this run
# (or TEST_DATABASE_URL when set) and embedded JetStream servers made per test.
test: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- $(GO) test -race -count=1 $(MAIN_MODULES)
	@# Rendering the chart is single-threaded: -race would only build Kubernetes' API twice.
	$(GO) test -count=1 $(CHART_CHECK)

# The real development documents (../shared/real-dev beside the repository) read as ingest
# and the evaluator do, scored against their hand-checked truth: a line per document and
# field, then the totals and the reliability of the confidences. make test runs it too,
# with floors; DOCEVAL_REAL_DEV_CACHE=<dir> keeps the extraction between runs.
real-dev: tools
	$(GO) test -count=1 -run '^TestRealDev$$' -v ./pkg/engine/

# The multi-replica kill test alone, verbose: 2 processes per service, a 3-node JetStream
# cluster, 200 submissions, one process of each service and one NATS node killed halfway.
replicas: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- $(GO) test -count=1 -v -run '^TestMultiReplicaKill$$' ./deploy/

# The fault-injection test: Toxiproxy between the services and PostgreSQL and NATS,
# 200 submissions, latency, connection resets, a 30 s cut of each. CI runs it too.
chaos: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- env DOCEVAL_CHAOS=1 $(GO) test -count=1 -v -timeout 20m -run '^TestChaos$$' ./deploy/

bench: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	set -o pipefail; $(DEVSTACK) with-postgres -- $(GO) test -run '^$$' -bench . -benchtime 3s -count 1 ./pkg/apiserver/ ./pkg/extract/ ./pkg/dispatch/ ./pkg/evaluator/ ./pkg/ingest/ ./pkg/engine/ | tee .bench.out
	@$(GO) run ./services/devstack bench-table < .bench.out

# The scale test (not in CI): 1,000 tenants, 1 M submissions, 10 M events, 5 M
# deliveries; p50/p99 of the reads with their query plans, the dispatcher draining 100 k
# due deliveries, retention and a purge under concurrent writes. About 30 minutes and
# 10 GB of disk; SCALE_FACTOR=0.01 seeds a hundredth for a quick look.
SCALE_FACTOR ?= 1
scale: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- env DOCEVAL_SCALE=1 DOCEVAL_SCALE_FACTOR=$(SCALE_FACTOR) $(GO) test -count=1 -v -timeout 3h -run '^TestScale$$' ./pkg/devtools/scale/

# Every fuzz target (func Fuzz...) of MAIN_MODULES (the CLI's module too), each for
# FUZZTIME, against a private PostgreSQL cluster (some targets drive the API on a real
# database).
fuzz: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- $(MAKE) --no-print-directory fuzz-targets

fuzz-targets:
	@for pkg in $$($(GO) list $(MAIN_MODULES)); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; done

generate: tools
	$(GO) run $(OAPI_CODEGEN) -config openapi/server.cfg.yaml openapi/openapi.yaml
	$(GO) run $(OAPI_CODEGEN) -config openapi/client.cfg.yaml openapi/openapi.yaml
	cd sql && $(GO) run $(SQLC) generate

# CI: a clean checkout must not change when regenerated.
check-generated: generate
	@if [ -n "$$(git status --porcelain -- gen sql openapi)" ]; then \
		echo "generated code is stale; run make generate and commit:"; git status --porcelain -- gen sql openapi; git diff --stat -- gen; exit 1; fi

# go mod tidy and go get ignore go.work, and the main module, the SDK and the CLI require
# the client, SDK and CLI modules at their release version, which no proxy has before it is
# tagged: each module is tidied with those replaced by their directories for the run.
# (To add a dependency, import it and run make tidy.)
tidy:
	@$(MAKE) --no-print-directory tidy-module DIR=gen/client
	@$(MAKE) --no-print-directory tidy-module DIR=pkg/sdk OURS="gen/client"
	@$(MAKE) --no-print-directory tidy-module DIR=services/doceval OURS="gen/client pkg/sdk"
	@$(MAKE) --no-print-directory tidy-module DIR=. OURS="gen/client pkg/sdk services/doceval"
	@$(MAKE) --no-print-directory tidy-module DIR=deploy/chartcheck

tidy-module:
	@up=$$(realpath --relative-to=$(DIR) .); cd $(DIR) && \
	$(if $(OURS),$(GO) mod edit $(foreach m,$(OURS),-replace=github.com/doceval/doceval/$(m)=$$up/$(m)) &&) \
	{ GOWORK=off $(GO) mod tidy; rc=$$?; \
	  $(if $(OURS),$(GO) mod edit $(foreach m,$(OURS),-dropreplace=github.com/doceval/doceval/$(m));) exit $$rc; }

# make release VERSION=vX.Y.Z releases the partner modules and the server together (see
# README, "Releasing"): sets VERSION in every released module's requirements of the
# others, in go.work's and images.work's replace lines, in sdk.Version and CHANGELOG.md,
# tidies every module, vets and tests the client, SDK and CLI modules, runs the CLI's
# tests against the real API and the file-proxy install test at VERSION, and prints the
# tags. DRY_RUN=1, the default, does all that in a copy of the working tree and leaves
# the repository as it was (about 2 minutes); DRY_RUN=0, on a clean tree, commits and
# creates the tags (vX.Y.Z, gen/client/vX.Y.Z, pkg/sdk/vX.Y.Z, services/doceval/vX.Y.Z)
# for you to push. release-check (CI) is the dry run at the next minor version.
DRY_RUN ?= 1
release: tools
	@if [ -z "$(VERSION)" ]; then echo "usage: make release VERSION=vX.Y.Z [DRY_RUN=0]"; exit 2; fi
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- $(DEVSTACK) release -dry-run=$(if $(filter 0,$(DRY_RUN)),false,true) $(VERSION)

release-check: tools
	@mkdir -p bin
	$(GO) build -o $(DEVSTACK) ./services/devstack
	$(DEVSTACK) with-postgres -- $(DEVSTACK) release -dry-run -next

lint: fmt-check vet staticcheck spec-lint

fmt-check:
	@files=$$(gofmt -l services pkg sql gen deploy); if [ -n "$$files" ]; then echo "not gofmt-ed:"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet $(MODULES)

staticcheck:
	$(GO) run $(STATICCHECK) $(MODULES)

spec-lint:
	@command -v npx >/dev/null || $(MAKE) --no-print-directory apt PKGS="nodejs npm"
	@# openapi/.spectral.yaml extends the OWASP ruleset by its package name, which Node looks
	@# up from the ruleset's directory or NODE_PATH: npx installs both packages, pinned, and
	@# NODE_PATH points at the node_modules beside the spectral it put on PATH.
	npx --yes -p $(SPECTRAL) -p $(SPECTRAL_OWASP) -c 'NODE_PATH="$$(dirname "$$(dirname "$$(command -v spectral)")")" spectral lint --fail-severity=warn --ruleset openapi/.spectral.yaml openapi/openapi.yaml'

# The OCR languages: German and English read every page first; a page in another of these
# languages is read again with its model (the EU languages lenders see most).
OCR_LANGS := deu eng fra spa ita nld por pol

# What the stack runs (make run, make build): poppler-utils, tesseract (with OCR_LANGS)
# and antiword for the ingest service's text extraction, run in bubblewrap's sandbox
# (bwrap; DOCEVAL_PARSER_ISOLATION).
RUN_TOOLS := pdftotext:poppler-utils pdfinfo:poppler-utils pdftoppm:poppler-utils tesseract:tesseract-ocr antiword:antiword bwrap:bubblewrap
# What only the tests add: gcc for the race detector and sqlc's parser, qpdf for the
# extraction tests, curl and jq for the quickstart, chromium for the console's browser
# tests, Node.js and npm for the Standard Webhooks check below (and Spectral).
TEST_TOOLS := gcc:gcc qpdf:qpdf curl:curl jq:jq chromium:chromium node:nodejs npm:npm

# The Standard Webhooks reference library for Node, pinned: pkg/apiserver's tests verify
# real deliveries with it as a partner's receiver in another language would. Installed
# under .tools/node (not committed); a no-op when that version is there.
NODE_TEST_LIB := standardwebhooks
NODE_TEST_LIB_VERSION := 1.1.1

run-tools:
	@$(MAKE) --no-print-directory install-missing NEED="$(RUN_TOOLS)"

tools:
	@$(MAKE) --no-print-directory install-missing NEED="$(RUN_TOOLS) $(TEST_TOOLS)"
	@$(MAKE) --no-print-directory node-tools

node-tools:
	@installed=$$(node -p 'require("./.tools/node/node_modules/$(NODE_TEST_LIB)/package.json").version' 2>/dev/null); \
	if [ "$$installed" != "$(NODE_TEST_LIB_VERSION)" ]; then \
		npm install --prefix .tools/node --no-save --no-audit --no-fund $(NODE_TEST_LIB)@$(NODE_TEST_LIB_VERSION); fi

# install-missing installs the Debian package of each command:package in NEED whose
# command is missing, and the OCR languages' data when NEED has tesseract.
install-missing:
	@missing=""; \
	for t in $(NEED); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t#*:}"; done; \
	case "$$missing" in *gcc*) missing="$$missing libc6-dev";; esac; \
	if command -v tesseract >/dev/null; then \
		langs=$$(tesseract --list-langs 2>/dev/null); \
		for l in $(OCR_LANGS) osd; do echo "$$langs" | grep -qx $$l || missing="$$missing tesseract-ocr-$$l"; done; \
	else missing="$$missing $(foreach l,$(OCR_LANGS) osd,tesseract-ocr-$(l))"; fi; \
	if [ -n "$$missing" ]; then $(MAKE) --no-print-directory apt PKGS="$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' ')"; fi

apt:
	@if [ "$$(id -u)" != 0 ]; then echo "missing: $(PKGS); install them (apt-get install $(PKGS))"; exit 1; fi
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PKGS)

clean:
	rm -rf bin .bench.out
