import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** One meter event session's stream traffic as the local gateway saw it. */
export interface StreamSession {
  id: string;
  /** SHA-256 of the secret key that created it (the dashboard shows a platform the sessions of its keys). */
  keyHash: string;
  created: string;
  expiresAt: string;
  requests: number;
  /** Events in the stream requests that were accepted (202). */
  events: number;
  refusedRequests: number;
  firstAt?: number;
  lastAt?: number;
  /** Accepted events per second of the machine's clock, for the last minute of traffic. */
  perSecond: Map<number, number>;
}

/** Sessions kept (the newest); each keeps a minute of per-second counts. */
const maxSessions = 100;

/** The credential a request presents: a Bearer token, or the user name of Basic auth (how curl -u sends a key). */
function credentialOf(event: APIGatewayProxyEventV2): string | undefined {
  const [scheme, value] = (event.headers.authorization ?? '').split(/\s+/, 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme!)) return value;
  if (/^basic$/i.test(scheme!)) return Buffer.from(value, 'base64').toString('utf8').split(':')[0] || undefined;
  return undefined;
}

/**
 * The throughput of meter event stream sessions, observed by the local gateway: it sees each session being
 * created (with the key that created it) and each stream request (with the session's token and how many
 * events it carried). Local only and in memory: the deployed stack keeps no per-session counts, because
 * counting would cost a write per stream request.
 */
export function streamSessions() {
  const byToken = new Map<string, StreamSession>();

  return {
    /** The gateway's view of one answered request (see `HttpGatewayOptions.inspectResponse`). */
    observe(routeName: string, result: unknown, event: APIGatewayProxyEventV2): void {
      if (routeName !== 'createMeterEventSession' && routeName !== 'createMeterEventStream') return;
      const bearer = credentialOf(event);
      const answer = result as { statusCode?: number; body?: string };
      if (!bearer || typeof answer?.statusCode !== 'number') return;
      if (routeName === 'createMeterEventSession') {
        if (answer.statusCode !== 200 || !answer.body) return;
        const session = JSON.parse(answer.body) as { id: string; authentication_token: string; created: string; expires_at: string };
        byToken.set(sha256(session.authentication_token), {
          id: session.id,
          keyHash: sha256(bearer),
          created: session.created,
          expiresAt: session.expires_at,
          requests: 0,
          events: 0,
          refusedRequests: 0,
          perSecond: new Map(),
        });
        if (byToken.size > maxSessions) byToken.delete(byToken.keys().next().value!);
        return;
      }
      const session = byToken.get(sha256(bearer));
      if (!session) return;
      session.requests++;
      if (answer.statusCode !== 202) {
        session.refusedRequests++;
        return;
      }
      let count = 0;
      try {
        const events = (JSON.parse(event.body ?? '{}') as { events?: unknown }).events;
        count = Array.isArray(events) ? events.length : 0;
      } catch {
        return;
      }
      const now = Date.now();
      const second = Math.floor(now / 1000);
      session.events += count;
      session.firstAt ??= now;
      session.lastAt = now;
      session.perSecond.set(second, (session.perSecond.get(second) ?? 0) + count);
      for (const kept of session.perSecond.keys()) if (kept < second - 60) session.perSecond.delete(kept);
    },

    /** The sessions one of these keys created, newest first, with their throughput. */
    of(keys: string[]): Array<StreamSession & { averagePerSecond: number | null; lastMinutePerSecond: number; peakPerSecond: number }> {
      const hashes = new Set(keys.map(sha256));
      const now = Math.floor(Date.now() / 1000);
      return [...byToken.values()]
        .filter((session) => hashes.has(session.keyHash))
        .reverse()
        .map((session) => {
          const span = session.firstAt !== undefined && session.lastAt !== undefined ? (session.lastAt - session.firstAt) / 1000 : 0;
          const recent = [...session.perSecond.entries()].filter(([second]) => second > now - 60);
          return {
            ...session,
            averagePerSecond: session.events === 0 ? null : span < 1 ? session.events : session.events / span,
            lastMinutePerSecond: recent.reduce((sum, [, count]) => sum + count, 0) / 60,
            peakPerSecond: Math.max(0, ...session.perSecond.values()),
          };
        });
    },
  };
}

export type StreamSessions = ReturnType<typeof streamSessions>;
