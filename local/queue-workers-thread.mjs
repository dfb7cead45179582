// Entry of the queue workers' thread: TypeScript support first (the thread starts without the parent's
// loader flags), then the thread's own module.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./queue-workers-thread.ts', import.meta.url).href);
