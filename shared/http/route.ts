export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/**
 * One entry of the route table (functions/routes.ts, the map of the API), declared here so that the pipeline
 * and the OpenAPI builder read the table without importing functions/. `P`: what the function may touch, in
 * the table's words (functions/permissions.ts).
 */
export interface Route<P extends string = string> {
  /** Operation name; also the construct id of the function in the stack. */
  name: string;
  method: HttpMethod;
  path: string;
  handler: string;
  permissions: P[];
}
