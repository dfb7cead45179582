import type * as z from 'zod';

/** The credential a route takes, as the OpenAPI document's security requirement names it. */
export type Credential = 'secret_key' | 'secret_or_publishable_key' | 'meter_event_session' | 'none';

/**
 * What a handler declares about its requests. `httpHandler`, `htmlHandler` and the document route attach it
 * to the handler they make, and the OpenAPI document is built from the route table, the response table
 * (functions/responses.ts, each API route's success body) and these, so the document describes the very schemas that validate requests.
 */
export type HandlerContract = OperationText &
  (
    | {
        kind: 'api';
        /** Query-string and body parameters together (the handler's strict request schema). */
        params: z.ZodType;
        status: number;
        credential: Credential;
        /** A v2 list: `page` may stand for every other parameter. */
        v2List: boolean;
        /**
         * Whether a GET reads the account's secret (v2 page tokens, v1 search pages): its function then needs
         * `table:read-account-secrets` (test/unit/secrets/route-permissions.test.ts).
         */
        pagesWithAccountSecret: boolean;
      }
    /** A hosted HTML page: no API key, form posts, redirects. */
    | { kind: 'html' }
    /** The OpenAPI document itself. */
    | { kind: 'document' }
  );

/**
 * What the OpenAPI document says of an operation, written beside the handler so a new route cannot be
 * added without it (test/unit/openapi/openapi.test.ts refuses an operation without a summary).
 */
export interface OperationText {
  /** A short imperative title, as the reference's docs name the operation ("Create a customer"). */
  summary: string;
  /** What a caller should know beyond the summary: order, limits, what is refused. */
  description?: string;
}

/** Attaches `contract` to `handler` (a function property, so Lambda and the local gateway call it as before). */
export const withContract = <H extends object>(handler: H, contract: HandlerContract): H & { contract: HandlerContract } =>
  Object.assign(handler, { contract });

/** The contract a handler module's `handler` carries, if any. */
export const contractOf = (handler: unknown): HandlerContract | undefined =>
  typeof handler === 'function' && 'contract' in handler ? (handler.contract as HandlerContract) : undefined;
