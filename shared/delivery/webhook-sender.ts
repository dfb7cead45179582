import { postAttempt, type DeliveryAttempt } from '#shared/delivery/attempt.ts';
import { refusesPrivateTargets, type EgressPolicy } from '#shared/delivery/egress-policy.ts';
import { signatureHeader } from '#shared/delivery/signature.ts';

export interface WebhookSenderOptions {
  /** A delivery succeeds only on a 2xx status received within this time (config `DELIVERY_TIMEOUT_MS`). */
  timeoutMs: number;
  /** @default 'Service/1.0 (+webhooks)' */
  userAgent?: string;
  /** Which targets may be reached (live mode: public addresses only). */
  egress: EgressPolicy;
}

export interface WebhookRequest {
  /** An http(s) URL; a malformed one is a programming error and throws. */
  url: string;
  /** The exact JSON text to POST; the signature covers these bytes. */
  body: string;
  /** The endpoint's `whsec_…` signing secret. */
  secret: string;
  /** The mode of the endpoint: live-mode webhooks reach public addresses only. */
  livemode: boolean;
  /**
   * Clock in milliseconds since the epoch, for the signature timestamp. The machine's, even when the local
   * stack's clock is advanced: receivers check it against their own clocks (the SDK allows 5 minutes).
   * @default Date.now
   */
  now?: () => number;
}

export interface WebhookSender {
  /**
   * POSTs the body once, signed at send time. Resolves to a failed attempt for a non-2xx status (a 3xx
   * included: redirects are not followed), the timeout, or any network failure; rejects only for a
   * programming error such as a malformed URL.
   */
  send(request: WebhookRequest): Promise<DeliveryAttempt>;
}

const defaultUserAgent = 'Service/1.0 (+webhooks)';

/** The outbound adapter for webhook endpoints and thin (webhook) event destinations. */
export function webhookSender(options: WebhookSenderOptions): WebhookSender {
  const userAgent = options.userAgent ?? defaultUserAgent;
  return {
    send: async ({ url, body, secret, livemode, now = Date.now }) => {
      const attempt = await postAttempt({
        url,
        body,
        timeoutMs: options.timeoutMs,
        publicOnly: refusesPrivateTargets(options.egress, livemode),
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': userAgent,
          Accept: '*/*; q=0.5, text/html',
          'Service-Signature': signatureHeader(body, secret, Math.floor(now() / 1000)),
        },
      });
      if (attempt.responseExcerpt) attempt.responseExcerpt = withoutSecret(attempt.responseExcerpt, secret);
      return attempt;
    },
  };
}

const maskedSecret = '[signing secret]';

/**
 * The excerpt is stored and shown: a receiver that echoes the signing secret does not get it kept, whole or
 * cut off at the excerpt's end (a beginning longer than the `whsec_` prefix).
 */
function withoutSecret(excerpt: string, secret: string): string {
  const masked = excerpt.replaceAll(secret, maskedSecret);
  for (let length = Math.min(secret.length - 1, masked.length); length > 'whsec_'.length; length--) {
    if (masked.endsWith(secret.slice(0, length))) return `${masked.slice(0, -length)}${maskedSecret}`;
  }
  return masked;
}
