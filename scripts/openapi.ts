import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `npm run openapi [file]`: writes the OpenAPI document that `GET /openapi.json` serves (default
 * docs/openapi.json, which is committed; test/unit/openapi/openapi.test.ts fails when it is out of date).
 */
const { buildOpenApiDocument, offlineHandlerEnvironment, renderOpenApiDocument } = await import('#shared/openapi/document.ts');
// Handler modules wire their adapters at import; they need configuration, not a running stack.
for (const [name, value] of Object.entries(offlineHandlerEnvironment)) process.env[name] ??= value;
const { routes } = await import('#functions/routes.ts');
const { routeResponses } = await import('#functions/responses.ts');
const target = resolve(process.argv[2] ?? 'docs/openapi.json');
const document = await buildOpenApiDocument(
  routes,
  routeResponses,
  async (entry) => ((await import(pathToFileURL(resolve(entry)).href)) as { handler?: unknown }).handler,
);
writeFileSync(target, renderOpenApiDocument(document));
console.log(`Wrote ${target} (${Object.keys(document.paths as object).length} paths)`);
