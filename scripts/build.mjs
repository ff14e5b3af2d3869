// `npm run build [-- outDir]`: compiles the server to JavaScript (default `dist/`), with the files
// it reads at run time beside it, so that `node dist/src/main.js` serves as plain JavaScript.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const out = resolve(process.argv[2] ?? 'dist');
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out], {
  stdio: 'inherit',
});
const assets = [
  'src/stores/migrations', // SQL migrations, applied at start-up
  'src/security/password-worker.mjs', // the BCrypt worker thread
  'src/supported-node.mjs', // the entry points' check of the Node version
  'http/oauth/theme', // the sign-in pages' default theme: templates, stylesheet, messages
  'package.json', // the version in the OpenAPI document, and "type": "module" for the output
];
for (const asset of assets) cpSync(asset, join(out, asset), { recursive: true });
console.log(`built ${out}`);
