import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listCardholdersParams } from '#shared/issuing/schemas.ts';
import { serializeCardholder } from '#shared/issuing/serializers.ts';
import type { cardholderObject } from '#shared/issuing/objects.ts';
import { wireCardholderService } from '#shared/issuing/wiring.ts';

const service = wireCardholderService();

/** GET /v1/issuing/cardholders: newest first; filters created, email, phone_number, status, type. */
export const handler = httpHandler(
  { summary: 'List all cardholders', description: 'Newest first.', params: listCardholdersParams, response: responds<V1ListObject<typeof cardholderObject>>() },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), params);
    return { body: v1List('/v1/issuing/cardholders', { ...page, items: page.items.map(serializeCardholder) }, params) };
  },
);
