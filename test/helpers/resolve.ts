// Resolve runs until nothing is left to decide soon: a run looks each due attempt up once, and a drop
// needs a second look after its expiry (a later run), so a test that wants every outcome runs the
// resolver a few times, as the scheduler would, waiting for what is due next. It stops when no
// attempt is open, or when the next one is due later than `settleMs` (an attempt that has not
// landed and whose blockhash has not expired stays open).
import { resolvePending, type ResolveOptions, type ResolveSummary } from "../../src/chain/resolve";
import type { Context } from "../../src/context";

/** The summary adds up every run's resolutions and discarded batches. */
export async function resolveUntilSettled(ctx: Context, options: ResolveOptions, { settleMs = 200, maxRuns = 40 } = {}): Promise<ResolveSummary & { runs: number }> {
  const resolved: Record<string, number> = { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 };
  let discardedBatches = 0;
  let last: ResolveSummary | null = null;
  let runs = 0;
  while (runs < maxRuns) {
    last = await resolvePending(ctx, options);
    runs++;
    discardedBatches += last.discardedBatches;
    for (const [outcome, n] of Object.entries(last.resolved)) resolved[outcome] = (resolved[outcome] ?? 0) + n;
    if (last.backlog) continue;
    if (last.stillPending === 0 || last.nextRunInMs === null || last.nextRunInMs > settleMs) break;
    await Bun.sleep(Math.max(last.nextRunInMs, 1));
  }
  return { ...last!, resolved, discardedBatches, runs };
}
