// Job: resolve open attempts against SOLANA_RPC_URL (src/chain/resolve), with the batch size and the
// success sample of the settings. A scheduled run goes on in rounds while envelopes keep arriving
// (each round's intake and look-ups overlap the previous round's recording), for up to
// SCHEDULED_ROUNDS_MS, and reports when it should run next (nextRunInMs); a run from outside the
// server (`txray jobs run resolve`) goes on until nothing is due within seconds (a drop's second
// look-up included).

import type { IdlRegistry } from "../chain/idl";
import { loadIdls } from "../chain/idl";
import { resolvePending, resolveSettled } from "../chain/resolve";
import { chainHealth, createRpcClient } from "../chain/rpc";
import type { Context, OwnedPart } from "../context";
import type { Job } from "./run";

/**
 * IDLs read again at most once a minute (`txray idl add` takes effect without a restart; a run every second must not
 * reread them).
 */
const LOADED_IDLS: OwnedPart<{ loaded: { idls: IdlRegistry; at: number } | null }> = {
  name: "resolver IDLs",
  make: () => ({ loaded: null }),
};
function idlsFor(ctx: Context): IdlRegistry {
  const kept = ctx.own(LOADED_IDLS);
  if (kept.loaded && ctx.clock() - kept.loaded.at < 60_000) return kept.loaded.idls;
  const idls = loadIdls(ctx.paths.root);
  kept.loaded = { idls, at: ctx.clock() };
  return idls;
}

/** How long a scheduled run goes on in rounds (its details then say how the time went, in /v1/status). */
const SCHEDULED_ROUNDS_MS = 20_000;

export const resolveJob: Job = {
  name: "resolve",
  needs: ["chain"],
  async run(ctx, runtime) {
    const rpc = createRpcClient({
      url: ctx.config.SOLANA_RPC_URL,
      concurrency: ctx.config.SOLANA_RPC_CONCURRENCY,
      timeoutMs: ctx.config.SOLANA_RPC_TIMEOUT_MS,
      onOutcome: (outcome) => chainHealth(ctx, "resolve").note(outcome),
      logger: ctx.logger,
      sleep: ctx.timers.sleep,
    });
    const options = {
      rpc,
      idls: idlsFor(ctx),
      signal: runtime.signal,
      batchCalls: ctx.config.SOLANA_RPC_BATCH_CALLS,
      sampleRate: ctx.config.RESOLVE_SAMPLE_RATE,
    };
    const summary = runtime.untilCaughtUp
      ? await resolveSettled(ctx, options)
      : await resolvePending(ctx, { ...options, roundsForMs: SCHEDULED_ROUNDS_MS });
    return { ...summary, rpc: rpc.stats() };
  },
};
