import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Route } from './route.ts';
import { MethodNotAllowedError, UnrecognizedUrlError } from '#shared/core/errors.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import { apiGenerationOf, newRequestId, renderErrorResponse, toApiGatewayResult } from './handler.ts';
import { allowedMethods } from './route-match.ts';

/** Answers a request no route matched: 405 with `Allow` when the path exists under other methods, else 404. */
export function unmatchedRequest(event: APIGatewayProxyEventV2, routes: readonly Route[]): APIGatewayProxyStructuredResultV2 {
  const requestId = newRequestId();
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const allowed = allowedMethods(routes, path);
  const error = allowed.length > 0 ? new MethodNotAllowedError(method, path, allowed) : new UnrecognizedUrlError(method, path);
  const response = renderErrorResponse(error, apiGenerationOf(path), requestId);
  return toApiGatewayResult(response, requestId, { ...response.headers, 'Service-Version': defaultServiceVersion });
}
