import { parseArgs } from 'node:util';
import { listen } from './cli/listen.ts';
import { CliError, resolveTarget, sdkFor } from './cli/target.ts';
import { trigger, triggerableTypes } from './cli/trigger.ts';

const usage = `Usage: npm run cli -- <command> [options]     (or: npx service-cli <command> [options])

Commands:
  trigger <event type> [--override <step>:<param>=<value>] [--add <step>:<param>=<value>] [--remove <step>:<param>]
      Makes the event happen: runs the type's fixture, the API calls that make the real objects, so that the
      service emits the real event and delivers it. --override sets a param of a named step (a.b for nested
      params), --add sets it only if the fixture has none, --remove deletes it; each may be repeated.
  trigger --list
      Prints the event types trigger supports.
  listen [--forward-to <url>] [--events <type,type,…>] [--print-json]
      Prints each event (type, id, created) and each delivery attempt (endpoint or destination, status,
      duration) as it happens, until Ctrl-C. --forward-to creates a temporary v1 webhook endpoint for the URL
      (all events, or --events), prints its signing secret and deletes it on Ctrl-C; --print-json prints one
      JSON object a line instead.

Options:
  --api-key <sk_…>    the platform's secret key (default: SERVICE_SECRET_KEY, else the local stack's default
                      platform, .data/default-platform.json)
  --api-base <url>    the service's base URL (default: the running 'npm start', else http://127.0.0.1:4242)`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'api-key': { type: 'string' },
      'api-base': { type: 'string' },
      override: { type: 'string', multiple: true },
      add: { type: 'string', multiple: true },
      remove: { type: 'string', multiple: true },
      list: { type: 'boolean', default: false },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      'print-json': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const print = (line: string) => process.stdout.write(`${line}\n`);
  if (command === 'trigger') {
    if (values.list || rest.length === 0) {
      print('Supported event types:');
      for (const type of triggerableTypes()) print(`  ${type}`);
      return;
    }
    if (rest.length > 1) throw new CliError(`trigger takes one event type, not ${rest.length}.`);
    const target = resolveTarget({ apiBase: values['api-base'], apiKey: values['api-key'] });
    // As the reference's tool: fixtures make objects and charge test cards, which live mode must not get.
    if (target.apiKey.startsWith('sk_live_')) throw new CliError('trigger runs in test mode only: pass a test key (sk_test_…).');
    await trigger(rest[0]!, { target, client: sdkFor(target), print, override: values.override, add: values.add, remove: values.remove });
    return;
  }
  if (command === 'listen') {
    if (rest.length > 0) throw new CliError(`listen takes no argument ('${rest[0]}').`);
    const target = resolveTarget({ apiBase: values['api-base'], apiKey: values['api-key'] });
    const events = values.events
      ?.split(',')
      .map((type) => type.trim())
      .filter(Boolean);
    const listener = await listen({ target, client: sdkFor(target), print, forwardTo: values['forward-to'], events, printJson: values['print-json'] });
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      listener.stop().then(
        () => process.exit(0),
        (error: Error) => {
          process.stderr.write(`${error.message}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    await listener.done;
    return;
  }
  throw new CliError(`Unknown command '${command}'.\n\n${usage}`);
}

try {
  await main();
} catch (error) {
  const failure = error as Error & { code?: string; type?: string };
  if (error instanceof CliError) process.stderr.write(`${failure.message}\n`);
  else if (failure.type === 'StripeConnectionError')
    process.stderr.write(`Cannot reach the service: ${failure.message} (is 'npm start' running? --api-base names another stack)\n`);
  else if (failure.type === 'StripeAuthenticationError') process.stderr.write(`The API key was refused: ${failure.message}\n`);
  else if (failure.type?.startsWith('Stripe')) process.stderr.write(`The service refused a call: ${failure.message}\n`);
  else process.stderr.write(`${failure.stack ?? failure.message}\n`);
  process.exit(1);
}
