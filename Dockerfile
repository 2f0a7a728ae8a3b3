# probe-lint: the CLI and the admission webhook in one image, on the newest Node LTS.
# NODE_IMAGE picks the base (e.g. a mirror, or a locally built base where the registry is out of reach).
ARG NODE_IMAGE=node:24-alpine
# Build stage: dev dependencies, the TypeScript compiler, and Rollup for the CLI's start-up bundle.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY rules ./rules
COPY schema ./schema
COPY rollup.config.mjs ./
RUN npx tsc -p tsconfig.build.json && npx rollup --silent --config rollup.config.mjs

# Runtime stage: production dependencies only, no compiler, no shell tools needed.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/dist/rules ./dist/rules
COPY rules ./rules
COPY schema ./schema
# The rule fixtures are test data, not part of the image.
RUN find ./rules -name fixtures -type d -prune -exec rm -rf {} + && find ./rules -name '*.ts' -exec rm -f {} +
USER 10001:10001
EXPOSE 8443
ENTRYPOINT ["node", "/app/dist/src/cli/bin.js"]
CMD ["serve", "--tls-cert=/etc/probe-lint/tls/tls.crt", "--tls-key=/etc/probe-lint/tls/tls.key"]
