import { httpHandler, responds } from '#shared/http/handler.ts';
import { createTestClockParams } from '#shared/test-clocks/schemas.ts';
import { serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { testClockObject } from '#shared/test-clocks/objects.ts';
import { wireTestClockService } from '#shared/test-clocks/wiring.ts';

const service = wireTestClockService();

/** POST /v1/test_helpers/test_clocks (test mode only) */
export const handler = httpHandler(
  {
    summary: 'Create a test clock',
    params: createTestClockParams,
    response: responds<typeof testClockObject>(),
    idempotency: { answeredBy: 'test_helpers.test_clock.created' },
  },
  async ({ origin, params }) => ({
    body: serializeTestClock(await service.create(origin, params)),
  }),
);
