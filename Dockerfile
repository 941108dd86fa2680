# svc in a container: Node 24, a non-root user, the example app, data on a volume.
# Build: docker build -t svc .   Run: docker run -p 8080:8080 -v svc-data:/var/lib/svc svc
FROM node:24-bookworm-slim

WORKDIR /srv/svc
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_APP=/srv/svc/app \
    SVC_STORE=sqlite:/var/lib/svc/svc.sqlite

# Dependencies first, so that code changes reuse this layer. The image's own Node 24 runs svc,
# so the `node` dev dependency (and every other dev dependency) is left out.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY bin ./bin
COPY src ./src
COPY runtime ./runtime
COPY app ./app

RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc
USER node
VOLUME /var/lib/svc
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM: stop accepting, finish in-flight requests, close the store.
STOPSIGNAL SIGTERM
# --no-node-snapshot: isolated-vm requires it on Node 20 and later. Node runs as PID 1 (exec form),
# so SIGTERM reaches the server itself.
CMD ["node", "--no-node-snapshot", "--disable-warning=ExperimentalWarning", "src/cli.ts", "serve"]
