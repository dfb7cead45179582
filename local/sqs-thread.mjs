// Entry of the SQS emulator's thread: TypeScript support first (the thread starts without the parent's
// loader flags), then the thread's own module.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./sqs-thread.ts', import.meta.url).href);
