// A thread of the simulator's pool starts here: Node 20 does not pass tsx's hooks on to a worker thread, so the
// thread registers them itself before it loads its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./simulate-worker.ts');
