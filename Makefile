# make release: static binaries for every platform in .build/OS-ARCH/, and
# archives, the rules file and SHA256SUMS in dist/ (docs/deploy.md).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: release
release:
	cd deploy && go run ./release -version $(VERSION)
