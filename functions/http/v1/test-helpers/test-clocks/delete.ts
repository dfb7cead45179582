import { httpHandler, responds } from '#shared/http/handler.ts';
import { deleteTestClockParams } from '#shared/test-clocks/schemas.ts';
import { serializeDeletedTestClock } from '#shared/test-clocks/serializer.ts';
import type { deletedTestClockObject } from '#shared/test-clocks/objects.ts';
import { wireTestClockDeletion } from '#shared/test-clocks/delete-wiring.ts';

const service = wireTestClockDeletion();

/** DELETE /v1/test_helpers/test_clocks/{id}: deletes its customers too (their subscriptions are canceled); refused while it advances. */
export const handler = httpHandler(
  {
    summary: 'Delete a test clock',
    description: 'Deletes its customers too (their subscriptions are canceled); refused while it advances.',
    params: deleteTestClockParams,
    response: responds<typeof deletedTestClockObject>(),
  },
  async ({ origin, pathParameters }) => {
    const deleted = await service.delete(origin, pathParameters.id!);
    return { body: serializeDeletedTestClock(deleted.id) };
  },
);
