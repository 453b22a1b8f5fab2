// The resolver's budget of JSON-RPC calls to its provider (RESOLVE_RPC_CALLS_PER_SECOND, docs/security.md
// "Chain look-ups"): every ingested send is looked up, so made-up envelopes would otherwise cost calls
// without bound. A round looks up only the sends whose status calls the budget pays for, granted
// round-robin across accounts; what the round then spends (block times, transactions, retries) is
// charged after the fact, so the budget may go below zero and later rounds wait until it refills: the
// average stays within the rate whatever the round's mix.

import type { Context, OwnedPart } from "../../context";
import type { OpenAttempt } from "./open-attempts";

/** Bursts of up to this many seconds of the rate (a round after a quiet spell looks up its backlog at once). */
const BURST_SECONDS = 10;
/** getSignatureStatuses takes 256 signatures per call (chain-reads.ts). */
const STATUSES_PER_CALL = 256;

export class CallBudget {
  private tokens: number;
  private at: number;
  constructor(
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond * BURST_SECONDS;
    this.at = now;
  }

  /** Calls the budget holds at `now` (negative after a round that overspent). */
  available(now: number): number {
    if (now > this.at) {
      this.tokens = Math.min(this.perSecond * BURST_SECONDS, this.tokens + ((now - this.at) / 1000) * this.perSecond);
      this.at = now;
    }
    return this.tokens;
  }

  /** Milliseconds from `now` until the budget holds `calls` again (0 when it does). */
  msUntil(calls: number, now: number): number {
    const missing = calls - this.available(now);
    return missing <= 0 ? 0 : Math.ceil((missing / this.perSecond) * 1000);
  }

  spend(calls: number): void {
    this.tokens -= calls;
  }
}

/** The process's budget, one per context: it holds across runs (a run that fails keeps what it spent). */
const CALL_BUDGET: OwnedPart<{ budget: CallBudget | null }> = {
  name: "resolver call budget",
  make: () => ({ budget: null }),
};

/** The process's budget for this context; null when RESOLVE_RPC_CALLS_PER_SECOND is 0 (no limit). */
export function callBudgetOf(ctx: Context, now: number): CallBudget | null {
  const perSecond = ctx.config.RESOLVE_RPC_CALLS_PER_SECOND;
  if (perSecond === 0) return null;
  const kept = ctx.own(CALL_BUDGET);
  kept.budget ??= new CallBudget(perSecond, now);
  return kept.budget;
}

/** The fewest calls a round with sends makes: the block height and one call of statuses. */
export const CALLS_PER_ROUND_WITH_SENDS = 2;

export function withinCallBudget(due: OpenAttempt[], calls: number): { taken: OpenAttempt[]; deferred: OpenAttempt[] } {
  const sends = due.filter((a) => a.kind === "send");
  const affordable = Math.max(0, Math.floor(calls) - 1) * STATUSES_PER_CALL;
  if (sends.length <= affordable) return { taken: due, deferred: [] };
  const byAccount = new Map<string, OpenAttempt[]>();
  for (const attempt of sends) {
    let queue = byAccount.get(attempt.accountId);
    if (!queue) byAccount.set(attempt.accountId, (queue = []));
    queue.push(attempt);
  }
  const granted = new Set<OpenAttempt>();
  const queues = [...byAccount.values()];
  for (let turn = 0; granted.size < affordable; turn++)
    for (const queue of queues) {
      if (turn < queue.length) granted.add(queue[turn]);
      if (granted.size === affordable) break;
    }
  const taken: OpenAttempt[] = [];
  const deferred: OpenAttempt[] = [];
  for (const attempt of due) (attempt.kind === "send" && !granted.has(attempt) ? deferred : taken).push(attempt);
  return { taken, deferred };
}
