// Grows a cilia archive with the synthetic corpus until it holds about `target` windows. The
// count is read from GET /metrics (see windowCount); without it the estimate of synth.mjs is
// used. Works on a data dir that already holds windows: only the missing ones are added.
import { performance } from 'node:perf_hooks';

import { ingestAll, windowCount } from './cilia.mjs';
import { estimateWindows, synthConversations } from './synth.mjs';

const MAX_ROUNDS = 8;
const CLOSE_ENOUGH = 0.97;
const CALIBRATION_SHARE = 0.1;

// Returns {windows, source: "/metrics" | "estimate", added_messages, ingest_seconds}.
// `idPrefix` must differ between runs on one data dir, or the same conversations are re-sent
// (and stored once): the default is unique per call.
export async function growArchive(cilia, { target, seed = 1, start, end, idPrefix = `grow${Date.now().toString(36)}`, log = () => {} }) {
  const stream = synthConversations({ seed, messages: Infinity, start, end, idPrefix });
  let estimated = 0;
  let messages = 0;
  let seconds = 0;
  const ingestUntil = async (goal) => {
    const started = performance.now();
    while (estimated < goal) {
      const conversation = stream.next().value;
      await ingestAll(cilia, [conversation], { batch: 100 });
      estimated += estimateWindows(conversation);
      messages += conversation.messages.length;
    }
    seconds += (performance.now() - started) / 1000;
  };

  // One conversation first: the window gauge is only set once something was ingested.
  await ingestUntil(1);
  const base = await windowCount(cilia);
  if (base === null) {
    await ingestUntil(target);
    return { windows: estimated, source: 'estimate', added_messages: messages, ingest_seconds: seconds };
  }
  const baseEstimated = estimated;
  let real = base;
  for (let round = 0; round < MAX_ROUNDS && real < target * CLOSE_ENOUGH; round++) {
    const addedEstimated = estimated - baseEstimated;
    // The first step is a small one, to learn how many real windows an estimated one is.
    const step = real > base ? Math.ceil((target - real) / ((real - base) / addedEstimated)) : Math.ceil((target - real) * CALIBRATION_SHARE);
    await ingestUntil(estimated + step);
    real = await windowCount(cilia);
    log(`archive: ${real} windows after ${messages} messages (${seconds.toFixed(0)} s)`);
  }
  return { windows: real, source: '/metrics', added_messages: messages, ingest_seconds: seconds };
}
