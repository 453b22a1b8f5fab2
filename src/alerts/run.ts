// One run of the alerts job (src/jobs/alerts.ts, `txray jobs run alerts`): evaluate every rule and
// store what changed, then send what is due now; once an hour, forget history older than 30 days.

import type { Context, OwnedPart } from "../context";
import { pruneAlertHistory } from "../control";
import { checkStop } from "../shared/stop";
import { deliverDue } from "./deliver";
import { evaluateRules } from "./evaluate";
import { defaultSendEffects, type SendEffects } from "./send";

/** Delivery log and resolved subjects are kept this long. */
export const ALERT_HISTORY_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** When this context last forgot old alert history (0: not yet). */
const HISTORY_PRUNED: OwnedPart<{ at: number }> = { name: "alert history pruned", make: () => ({ at: 0 }) };

export async function runAlerts(
  ctx: Context,
  options: { signal?: AbortSignal; effects?: SendEffects } = {},
): Promise<Record<string, unknown>> {
  const effects = options.effects ?? defaultSendEffects(ctx.clock);
  const evaluation = await evaluateRules(ctx, effects.clock());
  checkStop(options.signal);
  const delivery = await deliverDue(ctx, effects, options.signal);
  const now = effects.clock();
  const pruned = ctx.own(HISTORY_PRUNED);
  if (now - pruned.at > PRUNE_EVERY_MS) {
    pruneAlertHistory(ctx.control, now - ALERT_HISTORY_MS);
    pruned.at = now;
  }
  return { ...evaluation, ...delivery };
}
