import type Stripe from 'stripe';
import { snapshotEventTypes, thinEventTypes } from '#shared/events/catalogue.ts';
import { referenceSnapshotEventTypes, referenceThinEventTypes } from '#shared/events/reference-event-types.ts';
import { type Answers, type Fixture, type FixtureStep, fixturesByType, type Params, type ParamValue } from './fixtures.ts';
import { CliError, type CliTarget } from './target.ts';

/** The event types `trigger` can make happen, sorted. */
export const triggerableTypes = (): string[] => [...fixturesByType.keys()].sort();

/** Edit distance, for "did you mean" (type names are short: the quadratic table is nothing). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** Up to five supported types close to `type`: a few edits away, or sharing its resource (`invoice.` for `invoice.foo`). */
export function closeMatches(type: string): string[] {
  const lowered = type.toLowerCase();
  const resource = lowered.includes('.') ? lowered.slice(0, lowered.lastIndexOf('.') + 1) : `${lowered}.`;
  return triggerableTypes()
    .map((candidate) => ({ candidate, score: distance(lowered, candidate) }))
    .filter(({ candidate, score }) => score <= Math.max(2, Math.floor(lowered.length / 4)) || candidate.startsWith(resource))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, 5)
    .map(({ candidate }) => candidate);
}

const emitted: ReadonlySet<string> = new Set<string>([...snapshotEventTypes, ...thinEventTypes]);
const referenceTypes: ReadonlySet<string> = new Set<string>([...referenceSnapshotEventTypes, ...referenceThinEventTypes]);

/** The fixture of `type`, or a CliError that says why there is none and names the close matches. */
export function fixtureFor(type: string): Fixture {
  const fixture = fixturesByType.get(type);
  if (fixture) return fixture;
  const why = emitted.has(type)
    ? `The service emits '${type}', but trigger has no fixture for it.`
    : referenceTypes.has(type)
      ? `'${type}' is an event type of the reference API that this service does not emit.`
      : `Unknown event type '${type}'.`;
  const matches = closeMatches(type);
  const hint = matches.length > 0 ? `Did you mean:\n${matches.map((match) => `  ${match}`).join('\n')}` : "See 'trigger --list' for the supported types.";
  throw new CliError(`${why}\n${hint}`);
}

/** A `name:path.to.field=value` edit of `--override` / `--add` (or `name:path` of `--remove`). */
interface Edit {
  step: string;
  path: string[];
  value?: string;
}

function parseEdit(flag: string, text: string, withValue: boolean): Edit {
  const equals = text.indexOf('=');
  if (withValue && equals < 0) throw new CliError(`--${flag} '${text}' needs a value: <step>:<param path>=<value>.`);
  const target = withValue ? text.slice(0, equals) : text;
  const colon = target.indexOf(':');
  if (colon <= 0 || colon === target.length - 1)
    throw new CliError(`--${flag} '${text}' must name a step and a param: <step>:<param path>${withValue ? '=<value>' : ''}.`);
  const path = target.slice(colon + 1).split('.');
  if (path.some((key) => key === '' || key === '__proto__' || key === 'constructor' || key === 'prototype'))
    throw new CliError(`--${flag} '${text}': bad param path.`);
  return { step: target.slice(0, colon), path, ...(withValue ? { value: text.slice(equals + 1) } : {}) };
}

export interface TriggerEdits {
  override?: string[];
  add?: string[];
  remove?: string[];
}

const isRecord = (value: unknown): value is Record<string, ParamValue> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fixture's steps with the edits applied, as the reference's tool does: `--override` sets a param
 * (making the objects on its path), `--add` sets it only where it is absent, `--remove` deletes it (any
 * depth here; the reference removes top-level params only). An edit naming no step of the fixture is an error.
 */
