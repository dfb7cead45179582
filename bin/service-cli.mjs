#!/usr/bin/env node
// `npx service-cli …` in the repository: runs scripts/cli.ts with tsx from the repository's root, as
// `npm run cli -- …` does, forwarding Ctrl-C and SIGTERM so that `listen` deletes its temporary endpoint.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const child = spawn(process.execPath, [tsx, resolve(root, 'scripts/cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
