# goondan container image. Documented in docs/container.md; checked by test/container/dockerfile.test.ts.
#
#   docker build -t goondan .
#   docker run --rm -p 8790:8790 -e GOONDAN_API_TOKEN=change-me -v goondan-state:/var/lib/goondan goondan
#
# The base images are build arguments, so a mirror or a locally built base needs no edit:
#   docker build --build-arg NODE_IMAGE=mirror.example/node:24-bookworm-slim \
#     --build-arg BUN_IMAGE=mirror.example/oven/bun:1.4.5-slim -t goondan .
# BUN_IMAGE must carry the Bun version pinned in package.json; NODE_IMAGE only runs npm (a Node that
# package.json's engines.node admits, so npm installs without engine warnings).
ARG NODE_IMAGE=node:24-bookworm-slim
ARG BUN_IMAGE=oven/bun:1.4.5-slim

# Stage 1 installs the production dependencies from the committed npm lockfile (package-lock.json).
# npm lives in the node image, not in the Bun image, so the install happens here and only node_modules
# is carried over. Optional dependencies are the per-platform Bun binaries of the `bun` npm package; the
# runtime image brings its own Bun, so they are omitted (and the package's postinstall is skipped).
# npm ci can exit 0 after a failed fetch with an empty or partial node_modules: `npm ls` then fails the
# build when any production package is missing, empty, or not the version the lockfile pins.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
  && npm ls --omit=dev --omit=optional --all > /dev/null

# Stage 2: the runtime, on the Bun version pinned in package.json.
FROM ${BUN_IMAGE}
# tini is PID 1: it forwards SIGTERM to goondan (which drains its agents and exits 0) and reaps any
# orphaned grandchild (a background job started by the bash tool), so no zombie is ever left behind.
# apt's package lists and caches (/var/cache/apt/*.bin) are removed in the same RUN, so no layer keeps them.
# The user's HOME is its own directory, not the state volume: whatever Bun or a tool keeps in HOME stays out
# of the state.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb \
  && groupadd --system --gid 10001 goondan \
  && useradd --system --uid 10001 --gid goondan --home-dir /home/goondan --create-home --shell /usr/sbin/nologin goondan \
  && mkdir -p /var/lib/goondan \
  && chown goondan:goondan /var/lib/goondan

WORKDIR /app
# Bun's runtime transpiler cache is off: it would write under $HOME on every start.
ENV NODE_ENV=production \
    HOME=/home/goondan \
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
# The install must be whole: import every production dependency and goondan's entry modules with this Bun.
RUN ["bun", "/app/docker/verify-install.ts"]

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