export function applyEdits(fixture: Fixture, edits: TriggerEdits): FixtureStep[] {
  const steps = fixture.steps.map((step) => ({ ...step, params: structuredCloneParams(step.params ?? {}) }));
  const byName = new Map(steps.map((step) => [step.name, step]));
  const apply = (
    flag: string,
    texts: string[] | undefined,
    withValue: boolean,
    change: (parent: Record<string, ParamValue>, key: string, edit: Edit) => void,
  ) => {
    for (const text of texts ?? []) {
      const edit = parseEdit(flag, text, withValue);
      const step = byName.get(edit.step);
      if (!step)
        throw new CliError(`--${flag} '${text}': '${fixture.type}' has no step '${edit.step}' (its steps: ${steps.map((each) => each.name).join(', ')}).`);
      let parent = step.params;
      for (const key of edit.path.slice(0, -1)) {
        if (!isRecord(parent[key])) {
          if (!withValue) return;
          parent[key] = {};
        }
        parent = parent[key] as Record<string, ParamValue>;
      }
      change(parent, edit.path.at(-1)!, edit);
    }
  };
  apply('override', edits.override, true, (parent, key, edit) => {
    parent[key] = edit.value!;
  });
  apply('add', edits.add, true, (parent, key, edit) => {
    if (!(key in parent)) parent[key] = edit.value!;
  });
  apply('remove', edits.remove, false, (parent, key) => {
    delete parent[key];
  });
  return steps;
}

/** A deep copy that keeps computed values (functions), which structuredClone refuses. */
function structuredCloneParams(params: Params): Params {
  const copy = (value: ParamValue): ParamValue => {
    if (Array.isArray(value)) return value.map(copy);
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, copy(each)]));
    return value;
  };
  return copy(params) as Params;
}

const reference = /\$\{([a-z0-9_]+):([A-Za-z0-9_.]+)\}/g;

/** `${step:path.to.field}` of an earlier answer (array indexes as numbers: `data.0.id`). */
function lookUp(answers: Answers, step: string, path: string, where: string): string {
  const answer = answers[step];
  if (!answer) throw new CliError(`${where}: no earlier step '${step}'.`);
  let value: unknown = answer;
  for (const key of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null || typeof value === 'object') throw new CliError(`${where}: '${step}' answered no ${path}.`);
  return String(value);
}

const resolveText = (text: string, answers: Answers, where: string) =>
  text.replace(reference, (_, step: string, path: string) => lookUp(answers, step, path, where));

function resolveParams(value: ParamValue, answers: Answers, where: string): unknown {
  if (typeof value === 'function') return value(answers);
  if (typeof value === 'string') return resolveText(value, answers, where);
  if (Array.isArray(value)) return value.map((each) => resolveParams(each, answers, where));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, resolveParams(each, answers, where)]));
  return value;
}

export interface TriggerOptions extends TriggerEdits {
  target: CliTarget;
  client: Stripe;
  /** Where progress goes (stdout in the command). */
  print: (line: string) => void;
}

export interface TriggerResult {
  type: string;
  /** Each step's answer, by step name. */
  answers: Answers;
}

/** Runs the fixture of `type` through the API: the service emits the event as it would for any client. */
export async function trigger(type: string, options: TriggerOptions): Promise<TriggerResult> {
  const fixture = fixtureFor(type);
  const steps = applyEdits(fixture, options);
  options.print(`Setting up fixture for: ${type}`);
  options.print(`Running fixture for: ${type}`);
  const answers: Answers = {};
  for (const step of steps) {
    const where = `step '${step.name}'`;
    const path = resolveText(step.path, answers, where);
    if (step.method === 'visit') {
      const response = await fetch(path, { redirect: 'manual' });
      await response.arrayBuffer();
      if (response.status >= 400) throw new CliError(`Trigger failed: ${where} (GET ${path}) answered HTTP ${response.status}.`);
      answers[step.name] = { status: response.status };
      continue;
    }
    const params = resolveParams(step.params ?? {}, answers, where) as Record<string, unknown>;
    const requestOptions = step.bearer ? { apiKey: resolveText(step.bearer, answers, where) } : undefined;
    try {
      const answer = (await options.client.rawRequest(step.method.toUpperCase(), path, step.method === 'post' ? params : undefined, requestOptions)) as Record<
        string,
        unknown
      >;
      answers[step.name] = answer;
    } catch (error) {
      const failure = error as { type?: string; rawType?: string; message: string; statusCode?: number };
      if (step.expectedErrorType && failure.rawType === step.expectedErrorType) {
        answers[step.name] = { error: failure.rawType };
        continue;
      }
      throw new CliError(`Trigger failed: ${where} (${step.method.toUpperCase()} ${path}) answered ${failure.statusCode ?? 'an error'}: ${failure.message}`);
    }
  }
  if (fixture.note) options.print(fixture.note);
  options.print(`Trigger succeeded! See the event on the dashboard (${options.target.baseUrl}/dashboard) or with 'npm run cli -- listen'.`);
  return { type, answers };
}
