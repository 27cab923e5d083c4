# The fileshare service: the HTTP and WebSocket server with the built web app, in one image.
# Build: docker build -t fileshare .  (podman build needs --format docker to keep the
# HEALTHCHECK); docs/container.md has the details.
# BASE is any Debian-based image with Node.js 20.19 or newer and npm; the official slim image of
# the active LTS line is the default.
ARG BASE=node:24-bookworm-slim

FROM ${BASE} AS build
# From Node 22.16 on the server runs on Node's own node:sqlite and the image holds no compiled
# module. On an older Node it needs better-sqlite3, compiled against the base's Node headers (under
# /usr/local/include/node) when no prebuilt module can be fetched: only then is a compiler
# installed. The test is apps/server/src/db/sqlite-node.ts's.
RUN if node -e "process.exit(typeof process.getBuiltinModule?.('node:sqlite')?.StatementSync \
      .prototype.setReturnArrays === 'function' ? 0 : 1)" 2>/dev/null; then \
    touch /usr/local/share/node-sqlite; \
  else \
    apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*; \
  fi
ENV CI=true npm_config_nodedir=/usr/local
WORKDIR /src
# Manifests first: the dependency layer is rebuilt only when one of them or the lockfile changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/testing/package.json packages/testing/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY apps/cli/package.json apps/cli/
COPY tests/container/package.json tests/container/
RUN npm install -g "$(node -p "require('./package.json').packageManager")" \
  && pnpm install --frozen-lockfile --filter fileshare --filter @fileshare/protocol \
    --filter @fileshare/server --filter @fileshare/web
COPY . .
# The runtime gets the server's and the protocol's production dependencies, installed again
# from the store without the rest (and without better-sqlite3 where node:sqlite serves), and the
# built web app; types, source maps and the C sources of better-sqlite3 are left behind.
RUN pnpm --filter @fileshare/protocol --filter @fileshare/server --filter @fileshare/web build \
  && rm -rf node_modules apps/*/node_modules packages/*/node_modules tests/*/node_modules \
  && optional=$(test -e /usr/local/share/node-sqlite && echo --no-optional) \
  && pnpm install --frozen-lockfile --offline --prod $optional --filter @fileshare/server \
    --filter @fileshare/protocol \
  && mkdir -p /out/apps/server /out/apps/web /out/packages/protocol \
  && cp -a node_modules /out/ \
  && cp -a apps/server/package.json apps/server/dist apps/server/drizzle apps/server/drizzle-pg \
    apps/server/node_modules \
    /out/apps/server/ \
  && cp -a packages/protocol/package.json packages/protocol/dist packages/protocol/node_modules \
    /out/packages/protocol/ \
  && cp -a apps/web/dist /out/apps/web/ \
  && cd /out \
  && find . \( -name '*.d.ts' -o -name '*.d.cts' -o -name '*.d.mts' -o -name '*.map' \) -delete \
  && for sqlite in node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3; do \
    test -d "$sqlite" || continue; \
    mv "$sqlite/build/Release/better_sqlite3.node" /tmp/ \
    && rm -rf "$sqlite/build" "$sqlite/deps" "$sqlite/src" \
    && mkdir -p "$sqlite/build/Release" && mv /tmp/better_sqlite3.node "$sqlite/build/Release/"; \
  done

FROM ${BASE}
# A fixed id, so that a volume or bind mount can be prepared for it: chown 10001:10001.
RUN groupadd --gid 10001 fileshare \
  && useradd --uid 10001 --gid fileshare --home-dir /nonexistent --no-create-home \
    --shell /usr/sbin/nologin fileshare \
  && mkdir /data && chown fileshare:fileshare /data
COPY --from=build /out /app
WORKDIR /app/apps/server
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=3000
VOLUME /data
EXPOSE 3000
USER fileshare
# Asks the running server over the loopback, on whatever PORT the container is given.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "dist/health-probe.js"]
# The shell picks the Node flags for the cores the container may use, then hands PID 1 to Node,
# which receives SIGTERM itself and lets uploads under way finish (SHUTDOWN_GRACE_MS).
CMD ["/bin/sh", "-c", "exec node $(node dist/print-node-flags.js) dist/index.js"]
