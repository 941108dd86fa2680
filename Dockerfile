# svc in a container (README "Containers"): Node 24, production dependencies only, a non-root
# user, the example app, SQLite data on a volume.
#   docker build -t svc .
#   docker run -p 8080:8080 -v svc-data:/var/lib/svc svc
# test/unit/dockerfile.test.ts checks what this file assumes, and starts its command from a
# production-only install.

# Both stages use the same base so that the native addons installed in the first (isolated-vm,
# esbuild; prebuilt for linux x64 and arm64 on glibc) match the C library of the second.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- deps: production dependencies, nothing else. npm and its cache stay in this stage.
FROM ${NODE_IMAGE} AS deps
WORKDIR /srv/svc
# mongodb-memory-server's install script downloads a MongoDB server binary (about 100 MB) for
# `--store mongodb-memory`, which no container uses. package.json "allowScripts" skips it on
# npm >= 11.16; this variable skips it on any npm.
ENV MONGOMS_DISABLE_POSTINSTALL=1
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime
FROM ${NODE_IMAGE}
WORKDIR /srv/svc
# MONGOMS_RUNTIME_DOWNLOAD=false: `--store mongodb-memory` fails at once instead of downloading
# a binary (set MONGOMS_SYSTEM_BINARY to a mongod to use it anyway).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_APP=/srv/svc/app \
    SVC_STORE=sqlite:/var/lib/svc/svc.sqlite \
    MONGOMS_RUNTIME_DOWNLOAD=false

COPY --from=deps /srv/svc/node_modules ./node_modules
# package.json: "type": "module" makes the .ts and .js files ES modules.
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY runtime ./runtime
COPY app ./app

RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc
USER node
VOLUME /var/lib/svc
EXPOSE 8080

# Readiness, not liveness: /readyz is 200 once the start-up checks are done and the store
# answers, 503 otherwise (compose's depends_on and a load balancer wait for it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM: stop accepting, finish in-flight requests (at most 10 s), close the store, exit 0.
STOPSIGNAL SIGTERM
# --no-node-snapshot: isolated-vm requires it on Node >= 20 (its README). V8 shares heap data
# between the isolates of a process, and a process whose isolates start from different snapshots
# (Node's own start-up snapshot, isolated-vm's isolates without it) can crash
# (https://github.com/laverdet/isolated-vm/issues/420). node:cluster passes it on to every
# --workers process (they inherit process.execArgv).
ENTRYPOINT ["node", "--no-node-snapshot", "--disable-warning=ExperimentalWarning", "--max-semi-space-size=8", "bin/svc.js"]
CMD ["serve"]
