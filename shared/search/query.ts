import { InvalidRequestError } from '#shared/core/errors.ts';
import { parse, SyntaxError as GrammarError } from './query-grammar.js';

/**
 * How a field is searched, as the reference's query fields are typed: `string` takes exact (`:`) and
 * substring (`~`) matches, `token` exact matches only, `numeric` exact matches and `>`, `<`, `>=`, `<=`,
 * `boolean` `true` or `false`. Every field takes `null` with `:` (empty or absent).
 */
export type FieldType = 'string' | 'token' | 'numeric' | 'boolean';

type FieldValue = string | number | boolean | null;

export interface SearchField<T> {
  type: FieldType;
  value: (object: T) => FieldValue;
}

/** A searchable resource: its query fields (as the reference documents them) and its metadata. */
export interface SearchableResource<T> {
  /** The plural name messages use, e.g. `customers`. */
  name: string;
  /** Named query fields; `created` (numeric, Unix seconds) narrows the stored range read. */
  fields: Record<string, SearchField<T>>;
  metadata: (object: T) => Record<string, string>;
}

/** A query checked against its resource: a predicate, and the creation window every match lies in. */
export interface SearchQuery<T> {
  matches(object: T): boolean;
  /** Milliseconds, inclusive; an absent side is open. Only AND queries (or one clause) narrow it. */
  created: { from?: number; to?: number };
}

/** The reference's limits: up to ten clauses. Longer queries and values than these are refused, never truncated. */
export const searchLimits = { clauses: 10, queryLength: 4096, valueLength: 1000, substringMin: 3 } as const;

/** The syntax tree the grammar (`query-grammar.peggy`) builds; offsets are 0-based into the query. */
interface ClauseNode {
  negated: boolean;
  field: { name: string; key: string | null; start: number };
  operator: ':' | '~' | '>' | '<' | '>=' | '<=';
  value: { kind: 'string' | 'number' | 'null' | 'boolean'; text: string; start: number };
  start: number;
}
interface Joined {
  connector: { word: 'AND' | 'OR'; start: number | null } | null;
  clause: ClauseNode;
}

/** The text at `offset` up to the next space (at most 30 characters), to name the offending part. */
function tokenAt(query: string, offset: number): string {
  if (offset >= query.length) return 'end of query';
  const token = /^\S*/.exec(query.slice(offset))![0] || query[offset]!;
  return `'${token.length > 30 ? `${token.slice(0, 30)}…` : token}'`;
}

/** A 400 on `query` that points at the offending part: its position (1-based) and its text. */
const invalidAt = (query: string, offset: number, reason: string) =>
  new InvalidRequestError(`Invalid search query at character ${offset + 1} (${tokenAt(query, offset)}): ${reason}`, 'parameter_invalid', 'query');

const list = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join(''));

function syntaxTree(query: string): Joined[] {
  if (query.length > searchLimits.queryLength) {
    throw new InvalidRequestError(
      `The search query is ${query.length} characters long; at most ${searchLimits.queryLength} are accepted.`,
      'parameter_invalid',
      'query',
    );
  }
  try {
    return parse(query) as Joined[];
  } catch (error) {
    if (!(error instanceof GrammarError)) throw error;
    const expected = [...new Set(error.expected.map((expectation) => (expectation.type === 'other' ? expectation.description : null)))].filter(
      (description): description is string => description !== null,
    );
    const offset = error.location.start.offset;
    const unclosed =
      offset < query.length &&
      `'"`.includes(query[offset]!) &&
      !query
        .slice(offset + 1)
        .replace(/\\./g, '')
        .includes(query[offset]!);
    const reason = unclosed ? 'this quote is never closed.' : expected.length > 0 ? `expected ${list(expected)}.` : 'this is not part of a query.';
    throw invalidAt(query, offset, reason);
  }
}

const lower = (value: FieldValue) => (typeof value === 'string' ? value.toLowerCase() : value);

