/**
 * `npm run bench:bundles`: bundles every function of the route table as the stack does (infra/service-function.ts's
 * `esbuildOptions`), then prints each bundle's size, its zipped size, what zod and the AWS SDK take of it,
 * and the time a fresh Node process takes to import it (the module-loading part of a cold start, measured
 * here on this machine's Node, not on Lambda's). Prints figures; asserts nothing.
 *
 *   npm run bench:bundles            every function
 *   npm run bench:bundles -- create  only functions whose name contains "create"
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { fallbackRoute, queueWorkers, routes, scheduledJobs } from '#functions/routes.ts';
import { esbuildOptions, repositoryRoot } from '#infra/service-function.ts';
import { queues } from '#shared/messaging/queues.ts';

const filter = process.argv[2] ?? '';
const entries = [...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs].filter((entry) => entry.name.includes(filter));
const outdir = mkdtempSync(join(tmpdir(), 'service-bundles-'));

/** What a deployed function finds in its environment; the values only need to parse. */
const environment = {
  ...process.env,
  TABLE_NAME: 'service',
  AWS_REGION: 'us-east-1',
  EVENT_BUS_NAME: 'service-bus',
  POWERTOOLS_METRICS_DISABLED: 'true',
  // As on Lambda.
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  ...Object.fromEntries(Object.values(queues).map((queue) => [queue.urlVariable, `https://sqs.us-east-1.amazonaws.com/123456789012/${queue.name}`])),
};

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** Bytes of the output that come from inputs under `prefix` (node_modules/zod/, node_modules/@aws-sdk/…). */
function bytesFrom(metafile: Metafile, prefixes: string[]): number {
  let total = 0;
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (prefixes.some((prefix) => input.includes(prefix))) total += bytesInOutput;
    }
  }
  return total;
}

/** Median of `runs` fresh-process imports of the bundle, in milliseconds. */
function importMillis(file: string, runs = 5): number {
  const script = `const started = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - started));`;
  const times = Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: environment, encoding: 'utf8' })),
  ).sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

const rows: string[][] = [];
let totals = { bytes: 0, zipped: 0, zod: 0, sdk: 0, millis: 0 };
try {
  for (const entry of entries) {
    const out = join(outdir, entry.name);
    const result = await build({
      ...esbuildOptions,
      entryPoints: [join(repositoryRoot, entry.handler)],
      outfile: join(out, 'index.mjs'),
      metafile: true,
      logLevel: 'error',
    });
    const code = readFileSync(join(out, 'index.mjs'));
    const zipped = gzipSync(code, { level: 9 }).length;
    const zod = bytesFrom(result.metafile, ['node_modules/zod/']);
    const sdk = bytesFrom(result.metafile, ['node_modules/@aws-sdk/', 'node_modules/@smithy/']);
    const millis = importMillis(join(out, 'index.mjs'));
    totals = {
      bytes: totals.bytes + code.length,
      zipped: totals.zipped + zipped,
      zod: totals.zod + zod,
      sdk: totals.sdk + sdk,
      millis: totals.millis + millis,
    };
    rows.push([entry.name, kib(code.length), kib(zipped), kib(zod), kib(sdk), `${millis.toFixed(0)} ms`]);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

const header = ['function', 'bundle', 'zipped', 'zod', 'AWS SDK', 'cold import'];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
console.log(line(header));
for (const row of rows) console.log(line(row));
const n = Math.max(rows.length, 1);
console.log(
  `\n${rows.length} functions on Node ${process.versions.node}: mean bundle ${kib(totals.bytes / n)} (${kib(totals.zipped / n)} zipped), ` +
    `zod ${kib(totals.zod / n)}, AWS SDK ${kib(totals.sdk / n)}, mean cold import ${(totals.millis / n).toFixed(0)} ms`,
);
