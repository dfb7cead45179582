import { httpHandler, responds } from '#shared/http/handler.ts';
import { advanceTestClockParams } from '#shared/test-clocks/schemas.ts';
import { serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { testClockObject } from '#shared/test-clocks/objects.ts';
import { wireTestClockService } from '#shared/test-clocks/wiring.ts';

const service = wireTestClockService();

/** POST /v1/test_helpers/test_clocks/{id}/advance: answers the clock `advancing`; it becomes `ready` when its due work is done. */
export const handler = httpHandler(
  {
    summary: 'Advance a test clock',
    description: 'Answers the clock `advancing`; it becomes `ready` (test_helpers.test_clock.ready) once the due work of its objects has run.',
    params: advanceTestClockParams,
    response: responds<typeof testClockObject>(),
  },
  async ({ origin, pathParameters, params }) => ({
    body: serializeTestClock(await service.advance(origin, pathParameters.id!, params.frozen_time)),
  }),
);
