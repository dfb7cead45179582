import { timingSafeEqual } from 'node:crypto';

/** The header CloudFront adds to every origin request (a custom origin header, which overwrites a viewer's). */
export const originVerifyHeader = 'x-origin-verify';

const expected = Buffer.from(process.env.ORIGIN_VERIFY_SECRET ?? '', 'utf8');

/**
 * API Gateway's Lambda authorizer (simple responses) when the API sits behind CloudFront: a request is let
 * through only with the secret CloudFront sends, so nobody goes around the WAF to the execute-api URL. API
 * Gateway answers a request without the header 401 before calling this, and caches each answer by the
 * header's value, so the function runs about once per cache period, not per request.
 */
export const handler = async (event: { headers?: Record<string, string | undefined> }): Promise<{ isAuthorized: boolean }> => {
  const given = Buffer.from(event.headers?.[originVerifyHeader] ?? '', 'utf8');
  return { isAuthorized: expected.length > 0 && given.length === expected.length && timingSafeEqual(given, expected) };
};
