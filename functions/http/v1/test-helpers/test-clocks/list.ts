import { httpHandler, responds } from '#shared/http/handler.ts';
import { listTestClocksParams } from '#shared/test-clocks/schemas.ts';
import { serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { testClockObject } from '#shared/test-clocks/objects.ts';
import { wireTestClockService } from '#shared/test-clocks/wiring.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireTestClockService();

/** GET /v1/test_helpers/test_clocks: newest first (test mode only). */
export const handler = httpHandler(
  { summary: 'List all test clocks', description: 'Newest first.', params: listTestClocksParams, response: responds<V1ListObject<typeof testClockObject>>() },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params));
    return { body: v1List('/v1/test_helpers/test_clocks', { ...page, items: page.items.map(serializeTestClock) }, params) };
  },
);
