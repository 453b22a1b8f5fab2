// Sending the deliveries that are due (docs/alerts.md#delivery): per destination in the order the
// alerts were raised (a later one never overtakes an earlier one still retrying), destinations in
// parallel. Each attempt is recorded before its request goes out and its outcome right after, so a
// restart resumes exactly where a crash left off: a due delivery that was not sent is sent, one that
// was is not. The job lease (src/jobs/run.ts) keeps two processes from sending at once.

import type { Context } from "../context";
import { type DueDelivery, pendingDeliveries, recordDeliveryAttempt, recordDeliveryOutcome } from "../control";
import { fault } from "../shared/fault";
import { checkStop } from "../shared/stop";
import type { StoredPayload } from "./payload";
import { nextAttemptAt, type SendEffects, sendAttempt } from "./send";

export type DeliverySummary = { sent: number; retrying: number; gaveUp: number; failed: number };

/** Destinations served at once. */
const PARALLEL_DESTINATIONS = 8;

export async function deliverDue(ctx: Context, effects: SendEffects, signal?: AbortSignal): Promise<DeliverySummary> {
  const summary: DeliverySummary = { sent: 0, retrying: 0, gaveUp: 0, failed: 0 };
  const queues = new Map<string, DueDelivery[]>();
  for (const delivery of pendingDeliveries(ctx.control))
    queues.set(delivery.destinationKey, [...(queues.get(delivery.destinationKey) ?? []), delivery]);
  const work = [...queues.values()];
  const worker = async () => {
    for (let queue = work.shift(); queue; queue = work.shift())
      await deliverQueue(ctx, queue, effects, summary, signal);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_DESTINATIONS, work.length) }, worker));
  return summary;
}

/** One destination's deliveries in order, stopping at the first that is not due or must wait for a retry. */
async function deliverQueue(
  ctx: Context,
  queue: DueDelivery[],
  effects: SendEffects,
  summary: DeliverySummary,
  signal?: AbortSignal,
): Promise<void> {
  for (const delivery of queue) {
    checkStop(signal);
    const now = effects.clock();
    if (delivery.nextAttemptAt > now) return;
    const attempt = delivery.attempts + 1;
    recordDeliveryAttempt(ctx.control, delivery.id, now);
    fault("alerts:before-send");
    const outcome = await sendAttempt(
      delivery.destination,
      JSON.parse(delivery.payload) as StoredPayload,
      attempt,
      effects,
      ctx.config,
    );
    const at = effects.clock();
    if (outcome.status === "sent") {
      fault("alerts:after-send");
      recordDeliveryOutcome(ctx.control, delivery.id, {
        status: "sent",
        httpStatus: outcome.httpStatus,
        error: null,
        at,
      });
      summary.sent++;
      continue;
    }
    const log = { delivery: delivery.id, alertId: delivery.ruleId, attempt, error: outcome.error };
    if (outcome.status === "failed") {
      recordDeliveryOutcome(ctx.control, delivery.id, {
        status: "failed",
        httpStatus: outcome.httpStatus,
        error: outcome.error,
        at,
      });
      ctx.logger.warn("alerts: delivery failed for good", log);
      summary.failed++;
      continue;
    }
    const next = nextAttemptAt(
      outcome,
      attempt,
      at,
      delivery.giveUpAt,
      ctx.config.ALERTS_RETRY_BASE_MS,
      effects.random,
    );
    if (next === null) {
      const error = `gave up after ${attempt} attempt${attempt === 1 ? "" : "s"} over ${Math.round((at - delivery.createdAt) / 60_000)} min; last: ${outcome.error}`;
      recordDeliveryOutcome(ctx.control, delivery.id, { status: "failed", httpStatus: outcome.httpStatus, error, at });
      ctx.logger.warn("alerts: delivery given up", { ...log, error });
      summary.gaveUp++;
      continue;
    }
    recordDeliveryOutcome(ctx.control, delivery.id, {
      status: "pending",
      httpStatus: outcome.httpStatus,
      error: outcome.error,
      at,
      nextAttemptAt: next,
    });
    ctx.logger.info("alerts: delivery will be retried", { ...log, retryInMs: next - at });
    summary.retrying++;
    return;
  }
}
