import type { Scope } from '#shared/platform/types.ts';
import type { IdTarget, IncludedField, Shape } from './objects.ts';
import type { ExpansionPlan, PlanNode } from './plan.ts';

type Json = Record<string, unknown>;

/** One id to expand, with the object that holds it (a source's key needs its customer). */
export interface Ref {
  id: string;
  holder: Json;
}

/**
 * Reads and renders the objects of one type for `refs`, in the caller's scope, with one batched read (the
 * repositories' gets of one turn go out as one BatchGetItem). The answer is aligned with `refs`, one
 * rendering per ref (never shared: deeper levels expand each in place); `undefined` leaves the id.
 */
export type ObjectLoader = (scope: Scope, refs: readonly Ref[]) => Promise<ReadonlyArray<Json | undefined>>;

/** What an included field shows on each holder, aligned with `holders`. */
export type IncludedLoader = (scope: Scope, holders: readonly Json[]) => Promise<readonly unknown[]>;

export interface ExpansionLoaders {
  objects: Record<IdTarget, ObjectLoader>;
  included: Record<IncludedField, IncludedLoader>;
}

/** Expands a rendered response in place, as its plan says, and answers it. */
export type Expander = (scope: Scope, body: unknown, plan: ExpansionPlan) => Promise<unknown>;

const hidden = Symbol('shownWhenExpanded');

/**
 * Attaches the values of fields the reference shows only when expanded (`price.currency_options`) to a
 * rendered object, out of its JSON: the expander shows them when asked; events and answers that do not
 * ask never carry them.
 */
export function withFieldsWhenExpanded<T extends object>(rendered: T, fields: Record<string, unknown>): T {
  // Not enumerable: copies, comparisons and JSON never see it; the serializer's own object carries it to the expander.
  Object.defineProperty(rendered, hidden, { value: fields });
  return rendered;
}

/** The value `withFieldsWhenExpanded` attached to `rendered` for `field`, if any. */
export const fieldWhenExpanded = (rendered: object, field: string): unknown => (rendered as { [hidden]?: Record<string, unknown> })[hidden]?.[field];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The objects a value of this shape holds: itself, a list's `data`, an array's members. A deleted object
 * (`{id, object, deleted: true}`) holds nothing to expand: the reference shows it as it is.
 */
function membersOf(value: unknown, shape: Shape): Json[] {
  const members = shape === 'list' ? (isObject(value) ? value.data : undefined) : shape === 'array' ? value : [value];
  return Array.isArray(members) ? members.filter((member): member is Json => isObject(member) && member.deleted !== true) : [];
}

interface Pending {
  holder: Json;
  field: string;
  next: PlanNode | undefined;
  shape: Shape;
}

/**
 * The one expander: walks the plan over the rendered response level by level. At each level it collects
 * every id to expand (and every included field) of every object the level reached, in lists too, then
 * calls each type's loader once, all at once, so a level costs one BatchGetItem however many objects and
 * types it expands. Four levels at most (the plan's limit). Loaders read in the caller's scope only, so a
 * forged id can only find the caller's own objects.
 */
export function expander(loaders: ExpansionLoaders): Expander {
  return async (scope, body, plan) => {
    let frontier: Array<{ value: unknown; node: PlanNode; shape: Shape }> = [{ value: body, node: plan.root, shape: plan.shape }];
    while (frontier.length > 0) {
      const byTarget = new Map<IdTarget, Array<Pending & { id: string }>>();
      const byIncluded = new Map<IncludedField, Pending[]>();
      const visit = (value: unknown, node: PlanNode, shape: Shape): void => {
        for (const holder of membersOf(value, shape)) {
          for (const [field, edge] of node.fields) {
            const { declaration, next } = edge;
            if (declaration.kind === 'embedded') {
              if (next) visit(holder[field], next, declaration.shape ?? 'one');
            } else if (declaration.kind === 'id') {
              const id = holder[field];
              if (typeof id !== 'string') continue;
              const waiting = byTarget.get(declaration.to) ?? [];
              waiting.push({ holder, field, id, next, shape: 'one' });
              byTarget.set(declaration.to, waiting);
            } else {
              const key = `${node.type}.${field}` as IncludedField;
              const waiting = byIncluded.get(key) ?? [];
              waiting.push({ holder, field, next, shape: declaration.shape ?? 'one' });
              byIncluded.set(key, waiting);
            }
          }
        }
      };
      for (const { value, node, shape } of frontier) visit(value, node, shape);
      const reached: typeof frontier = [];
      const place = (pending: Pending, value: unknown) => {
        if (value === undefined) return;
        pending.holder[pending.field] = value;
        if (pending.next) reached.push({ value, node: pending.next, shape: pending.shape });
      };
      await Promise.all([
        ...[...byTarget].map(async ([target, waiting]) => {
          const found = await loaders.objects[target](
            scope,
            waiting.map(({ id, holder }) => ({ id, holder })),
          );
          for (const [index, pending] of waiting.entries()) place(pending, found[index]);
        }),
        ...[...byIncluded].map(async ([field, waiting]) => {
          const found = await loaders.included[field](
            scope,
            waiting.map(({ holder }) => holder),
          );
          for (const [index, pending] of waiting.entries()) place(pending, found[index]);
        }),
      ]);
      frontier = reached;
    }
    return body;
  };
}
