import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the benchmarks print besides their own figures, to read those figures by: how fast the host is at
 * the moment (these machines vary by 20-40 % within minutes), and how much CPU the stack spends per event.
 */

/** Milliseconds for a fixed single-threaded workload (20,000 SHA-256 digests of 1 KiB). Lower is faster. */
export function hostProbeMillis(): number {
  const block = Buffer.alloc(1024, 7);
  const started = performance.now();
  for (let i = 0; i < 20_000; i++) createHash('sha256').update(block).digest();
  return Math.round(performance.now() - started);
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The parent and the CPU time (utime + stime of all threads, ms) of one process, from `/proc/<pid>/stat`. */
function statOf(pid: number): { parent: number; cpuMillis: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { parent: Number(fields[1]), cpuMillis: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** The CPU time (ms) used so far by a process and every process below it (the stack's DynamoDB Local), Linux only. */
export function treeCpuMillis(rootPid: number): number | undefined {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return undefined;
  }
  const stats = new Map(pids.map((pid) => [pid, statOf(pid)] as const));
  if (!stats.get(rootPid)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) if (stat) children.set(stat.parent, [...(children.get(stat.parent) ?? []), pid]);
  let total = 0;
  for (const queue = [rootPid]; queue.length > 0; ) {
    const pid = queue.pop()!;
    total += stats.get(pid)?.cpuMillis ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/**
 * CPU spent per event by the stack (and this process) over one or more slices of a phase: each `start()`
 * opens a slice and the function it returns closes it with the slice's event count.
 */
export function cpuTally(stackPid: number | undefined) {
  const stackAt = () => (stackPid === undefined ? undefined : treeCpuMillis(stackPid));
  let stackMs: number | undefined = 0;
  let ownMs = 0;
  let events = 0;
  return {
    start() {
      const stackStart = stackAt();
      const ownStart = process.cpuUsage();
      return (sliceEvents: number) => {
        const stackEnd = stackAt();
        const own = process.cpuUsage(ownStart);
        stackMs = stackMs === undefined || stackStart === undefined || stackEnd === undefined ? undefined : stackMs + stackEnd - stackStart;
        ownMs += (own.user + own.system) / 1000;
        events += sliceEvents;
      };
    },
    /** CPU per event over the slices so far, as text for the report. */
    report: (): string =>
      `CPU per event: stack (service + DynamoDB Local) ${stackMs === undefined ? 'n/a' : `${(stackMs / events).toFixed(2)} ms`}, benchmark process ${(ownMs / events).toFixed(2)} ms`,
  };
}

/** CPU spent per event over one phase, from now until the returned function is called, as text for the report. */
export function cpuMeter(stackPid: number | undefined) {
  const tally = cpuTally(stackPid);
  const stop = tally.start();
  return (events: number): string => {
    stop(events);
    return tally.report();
  };
}
