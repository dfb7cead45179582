import type Stripe from 'stripe';
import { CliError, type CliTarget } from './target.ts';

export interface ListenOptions {
  target: CliTarget;
  client: Stripe;
  print: (line: string) => void;
  /** Creates a temporary v1 webhook endpoint for this URL, deleted by `stop`. */
  forwardTo?: string;
  /** Only these types are printed (and enabled on the temporary endpoint; all with `*` otherwise). */
  events?: string[];
  printJson?: boolean;
  /** How often the APIs are read. */
  intervalMs?: number;
  /** Where a failed poll is reported (it is tried again at the next one). */
  warn?: (line: string) => void;
}

export interface Listener {
  /** The temporary endpoint of `forwardTo`. */
  endpoint?: { id: string; secret: string; url: string };
  /** Settles once `stop` has run. */
  done: Promise<void>;
  /** Stops polling and deletes the temporary endpoint. */
  stop(): Promise<void>;
}

/** An event as both lists show it: v1 snapshot events (`created` in seconds) and v2 thin ones (RFC 3339). */
interface SeenEvent {
  id: string;
  type: string;
  createdMs: number;
  thin: boolean;
  raw: Record<string, unknown>;
}

interface DeliveryAttempt {
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
}

interface Delivery {
  id: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  canceled_reason: string | null;
  next_attempt_at: string | null;
  reason: string;
  destination: { type: 'event_destination' | 'webhook_endpoint'; id: string };
  attempts: DeliveryAttempt[];
}

/** What is known of an event's deliveries: the attempts printed so far, and when to look again. */
interface Watch {
  event: SeenEvent;
  firstSeen: number;
  printed: Map<string, number>;
  nextPoll: number;
}

/**
 * Events are read again this far back from the newest seen: one written a moment after a later one (their
 * transactions finish out of order) is still found, and the ids seen keep it from being printed twice.
 */
const lookBackMs = 10_000;
/** An event with no delivery this long after it is seen has none (its fan-out runs milliseconds after it). */
const fanOutWindowMs = 10_000;
/** A pending retry not yet due by this machine's clock is looked at this often (the stack's clock may have moved). */
const pendingPollMs = 5_000;

const timestamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** `localhost:3000/hook` as the reference's tool takes it: http when no scheme is given. */
export function forwardUrl(text: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CliError(`--forward-to must be a URL such as http://localhost:3000/webhooks, not '${text}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--forward-to must be an http or https URL, not '${text}'.`);
  return url.toString();
}

/** The stack's clock (the local stack's may have been moved forward), else this machine's. */
async function stackNow(baseUrl: string): Promise<number> {
  try {
    const response = await fetch(`${baseUrl}/_local/clock`);
    if (response.ok) {
      const clock = (await response.json()) as { now?: number };
      if (typeof clock.now === 'number') return clock.now < 1e11 ? clock.now * 1000 : clock.now;
    } else {
      await response.arrayBuffer();
    }
  } catch {
    // Not reachable: the first list call will say so.
  }
  return Date.now();
}

/**
 * `listen`: polls the v1 and v2 event lists (a creation-time cursor that looks back `lookBackMs`, with the
 * ids seen, so nothing is printed twice or missed) and each new event's deliveries (until they are finished),
 * printing events and delivery attempts in the order they happen.
 */
