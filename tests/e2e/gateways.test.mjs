// Two gateways on one PostgreSQL database under a short mixed load (issue 17; the load of
// bench/gateways.mjs, bench/lib/mixed.mjs): ingest through one, recalls and chat turns through
// both, the schedulers of both running the jobs. Afterwards the database holds every
// acknowledged message exactly once, a request sent again through the other gateway stored
// nothing, each chat turn is stored once, no job ran twice, no request failed, and a message
// ingested through one gateway was found through the other.
import assert from 'node:assert/strict';
import test from 'node:test';

import { checkDatabase, problemsOf, runMixedLoad, startGateways } from '../../bench/lib/mixed.mjs';
import { binaryExists, ciliaBin, onPostgres } from './lib/server.mjs';

const skip = binaryExists() ? false : `no cilia binary at ${ciliaBin}`;
const pgOnly = skip || (onPostgres ? false : 'about gateways sharing a PostgreSQL store: runs under make e2e-pg');

test('two gateways on one database under mixed load lose nothing and do nothing twice', { skip: pgOnly }, async (t) => {
  const fleet = await startGateways(2, { archiveMessages: 300, seed: 'e2e' });
  t.after(() => fleet.stop());
  const result = await runMixedLoad(fleet, { seconds: 12, seed: 'e2e', recallClients: 4, ingestBatch: 10, resendEvery: 5 });
  const checks = await checkDatabase(fleet.database, result);

  assert.deepEqual(problemsOf({ ...result, checks }), []);
  assert.ok(result.ingest.requests >= 5 && result.ingest.resent >= 1, JSON.stringify(result.ingest));
  assert.ok(result.recall.by_gateway.every((n) => n > 0), 'recalls went through both gateways');
  assert.ok(result.chat.turns >= 4, `chat turns: ${result.chat.turns}`);
  assert.equal(checks.acknowledged, result.ingest.messages + result.freshness.probes);
  // problemsOf counts a probe not found within 5 s through either gateway; the change log
  // brings gateway 0's writes to the other's indexes in about 30 ms (bench/RESULTS.md).
  assert.ok(result.freshness.other.n >= 3, JSON.stringify(result.freshness));
  // Both schedulers checked at their start, with the archive there: the jobs ran, shared.
  assert.ok(checks.jobs['default/extract']?.runs >= 1, JSON.stringify(checks.jobs));
});
