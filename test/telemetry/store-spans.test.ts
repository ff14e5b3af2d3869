/** The SQLite stores' CLIENT spans are named by the store function and the store's published name. */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tracedStores } from '../../src/composition/traced.ts';
import type { Stores } from '../../src/stores/stores.ts';
import { startTracing } from '../../src/telemetry/sdk.ts';
import { waitFor } from '../helpers/wait.ts';

test('revoking a login is the span `revokeLogin refresh_tokens`', async () => {
  const exporter = new InMemorySpanExporter();
  const stop = startTracing([new SimpleSpanProcessor({ exporter })]);
  try {
    const port = { revokeLogin: async (_loginId: string, _at: number) => 2 };
    const names = [
      'accounts',
      'revocations',
      'users',
      'activity',
      'employees',
      'throttle',
      'codes',
      'consents',
      'tickets',
      'sessions',
    ];
    const others = Object.fromEntries(names.map((name) => [name, {}]));
    const keys = { access: {}, id_token: {} };
    const stores = tracedStores({ kind: 'SQLite', ...others, keys, refreshTokens: port } as unknown as Stores);
    assert.is(await stores.refreshTokens.revokeLogin('login-1', 10), 2);
    await waitFor(() => exporter.getFinishedSpans().length > 0, 'the span', 5000);
    const [span] = exporter.getFinishedSpans();
    assert.is(span?.name, 'revokeLogin refresh_tokens');
    assert.is(span?.attributes['db.operation.name'], 'revokeLogin');
  } finally {
    await stop();
  }
});

test.run();
