/** The probe's 1 (passed) or 0 (failed) each minute, which infra/monitoring.ts alarms on. */
export const probeSuccessMetricName = 'ProbeSuccess';

/** What one probe of the API found. */
export interface ProbeResult {
  ok: boolean;
  /** From sending the request to reading the whole answer. */
  millis: number;
  /** The answer's status, or null when none came (refused, timed out). */
  status: number | null;
  /** Why it is not ok. */
  problem?: string;
}

/**
 * The key the probe presents: well-formed, so the request goes the whole way (API Gateway, the function, the
 * API key's lookup in the table), and unknown, so the answer is the documented 401. The probe needs no
 * secret, and nothing it does changes state.
 */
export const probeKey = 'sk_test_servicehealthprobe0000000000000000';

/**
 * Probes the API as a client meets it, end to end: `GET /v1/customers?limit=1` with `probeKey` must be
 * answered 401 with the API's error body (`authentication_error`, as the reference answers an unknown
 * key) within `timeoutMillis`. Anything else (no answer, a 5xx, an answer that is not the API's) is a
 * failure. Never throws.
 */
export async function probeApi(baseUrl: string, timeoutMillis = 10_000, now: () => number = () => performance.now()): Promise<ProbeResult> {
  const started = now();
  const result = (ok: boolean, status: number | null, problem?: string): ProbeResult => ({
    ok,
    millis: Math.round(now() - started),
    status,
    ...(problem ? { problem } : {}),
  });
  try {
    const response = await fetch(new URL('/v1/customers?limit=1', baseUrl), {
      headers: { authorization: `Bearer ${probeKey}`, 'user-agent': 'service-api-probe/1' },
      signal: AbortSignal.timeout(timeoutMillis),
    });
    const text = await response.text();
    if (response.status !== 401) return result(false, response.status, `expected 401, got ${response.status}`);
    const type = (() => {
      try {
        return (JSON.parse(text) as { error?: { type?: unknown } }).error?.type;
      } catch {
        return undefined;
      }
    })();
    if (type !== 'authentication_error') return result(false, 401, 'the 401 is not the API’s error body');
    return result(true, 401);
  } catch (error) {
    return result(false, null, (error as Error).message);
  }
}
