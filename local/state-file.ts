import { resolve } from 'node:path';
import type { EmulatorCredentials } from './engine-clients.ts';

/** Where `npm start` keeps its data (DynamoDB Local files, the default platform's keys, the state file). */
export const localDataDir = resolve(process.env.SERVICE_DATA_DIR ?? '.data');

/** Written by a running `npm start` (owner-only, 0600) so that `npm run admin` can find and reach its DynamoDB. */
export const localStackStateFile = resolve(localDataDir, 'local-stack.json');

export interface LocalStackState {
  pid: number;
  baseUrl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** The only credentials DynamoDB Local and the SQS emulator take, new at each start. */
  credentials: EmulatorCredentials;
  region: string;
  tableName: string;
}