/** Checks one clause against its field and turns it into a predicate (negation applied by the caller). */
function clausePredicate<T>(query: string, clause: ClauseNode, resource: SearchableResource<T>): (object: T) => boolean {
  const { field, operator, value } = clause;
  const fail = (offset: number, reason: string) => invalidAt(query, offset, reason);
  if (value.kind === 'string' && value.text.length > searchLimits.valueLength) {
    throw fail(value.start, `a value is at most ${searchLimits.valueLength} characters long.`);
  }
  if (value.kind === 'null') {
    if (operator !== ':') throw fail(value.start, `null takes the : operator (${field.name}:null, or -${field.name}:null for presence).`);
  }
  if (field.name.toLowerCase() === 'metadata' && field.key !== null) {
    if (operator !== ':') throw fail(field.start, 'metadata is matched exactly, with the : operator.');
    if (value.kind !== 'string' && value.kind !== 'null') throw fail(value.start, 'metadata values are quoted strings, or null.');
    const key = field.key;
    const wanted = value.kind === 'null' ? null : value.text.toLowerCase();
    return (object) => {
      const metadata = resource.metadata(object);
      const found = Object.hasOwn(metadata, key) ? metadata[key]! : null;
      return wanted === null ? found === null || found === '' : found !== null && found.toLowerCase() === wanted;
    };
  }
  const spec = Object.hasOwn(resource.fields, field.name) ? resource.fields[field.name]! : undefined;
  if (!spec) {
    const names = [...Object.keys(resource.fields), "metadata['key']"].sort();
    throw fail(field.start, `${field.name} is not a query field of ${resource.name}; use ${list(names)}.`);
  }
  const read = spec.value;
  if (value.kind === 'null') return (object) => read(object) === null || read(object) === '';
  const takes = (operators: string[]) => {
    if (!operators.includes(operator)) {
      throw fail(field.start + field.name.length, `${field.name} is a ${spec.type} field; it takes ${list(operators)}, not ${operator}.`);
    }
  };
  switch (spec.type) {
    case 'numeric': {
      takes([':', '>', '<', '>=', '<=']);
      // Quotes are optional around numbers, as in the reference; inside them only a plain decimal counts.
      if (!/^-?\d+(\.\d+)?$/.test(value.text)) throw fail(value.start, `${field.name} takes a number.`);
      const number = Number(value.text);
      if (field.name === 'created' && (!Number.isInteger(number) || number < 0 || number > 253_402_300_799)) {
        throw fail(value.start, 'created takes a Unix timestamp in whole seconds.');
      }
      const compare = {
        ':': (a: number) => a === number,
        '>': (a: number) => a > number,
        '<': (a: number) => a < number,
        '>=': (a: number) => a >= number,
        '<=': (a: number) => a <= number,
      }[operator as ':' | '>' | '<' | '>=' | '<='];
      return (object) => {
        const found = read(object);
        return typeof found === 'number' && compare(found);
      };
    }
    case 'boolean': {
      takes([':']);
      const text = value.text.toLowerCase();
      if (text !== 'true' && text !== 'false') throw fail(value.start, `${field.name} takes true or false.`);
      return (object) => read(object) === (text === 'true');
    }
    default: {
      takes(spec.type === 'string' ? [':', '~'] : [':']);
      if (value.kind !== 'string') throw fail(value.start, `${field.name} takes a quoted value, such as ${field.name}:'value'.`);
      const wanted = value.text.toLowerCase();
      if (operator === '~') {
        if ([...value.text].length < searchLimits.substringMin)
          throw fail(value.start, `a substring match (~) needs at least ${searchLimits.substringMin} characters.`);
        return (object) => {
          const found = lower(read(object));
          return typeof found === 'string' && found.includes(wanted);
        };
      }
      return (object) => lower(read(object)) === wanted;
    }
  }
}

/** The creation window (ms, inclusive) a non-negated `created` clause allows. */
function createdWindow(clause: ClauseNode): { from?: number; to?: number } {
  if (clause.negated || clause.field.name !== 'created' || clause.value.kind === 'null') return {};
  const ms = Number(clause.value.text) * 1000;
  switch (clause.operator) {
    case ':':
      return { from: ms, to: ms + 999 };
    case '>':
      return { from: ms + 1000 };
    case '>=':
      return { from: ms };
    case '<':
      return { to: ms - 1 };
    case '<=':
      return { to: ms + 999 };
    default:
      return {};
  }
}

/**
 * Parses `query` (the reference's search query language) for `resource`, or answers a 400 on `query` that
 * names the position and the text of the offending part: a syntax error, an unknown field, an operator or
 * a value the field does not take, a substring under 3 characters, AND mixed with OR (as the reference,
 * which has no parentheses), more than 10 clauses.
 */
export function parseSearchQuery<T>(query: string, resource: SearchableResource<T>): SearchQuery<T> {
  const joined = syntaxTree(query);
  if (joined.length > searchLimits.clauses) {
    throw invalidAt(query, joined[searchLimits.clauses]!.clause.start, `a query has at most ${searchLimits.clauses} clauses.`);
  }
  const words = joined.slice(1).map(({ connector, clause }) => ({ word: connector!.word, start: connector!.start ?? clause.start }));
  const mixed = words.find(({ word }) => word !== words[0]!.word);
  if (mixed) throw invalidAt(query, mixed.start, 'AND and OR cannot be combined in one query (a space between clauses means AND).');
  const predicates = joined.map(({ clause }) => {
    const predicate = clausePredicate(query, clause, resource);
    return clause.negated ? (object: T) => !predicate(object) : predicate;
  });
  const any = words[0]?.word === 'OR';
  const created: { from?: number; to?: number } = {};
  if (!any) {
    for (const { clause } of joined) {
      const { from, to } = createdWindow(clause);
      if (from !== undefined) created.from = Math.max(created.from ?? from, from);
      if (to !== undefined) created.to = Math.min(created.to ?? to, to);
    }
  }
  return {
    matches: any ? (object) => predicates.some((predicate) => predicate(object)) : (object) => predicates.every((predicate) => predicate(object)),
    created,
  };
}