export async function listen(options: ListenOptions): Promise<Listener> {
  const { client, print, printJson = false, intervalMs = 1000 } = options;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const wanted = options.events && options.events.length > 0 ? new Set(options.events) : undefined;
  let endpoint: Listener['endpoint'];
  if (options.forwardTo !== undefined) {
    const url = forwardUrl(options.forwardTo);
    const created = await client.webhookEndpoints.create({
      url,
      enabled_events: (options.events && options.events.length > 0 ? options.events : ['*']) as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
      description: 'Temporary endpoint of the service CLI listen (deleted when it stops)',
    });
    endpoint = { id: created.id, secret: created.secret!, url };
  }
  const startMs = await stackNow(options.target.baseUrl);
  const seen = new Map<string, number>();
  let newestMs = startMs;
  const watches = new Map<string, Watch>();
  const destinationNames = new Map<string, Promise<string>>();

  const destinationName = (destination: Delivery['destination']): Promise<string> => {
    const key = `${destination.type}:${destination.id}`;
    let name = destinationNames.get(key);
    if (!name) {
      name = (
        destination.type === 'webhook_endpoint'
          ? client.webhookEndpoints.retrieve(destination.id).then((found) => found.url)
          : client.v2.core.eventDestinations
              .retrieve(destination.id, { include: ['webhook_endpoint.url'] })
              .then((found) => found.webhook_endpoint?.url ?? found.type)
      ).catch(() => destination.id);
      destinationNames.set(key, name);
    }
    return name;
  };

  const readEvents = async (): Promise<SeenEvent[]> => {
    const fromMs = Math.max(startMs, newestMs - lookBackMs);
    const snapshots: SeenEvent[] = [];
    const thins: SeenEvent[] = [];
    for await (const event of client.events.list({ created: { gte: Math.floor(fromMs / 1000) }, limit: 100 })) {
      snapshots.push({ id: event.id, type: event.type, createdMs: event.created * 1000, thin: false, raw: event as unknown as Record<string, unknown> });
    }
    let path: string | null = `/v2/core/events?limit=100&${new URLSearchParams({ 'created[gte]': new Date(fromMs - (fromMs % 1000)).toISOString() })}`;
    while (path) {
      const page = (await client.rawRequest('GET', path)) as { data: Record<string, unknown>[]; next_page_url: string | null };
      for (const event of page.data) {
        thins.push({ id: String(event.id), type: String(event.type), createdMs: Date.parse(String(event.created)), thin: true, raw: event });
      }
      path = page.next_page_url;
    }
    // Each list is newest first. v1 times are whole seconds: within a second, the v1 events in their list's
    // order, then the thin ones by their milliseconds (a stable sort keeps the lists' order on ties).
    const second = (event: SeenEvent) => Math.floor(event.createdMs / 1000);
    return [...snapshots.reverse(), ...thins.reverse()]
      .filter((event) => event.createdMs >= startMs - (startMs % 1000) && !seen.has(event.id))
      .sort((a, b) => second(a) - second(b) || Number(a.thin) - Number(b.thin) || a.createdMs - b.createdMs);
  };

  // What the lists hold before listen is ready is not its to print (v1 times are whole seconds, so the lists'
  // start second also holds events made just before): marked seen, so only what happens after Ready is printed.
  for (const event of await readEvents()) seen.set(event.id, event.createdMs);
  if (printJson) {
    print(JSON.stringify({ object: 'listen_ready', ...(endpoint ? { webhook_endpoint: endpoint.id, url: endpoint.url, secret: endpoint.secret } : {}) }));
  } else if (endpoint) {
    print(`Ready! Your webhook signing secret is ${endpoint.secret} (^C to quit)`);
    print(`Forwarding ${wanted ? [...wanted].join(', ') : 'all events'} to ${endpoint.url} through the temporary webhook endpoint ${endpoint.id}.`);
  } else {
    print(`Ready! Listening for events on ${options.target.baseUrl} (^C to quit)`);
  }

  const printEvent = (event: SeenEvent) => {
    if (printJson) print(JSON.stringify(event.raw));
    else print(`${timestamp(event.createdMs)}   --> ${event.type} [${event.id}]${event.thin ? ' (thin)' : ''}`);
  };

  /** A line to print, at the time it happened: a tick's attempts are printed in time order, whatever event they are of. */
  interface Happening {
    at: number;
    line: () => Promise<string>;
  }

  const attemptLine = (watch: Watch, delivery: Delivery, attempt: DeliveryAttempt): Happening => ({
    at: Date.parse(attempt.attempted_at),
    line: async () => {
      const target = await destinationName(delivery.destination);
      if (printJson) {
        return JSON.stringify({
          object: 'event_delivery_attempt',
          delivery: delivery.id,
          event: { id: watch.event.id, type: watch.event.type },
          destination: { ...delivery.destination, target },
          reason: delivery.reason,
          ...attempt,
        });
      }
      const status = attempt.http_status ?? 'ERR';
      const detail = attempt.outcome === 'failed' && attempt.error ? ` ${attempt.error}` : '';
      const duration = attempt.duration_ms === null ? '' : `, ${attempt.duration_ms} ms`;
      return `${timestamp(Date.parse(attempt.attempted_at))}  <--  [${status}] POST ${target} [${watch.event.id}] (${delivery.destination.id}${duration})${detail}`;
    },
  });

  const canceledLine = (watch: Watch, delivery: Delivery, now: number): Happening => ({
    at: now,
    line: async () =>
      printJson
        ? JSON.stringify({
            object: 'event_delivery_canceled',
            delivery: delivery.id,
            event: { id: watch.event.id, type: watch.event.type },
            destination: delivery.destination,
            canceled_reason: delivery.canceled_reason,
          })
        : `${timestamp(now)}  <--  [canceled: ${delivery.canceled_reason}] ${await destinationName(delivery.destination)} [${watch.event.id}] (${delivery.destination.id})`,
  });

  /** Reads an event's deliveries: what happened since the last read, and when to read them again. */
  const pollDeliveries = async (watch: Watch, now: number): Promise<Happening[]> => {
    const path = `/v2/service/events/${encodeURIComponent(watch.event.id)}/deliveries`;
    const list = (await client.rawRequest('GET', path)) as { data: Delivery[] };
    const deliveries = list.data;
    const happened: Happening[] = [];
    for (const delivery of deliveries) {
      const printed = watch.printed.get(delivery.id) ?? 0;
      for (const attempt of delivery.attempts.slice(printed)) happened.push(attemptLine(watch, delivery, attempt));
      watch.printed.set(delivery.id, delivery.attempts.length);
      if (delivery.status === 'canceled' && !watch.printed.has(`${delivery.id}:canceled`)) {
        watch.printed.set(`${delivery.id}:canceled`, 1);
        happened.push(canceledLine(watch, delivery, now));
      }
    }
    const pending = deliveries.filter((delivery) => delivery.status === 'pending');
    if (deliveries.length > 0 && pending.length === 0) {
      watches.delete(watch.event.id);
    } else if (deliveries.length === 0) {
      if (now - watch.firstSeen > fanOutWindowMs) watches.delete(watch.event.id);
    } else {
      const dueSoon = pending.some(
        (delivery) => delivery.attempts.length === 0 || delivery.next_attempt_at === null || Date.parse(delivery.next_attempt_at) <= now + intervalMs,
      );
      watch.nextPoll = dueSoon ? now : now + pendingPollMs;
    }
    return happened;
  };

  const tick = async () => {
    const events = await readEvents();
    const now = Date.now();
    for (const event of events) {
      seen.set(event.id, event.createdMs);
      newestMs = Math.max(newestMs, event.createdMs);
      if (wanted && !wanted.has(event.type)) continue;
      printEvent(event);
      watches.set(event.id, { event, firstSeen: now, printed: new Map(), nextPoll: now });
    }
    for (const [id, created] of seen) if (created < newestMs - 2 * lookBackMs) seen.delete(id);
    const due = [...watches.values()].filter((watch) => watch.nextPoll <= now).sort((a, b) => a.event.createdMs - b.event.createdMs);
    const happened: Happening[] = [];
    for (let index = 0; index < due.length; index += 4) {
      // A read that fails leaves that event's counts as they were: its attempts are printed at the next read.
      const reads = due.slice(index, index + 4).map((watch) =>
        pollDeliveries(watch, now).catch((error: Error) => {
          warn(`listen: deliveries of ${watch.event.id}: ${error.message} (trying again)`);
          return [];
        }),
      );
      for (const each of await Promise.all(reads)) happened.push(...each);
    }
    happened.sort((a, b) => a.at - b.at);
    for (const line of await Promise.all(happened.map((each) => each.line()))) print(line);
  };

  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await tick();
      } catch (error) {
        warn(`listen: ${(error as Error).message} (trying again)`);
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  let resolveDone: () => void;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopped = true;
      wake?.();
      await loop;
      if (endpoint) {
        await client.webhookEndpoints.del(endpoint.id);
        if (printJson) print(JSON.stringify({ object: 'listen_stopped', deleted_webhook_endpoint: endpoint.id }));
        else print(`Deleted the temporary webhook endpoint ${endpoint.id}.`);
      }
      resolveDone();
    })();
    return stopping;
  };
  return { ...(endpoint ? { endpoint } : {}), done, stop };
}
