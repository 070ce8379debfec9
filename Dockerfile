# One image for strand's three services (store, worker, gateway); docker-compose.yml picks the
# command. The services run as JavaScript built once here with esbuild (a runtime dependency):
# infra/build/services-build.ts bundles each into dist/services (node_modules stay external), so a
# container (re)start does not compile TypeScript. The worker's workflows stay TypeScript sources: the
# Temporal SDK bundles them with webpack; that bundle is made here too, into the cache the workers
# read (STRAND_WORKFLOW_BUNDLE_CACHE), so a worker container starts without bundling. The gateway's web
# pages are bundled into dist/web (clients/web/build.ts), served at / and /operator.
# The worker and the gateway start as root through infra/docker/run-as-project-owner.ts, which switches
# to the owner of the mounted projects; the store and anything else run as `node`.
FROM node:20.18-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20.18-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY contracts ./contracts
COPY workflows ./workflows
COPY activities ./activities
COPY services ./services
COPY infra/docker/run-as-project-owner.ts infra/docker/project-owner.ts ./infra/docker/
COPY infra/stack/service-entry.ts infra/stack/watchdog.ts infra/stack/parent-link.ts infra/stack/proc-table.ts ./infra/stack/
COPY infra/build ./infra/build
COPY clients ./clients
RUN node_modules/.bin/tsx clients/web/build.ts --force
RUN node_modules/.bin/tsx infra/build/services-build.ts --force
# Read-only for the services (they only read an entry that is still valid); made by root at build time.
ENV STRAND_WORKFLOW_BUNDLE_CACHE=/app/dist/workflow-bundles
RUN node_modules/.bin/tsx infra/build/warm-workflow-bundles.ts
RUN mkdir -p /data/store && chown -R node:node /data
USER node
CMD ["node", "dist/services/gateway.js"]
