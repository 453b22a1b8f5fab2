// The flood cap (docs/alerts.md#flood-cap): at most `limit` messages per destination per window.
// When the alerts waiting for a destination (held ones first, then this evaluation's) exceed what is
// left of its budget, each rule's alerts are folded into one summary message; rules that do not fit
// even as summaries are held and considered again at the next evaluation. Pure planning: the caller
// builds the summaries and stores the plan.

export type FloodCandidate = { id: string; ruleId: string; destinationKey: string };
export type FloodPlan<C extends FloodCandidate> = {
  /** Sent as they are. */
  individual: C[];
  /** One summary per group (one rule's alerts to one destination). */
  summaries: C[][];
  /** Over the budget even as summaries: held. */
  held: C[];
};

/** `budget(destinationKey)`: messages the destination may still get in the current window. */
export function planFlood<C extends FloodCandidate>(
  candidates: C[],
  budget: (destinationKey: string) => number,
): FloodPlan<C> {
  const plan: FloodPlan<C> = { individual: [], summaries: [], held: [] };
  const byDestination = new Map<string, C[]>();
  for (const candidate of candidates)
    byDestination.set(candidate.destinationKey, [...(byDestination.get(candidate.destinationKey) ?? []), candidate]);
  for (const [destination, list] of byDestination) {
    const left = Math.max(0, budget(destination));
    if (list.length <= left) {
      plan.individual.push(...list);
      continue;
    }
    const byRule = new Map<string, C[]>();
    for (const candidate of list) byRule.set(candidate.ruleId, [...(byRule.get(candidate.ruleId) ?? []), candidate]);
    let remaining = left;
    for (const group of byRule.values()) {
      if (remaining > 0) {
        // One message either way: a lone alert goes as itself.
        if (group.length === 1) plan.individual.push(group[0]);
        else plan.summaries.push(group);
        remaining--;
      } else plan.held.push(...group);
    }
  }
  return plan;
}
