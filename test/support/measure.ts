import { callScope, withCallScope } from '#shared/aws/aws-calls.ts';

/** Runs `work` with its AWS calls counted: the operations in order, and the DynamoDB capacity units they consumed. */
export async function measured<T>(work: () => Promise<T>) {
  const scopeOfCalls = callScope({ measure: true });
  const result = await withCallScope(scopeOfCalls, work);
  return {
    result,
    calls: scopeOfCalls.calls.map((call) => call.operation),
    writeUnits: scopeOfCalls.calls.reduce((sum, call) => sum + call.writeUnits, 0),
    readUnits: scopeOfCalls.calls.reduce((sum, call) => sum + call.readUnits, 0),
  };
}
