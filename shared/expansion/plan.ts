import { expandableFields, type FieldDeclaration, type ObjectType, type Shape } from './objects.ts';

/** What a response is, for `expand[]`: one object of a type, or a list (or search result) of them. */
export interface ExpansionRoot {
  type: ObjectType;
  shape: 'one' | 'list';
}

/** The response is a list (or search result) of `type`: its paths start with `data.`. */
export const listOf = (type: ObjectType): ExpansionRoot => ({ type, shape: 'list' });

/** One field a plan visits on objects of a type: expanded (or included), or only walked through. */
export interface PlanEdge {
  declaration: FieldDeclaration;
  /** Replace the id with its object (or show the included field); false when paths only walk through. */
  expand: boolean;
  /** What paths ask for further down, on the object(s) the field holds. */
  next?: PlanNode;
}

export interface PlanNode {
  type: ObjectType;
  fields: Map<string, PlanEdge>;
}

/** The checked `expand[]` of a request: a tree of the fields to expand, as the resolver walks it. */
export interface ExpansionPlan {
  paths: readonly string[];
  root: PlanNode;
  shape: 'one' | 'list';
}

/** The reference's limit: `data.payment_intent.customer.default_source` is as deep as it goes. */
export const maxExpansionDepth = 4;

export const cannotExpand = (path: string) => `This property cannot be expanded (${path.slice(0, 100)}).`;
export const tooDeep = `You cannot expand more than ${maxExpansionDepth} levels of a property.`;

/** Adds one path to the plan rooted at `root`; answers why it cannot be expanded, if it cannot. */
function addPath(root: PlanNode, shape: 'one' | 'list', path: string): string | undefined {
  const segments = path.split('.');
  if (segments.length > maxExpansionDepth) return tooDeep;
  let node = root;
  let at: Shape = shape;
  let topLevel = shape === 'one';
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (at === 'list') {
      if (segment !== 'data' || last) return cannotExpand(path);
      at = 'array';
      topLevel = false;
      continue;
    }
    const declaration = Object.hasOwn(expandableFields[node.type], segment) ? expandableFields[node.type][segment] : undefined;
    if (!declaration || (declaration.kind === 'included' && declaration.topLevelOnly && !topLevel)) return cannotExpand(path);
    if (last && declaration.kind === 'embedded') return cannotExpand(path);
    if (!last && !declaration.to) return cannotExpand(path);
    let edge = node.fields.get(segment);
    if (!edge) {
      edge = { declaration, expand: false };
      node.fields.set(segment, edge);
    }
    // Walking on through an id or an included field expands it too, as the reference does.
    if (declaration.kind !== 'embedded') edge.expand = true;
    if (last) return undefined;
    edge.next ??= { type: declaration.to!, fields: new Map() };
    node = edge.next;
    at = declaration.kind === 'id' ? 'one' : (declaration.shape ?? 'one');
    topLevel = false;
  }
  return undefined;
}

/**
 * Checks `paths` against what objects of the root's type declare and builds the plan, or answers the
 * first path refused (its index and the reference's message). On a list a path the items would take
 * names the `data.` form, as the reference hints.
 */
export function planExpansions(root: ExpansionRoot, paths: readonly string[]): ExpansionPlan | { refused: number; message: string } {
  const plan: ExpansionPlan = { paths, root: { type: root.type, fields: new Map() }, shape: root.shape };
  for (const [index, path] of paths.entries()) {
    const problem = addPath(plan.root, plan.shape, path);
    if (problem === undefined) continue;
    const hint =
      root.shape === 'list' && problem !== tooDeep && addPath({ type: root.type, fields: new Map() }, 'list', `data.${path}`) === undefined
        ? ` You may want to try expanding 'data.${path}' instead.`
        : '';
    return { refused: index, message: `${problem}${hint}` };
  }
  return plan;
}
