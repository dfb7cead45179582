import { resolve } from 'node:path';

/** Where `npm start` keeps its data (DynamoDB Local files, the default platform's keys, the state file). */
export const localDataDir = resolve(process.env.SERVICE_DATA_DIR ?? '.data');

/** Written by a running `npm start` so that `npm run admin` can find its DynamoDB endpoint. */
export const localStackStateFile = resolve(localDataDir, 'local-stack.json');

export interface LocalStackState {
  pid: number;
  baseUrl: string;
  dynamodbEndpoint: string;
  region: string;
  tableName: string;
}
