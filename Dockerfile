# availmon's container image: the static binary that `go run ./release`
# (in deploy/) built for the target architecture, on an empty base. Time
# zones and CA roots are in the binary; there is no shell, no libc, no
# package manager. Build it (docs/deploy.md):
#
#   (cd deploy && go run ./release -platforms linux/amd64,linux/arm64)
#   docker buildx build --platform linux/amd64,linux/arm64 -t availmon .
#   buildah build --format docker --platform linux/arm64 -t availmon .
FROM scratch

# Set by docker build (BuildKit) and buildah from --platform: linux, and
# amd64 or arm64.
ARG TARGETOS
ARG TARGETARCH

# The version the release stamped into the binary, for the image's label.
ARG VERSION=dev
LABEL org.opencontainers.image.title="availmon" \
      org.opencontainers.image.description="Which applications are up, per geographic location, from Prometheus metrics or HTTP probes" \
      org.opencontainers.image.version="${VERSION}"

COPY .build/${TARGETOS}-${TARGETARCH}/availmon /bin/availmon
# A configuration that watches availmon itself; mount yours over it.
COPY deploy/docker/availmon.yaml /etc/availmon/availmon.yaml
# The state directory (storage.path), owned by the image's user: a new
# named volume takes its owner from the image.
COPY --chown=65532:65532 deploy/docker/data/ /data/

# A numeric user, so that Kubernetes' runAsNonRoot can check it without a
# passwd file.
USER 65532:65532
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/bin/availmon"]
# ":8080" listens on every address of the container, IPv4 and IPv6.
CMD ["-config=/etc/availmon/availmon.yaml", "-listen=:8080", "-storage.path=/data"]
# Kept by images in Docker's format (buildah/podman --format docker); the
# OCI format has no health check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/bin/availmon", "healthcheck", "-listen=:8080"]
