/** The OpenAPI document of the services this configuration serves. */
import { readFileSync } from 'node:fs';
import type { Config } from '../../src/config.ts';
import { employeeOperations, userDataOperations } from './api-operations.ts';
import { buildDocument, type Operation } from './document.ts';
import { operationsOperations, securedOperations } from './secured-operations.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function operationsFor(config: Config): readonly Operation[] {
  return [
    ...(config.services.has('secured') ? securedOperations : []),
    ...(config.services.has('employee') ? employeeOperations : []),
    ...(config.services.has('userdata') ? userDataOperations : []),
    ...operationsOperations,
  ];
}

export function openApiFor(config: Config): Record<string, unknown> {
  return buildDocument(operationsFor(config), { version: VERSION, issuer: config.security.jwt.issuer });
}
