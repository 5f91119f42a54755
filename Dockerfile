# goondan container image. Documented in docs/container.md; checked by test/container/dockerfile.test.ts.
#
#   docker build -t goondan .
#   docker run --rm -p 8790:8790 -e GOONDAN_API_TOKEN=change-me -v goondan-state:/var/lib/goondan goondan
#
# Stage 1 installs the production dependencies from the committed npm lockfile (package-lock.json).
# npm lives in the node image, not in the Bun image, so the install happens here and only node_modules
# is carried over. Optional dependencies are the per-platform Bun binaries of the `bun` npm package; the
# runtime image brings its own Bun, so they are omitted (and the package's postinstall is skipped).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund

# Stage 2: the runtime, on the Bun version pinned in package.json.
FROM oven/bun:1.4.5-slim
# tini is PID 1: it forwards SIGTERM to goondan (which drains its agents and exits 0) and reaps any
# orphaned grandchild (a background job started by the bash tool), so no zombie is ever left behind.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system --gid 10001 goondan \
  && useradd --system --uid 10001 --gid goondan --home-dir /var/lib/goondan --shell /usr/sbin/nologin goondan \
  && mkdir -p /var/lib/goondan \
  && chown goondan:goondan /var/lib/goondan

WORKDIR /app
# Bun's transpiler cache would land in $HOME, which is the state volume: keep it out.
ENV NODE_ENV=production \
    GOONDAN_STATE_ROOT=/var/lib/goondan \
    GOONDAN_PORT=8790 \
    BUN_RUNTIME_TRANSPILER_CACHE_PATH=0

COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY docker ./docker
# The default bundle is the repository's example swarm (replay model, no API key, no network).
# Mount your own bundle over /app/bundle to run it instead.
COPY goondan.yaml ./bundle/goondan.yaml
COPY prompts ./bundle/prompts
COPY cassettes ./bundle/cassettes

# Conversations, inboxes and workspaces live here: keep it on a volume so restarts resume them.
VOLUME ["/var/lib/goondan"]
USER 10001:10001
EXPOSE 8790
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bun", "/app/docker/healthcheck.ts"]

# docker/entrypoint.ts binds the API to 0.0.0.0 only when GOONDAN_API_TOKEN is set (else 127.0.0.1 with
# a warning) and then runs the goondan CLI in-process. Arguments after the image name replace CMD.
ENTRYPOINT ["/usr/bin/tini", "--", "bun", "/app/docker/entrypoint.ts"]
CMD ["run", "/app/bundle"]
