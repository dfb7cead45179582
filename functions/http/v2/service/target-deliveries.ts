import { listTargetDeliveriesParams } from '#shared/delivery/schemas.ts';
import { deliveryStatusOf, serializeDelivery } from '#shared/delivery/serializer.ts';
import type { deliveryObject } from '#shared/delivery/objects.ts';
import { wireDeliveryAttemptsService } from '#shared/delivery/wiring.ts';
import type { DestinationKind } from '#shared/events/event.ts';
import type { OperationText } from '#shared/http/contract.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2List, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireDeliveryAttemptsService();

/**
 * The handler of a v2 destination's or v1 endpoint's delivery list (this service's addition): pending
 * first, then failed, succeeded, canceled, each newest first.
 */
export const targetDeliveriesHandler = (kind: DestinationKind, text: OperationText) =>
  httpHandler(
    { ...text, params: listTargetDeliveriesParams, response: responds<V2ListObject<typeof deliveryObject>>(), v2List: true },
    async ({ caller, params, pathParameters, paging }) => {
      const page = await service.listForTarget(
        caller.scope,
        { kind, id: pathParameters.id! },
        { limit: params.limit ?? 20, status: params.status && deliveryStatusOf(params.status), after: paging!.cursor },
      );
      return { body: v2List(page.items.map(serializeDelivery), page.next ? paging!.nextPageUrl(page.next) : null) };
    },
  );
