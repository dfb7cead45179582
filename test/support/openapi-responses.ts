import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { GatewayRoute } from '#local/http-gateway.ts';

type JsonObject = Record<string, any>;

/** One answer of the local stack that the OpenAPI document does not describe. */
export interface Violation {
  operation: string;
  status: number;
  problem: string;
  body: string;
}

const documentId = 'https://service.local/openapi.json';
const pointer = (...segments: string[]) => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks every answer of the local gateway against the OpenAPI document: the status must be one the
 * operation lists, the media type the one it lists for that status, a JSON body must match the schema
 * (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), and the documented `Request-Id` must be there.
 * Validators are compiled once per operation and status.
 */
export function openApiResponseChecker(document: JsonObject) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(document, documentId);
  const validators = new Map<string, ValidateFunction>();
  const violations: Violation[] = [];

  const resolveResponse = (response: JsonObject): [JsonObject, string[]] => {
    if (typeof response.$ref !== 'string') return [response, []];
    const path = (response.$ref as string).slice(2).split('/');
    return [path.reduce((node: JsonObject, key) => node[key], document), path];
  };

  function inspect(route: GatewayRoute, result: unknown): void {
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    const answer = result as APIGatewayProxyStructuredResultV2;
    const status = answer?.statusCode ?? 0;
    const body = typeof answer?.body === 'string' ? answer.body : '';
    const fail = (problem: string) => violations.push({ operation: route.name, status, problem, body: body.slice(0, 300) });
    if (!operation) return void fail('the document has no such operation');
    const listed = operation.responses[String(status)];
    if (!listed) return void fail(`status ${status} is not listed (${Object.keys(operation.responses).join(', ')})`);
    const [response, at] = resolveResponse(listed);
    const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
    if (response.headers?.['Request-Id'] && !headers['request-id']) fail('no Request-Id header');
    const mediaTypes = Object.keys(response.content ?? {});
    if (mediaTypes.length === 0) return;
    const mediaType = (headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!mediaTypes.includes(mediaType)) return void fail(`content type ${mediaType || 'none'}, not ${mediaTypes.join(' or ')}`);
    if (mediaType !== 'application/json') return;
    const schemaAt =
      at.length > 0
        ? pointer(...at, 'content', mediaType, 'schema')
        : pointer('paths', route.path, route.method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema');
    let validate = validators.get(schemaAt);
    if (!validate) {
      validate = ajv.getSchema(`${documentId}#/${schemaAt}`)!;
      validators.set(schemaAt, validate);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return void fail('the body is not JSON');
    }
    if (!validate(json)) fail(ajv.errorsText(validate.errors, { dataVar: 'body' }));
  }

  return { inspect, violations };
}

/**
 * Checks what the service delivers to a webhook URL against the document's `webhooks`: the v1 event or
 * the thin notification schema (by `object`), and the signature header. Answers the problem, if any.
 */
export function openApiDeliveryChecker(document: JsonObject) {
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  ajv.addSchema(document, documentId);
  const schemaOf = (webhook: string) =>
    ajv.getSchema(`${documentId}#/${pointer('webhooks', webhook, 'post', 'requestBody', 'content', 'application/json', 'schema')}`)!;
  const byObject: Record<string, ValidateFunction> = { event: schemaOf('snapshotEvent'), 'v2.core.event': schemaOf('thinEvent') };
  return (headers: Record<string, string | string[] | undefined>, body: string): string | undefined => {
    if (!headers['service-signature']) return 'no Service-Signature header';
    let json: { object?: string };
    try {
      json = JSON.parse(body);
    } catch {
      return 'the body is not JSON';
    }
    const validate = byObject[json.object ?? ''];
    if (!validate) return `no webhook of the document delivers object ${json.object}`;
    return validate(json) ? undefined : ajv.errorsText(validate.errors, { dataVar: 'body' });
  };
}

/** A report of violations, grouped by what went wrong, for the end of a run. */
export function describeViolations(violations: Violation[]): string {
  const groups = new Map<string, Violation[]>();
  for (const violation of violations) {
    const key = `${violation.operation} ${violation.status}: ${violation.problem}`;
    groups.set(key, [...(groups.get(key) ?? []), violation]);
  }
  return [...groups].map(([key, group]) => `- ${key} (${group.length}×)\n    e.g. ${group[0]!.body}`).join('\n');
}
