import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routes } from '#functions/routes.ts';
import { unmatchedRequest } from '#shared/http/fallback.ts';

/** The `$default` route: every request that no route of the table matches. */
export const handler = async (event: APIGatewayProxyEventV2) => unmatchedRequest(event, routes);
