import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { publicBaseUrl } from '#shared/http/base-url.ts';
import { withContract } from '#shared/http/contract.ts';
import { newRequestId } from '#shared/http/handler.ts';
import document from '../../docs/openapi.json' with { type: 'json' };

/** Rendered bodies by server URL: one in practice (PUBLIC_BASE_URL, or the API's own host), a few at most. */
const rendered = new Map<string, string>();
const maxRendered = 8;

function body(serverUrl: string): string {
  let text = rendered.get(serverUrl);
  if (text === undefined) {
    text = JSON.stringify({ ...document, servers: [{ url: serverUrl }] });
    if (rendered.size < maxRendered) rendered.set(serverUrl, text);
  }
  return text;
}

/**
 * GET /openapi.json: the OpenAPI 3.1 document (docs/openapi.json, written by `npm run openapi` from the
 * route table and the handlers' schemas). No API key and no table call: it holds nothing secret, and it
 * is rendered once per process.
 */
export const handler = withContract(
  async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Request-Id': newRequestId() },
      body: body(publicBaseUrl(headers, event.requestContext.domainName)),
    };
  },
  { kind: 'document', summary: 'Retrieve this OpenAPI document', description: 'No API key.' },
);
