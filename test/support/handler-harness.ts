import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { useLocalEngines } from '#local/engine-clients.ts';
import { createLambdaContext } from '#local/lambda-context.ts';
import { stack } from './stack.ts';
import { apiGatewayEvent, type EventInput } from './api-gateway-event.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

// Handler modules read their configuration at cold start: point them at the shared local stack first, with
// its engines' credentials, as the stack does for its own handlers.
Object.assign(process.env, stack.env);
useLocalEngines({ accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! }, Buffer.from(stack.kmsMasterKey, 'base64'));

/** Loads a handler module (once, like a warm Lambda) and invokes it with a real API Gateway event. */
export async function invoke(entry: string, input: EventInput) {
  const module = (await import(`../../${entry}`)) as { handler: Handler };
  const result = await module.handler(apiGatewayEvent(input), createLambdaContext({ functionName: entry }));
  return { ...result, json: JSON.parse(result.body ?? 'null') };
}
