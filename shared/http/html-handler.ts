import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';
import { clientAddress } from './client-address.ts';
import { withContract, type OperationText } from './contract.ts';
import { newRequestId } from './handler.ts';
import { htmlHeaders, messagePage, type HtmlRequest, type HtmlResult } from '#shared/wire/html.ts';

/** Forms on hosted pages are small; anything bigger is refused before parsing. */
const maxFormBytes = 64 * 1024;

class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

function parseCookies(event: APIGatewayProxyEventV2): Record<string, string> {
  // Payload 2.0 moves cookies out of the headers into `cookies`; a plain header is read too, to be safe.
  const pairs = [...(event.cookies ?? []), ...(event.headers?.cookie ?? event.headers?.Cookie ?? '').split(';')];
  const cookies: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    if (!(name in cookies)) cookies[name] = pair.slice(equals + 1).trim();
  }
  return cookies;
}

function parseForm(event: APIGatewayProxyEventV2): Record<string, string> {
  if (!event.body) return {};
  const mediaType = (event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') {
    throw new RefusedRequest(415, 'Unsupported form encoding', 'This page only accepts forms sent as application/x-www-form-urlencoded.');
  }
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > maxFormBytes) throw new RefusedRequest(413, 'Form too large', `The form data is larger than ${maxFormBytes} bytes.`);
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) if (!(name in form)) form[name] = value;
  return form;
}

function toResult(result: HtmlResult, requestId: string): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { ...htmlHeaders, 'Request-Id': requestId };
  if (result.location) headers.Location = result.location;
  return { statusCode: result.status, headers, body: result.html ?? '', ...(result.cookies?.length ? { cookies: result.cookies } : {}) };
}

/** Serves one hosted-page request. Unexpected failures become a plain 500 page, logged once. */
async function serveHtml(event: APIGatewayProxyEventV2, operation: (request: HtmlRequest) => Promise<HtmlResult>): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = newRequestId();
  try {
    const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    const method = event.requestContext.http.method.toUpperCase();
    const request: HtmlRequest = {
      requestId,
      method,
      path: event.rawPath,
      pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
      cookies: parseCookies(event),
      form: method === 'POST' ? parseForm(event) : {},
      sourceIp: clientAddress(headers, event.requestContext.http.sourceIp) ?? event.requestContext.http.sourceIp,
      userAgent: event.requestContext.http.userAgent ?? headers['user-agent'] ?? '',
      secure: (headers['x-forwarded-proto'] ?? 'https').split(',')[0]!.trim() === 'https',
    };
    return toResult(await operation(request), requestId);
  } catch (error) {
    if (error instanceof RefusedRequest) return toResult({ status: error.status, html: messagePage(error.title, error.message) }, requestId);
    logger.error('Hosted page failed', { requestId, error: error as Error });
    return toResult(
      { status: 500, html: messagePage('Something went wrong', `Please try again in a moment. If it keeps happening, quote reference ${requestId}.`) },
      requestId,
    );
  }
}

/** The one way to write a hosted HTML page handler (the HTML counterpart of `httpHandler`). */
export function htmlHandler(text: OperationText, operation: (request: HtmlRequest) => Promise<HtmlResult>) {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    // Never log the event: hosted forms carry identity numbers.
    .use(injectLambdaContext(logger, { logEvent: false }))
    .handler((event) => serveHtml(event, operation));
  return withContract(handler, { kind: 'html', ...text });
}
