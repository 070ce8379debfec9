# One image for strand's three services (store, worker, gateway); docker-compose.yml picks the
# command. Services run TypeScript with tsx (a runtime dependency), so there is no build step for
# them; the one build is the gateway's web pages (clients/web/build.ts, esbuild: a runtime dependency too),
# bundled into dist/web, which the gateway serves at / and /operator.
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
COPY clients ./clients
RUN node_modules/.bin/tsx clients/web/build.ts --force
RUN mkdir -p /data/store && chown -R node:node /data
USER node
CMD ["npm", "run", "start:gateway"]
