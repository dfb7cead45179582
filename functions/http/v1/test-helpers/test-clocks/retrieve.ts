import { httpHandler, responds } from '#shared/http/handler.ts';
import { testClockParams } from '#shared/test-clocks/schemas.ts';
import { serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { testClockObject } from '#shared/test-clocks/objects.ts';
import { wireTestClockService } from '#shared/test-clocks/wiring.ts';

const service = wireTestClockService();

/** GET /v1/test_helpers/test_clocks/{id} (test mode only) */
export const handler = httpHandler(
  { summary: 'Retrieve a test clock', params: testClockParams, response: responds<typeof testClockObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeTestClock(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
