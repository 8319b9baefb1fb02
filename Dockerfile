# One multi-stage image definition for every service (apps/*):
#   docker build --build-arg SERVICE=public-api --target runtime -t emailsvc/public-api .
# plus `--target migrate` (applies migrations, then exits) and `--target simulator` (local/dev only).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH TURBO_TELEMETRY_DISABLED=1 CI=true
RUN npm install -g pnpm@10.34.9 turbo@2.11.11 && npm cache clean --force
WORKDIR /repo

# Only the service's workspace dependencies, so an unrelated change does not rebuild every image.
FROM base AS pruner
ARG SERVICE
COPY . .
RUN turbo prune "@emailsvc/${SERVICE}" --docker

FROM base AS builder
ARG SERVICE
COPY --from=pruner /repo/out/json/ ./
COPY --from=pruner /repo/out/pnpm-lock.yaml ./pnpm-lock.yaml
RUN pnpm install --frozen-lockfile
COPY --from=pruner /repo/out/full/ ./
COPY tsconfig.base.json ./
RUN pnpm --filter @emailsvc/db run generate \
 && turbo run build --filter="@emailsvc/${SERVICE}..." \
 # `pnpm deploy` copies the service with its production dependencies; workspace packages are injected as
 # real copies (their dist/), which pnpm 10 only does with inject-workspace-packages or --legacy.
 && pnpm --filter "@emailsvc/${SERVICE}" deploy --legacy --prod /out

# The dashboard (apps/dashboard): static files public-api serves on its admin listener under /dashboard. Built once
# and copied into the runtime image (a few hundred KB; the other services never serve it).
FROM base AS dashboard
COPY . .
RUN pnpm install --frozen-lockfile --filter @emailsvc/dashboard... \
 && pnpm --filter @emailsvc/dashboard build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production DASHBOARD_DIST=/app/dashboard
WORKDIR /app
COPY --from=builder --chown=node:node /out ./
COPY --from=dashboard --chown=node:node /repo/apps/dashboard/dist ./dashboard
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]

# Migrations: the db package with its offline (WebAssembly) schema engine and tsx.
FROM base AS migrate
COPY . .
RUN pnpm install --frozen-lockfile --filter @emailsvc/db... && chown -R node:node /repo
USER node
CMD ["pnpm", "--filter", "@emailsvc/db", "run", "migrate"]

# The SES/SNS simulator and s3rver for local stacks (never deployed to production).
FROM base AS simulator
COPY . .
RUN pnpm install --frozen-lockfile --filter @emailsvc/provider-simulator... --filter @emailsvc/dev-stack... && chown -R node:node /repo
USER node
CMD ["pnpm", "exec", "tsx", "--conditions=development", "tools/provider-simulator/src/main.ts"]
