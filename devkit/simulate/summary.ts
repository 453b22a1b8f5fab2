// Counts of a simulated run: per outcome, per scenario and per provider (sends, drops), and how many
// attempts behaved differently from what their scenario intended (should be zero).

import type { Attempt, Outcome, ScenarioKind } from "./truth.ts";

export interface ProviderSummary {
  /** Attempts routed through the provider. */
  attempts: number;
  /** Attempts that reached sendTransaction successfully (kind "send"). */
  sends: number;
  /** Sends the provider answered but never forwarded. */
  notForwarded: number;
  /** Any send that never landed (not forwarded or stale blockhash). */
  dropped: number;
}

export interface Summary {
  attempts: number;
  outcomes: Record<Outcome, number>;
  scenarios: Partial<Record<ScenarioKind, Partial<Record<Outcome, number>>>>;
  providers: Record<string, ProviderSummary>;
  inconsistent: number;
}

export function summarize(attempts: Attempt[]): Summary {
  const summary: Summary = {
    attempts: attempts.length,
    outcomes: { landed: 0, failed_onchain: 0, dropped: 0, preflight: 0 },
    scenarios: {},
    providers: {},
    inconsistent: 0,
  };
  for (const { envelope, truth } of attempts) {
    summary.outcomes[truth.outcome]++;
    const scenario = (summary.scenarios[truth.scenario] ??= {});
    scenario[truth.outcome] = (scenario[truth.outcome] ?? 0) + 1;
    const provider = (summary.providers[truth.provider] ??= { attempts: 0, sends: 0, notForwarded: 0, dropped: 0 });
    provider.attempts++;
    if (envelope.kind === "send") provider.sends++;
    if (truth.outcome === "dropped") provider.dropped++;
    if (truth.dropCause === "provider_not_forwarding") provider.notForwarded++;
    if (!truth.consistent) summary.inconsistent++;
  }
  return summary;
}

/** A few human-readable lines for the CLI. */
export function formatSummary(summary: Summary): string {
  const lines = [
    `attempts ${summary.attempts}: landed ${summary.outcomes.landed}, failed_onchain ${summary.outcomes.failed_onchain}, ` +
      `dropped ${summary.outcomes.dropped}, preflight ${summary.outcomes.preflight}` +
      (summary.inconsistent ? `  (${summary.inconsistent} differed from their scenario!)` : ""),
    "scenarios:",
  ];
  for (const [scenario, outcomes] of Object.entries(summary.scenarios)) {
    const parts = Object.entries(outcomes).map(([outcome, n]) => `${outcome} ${n}`);
    lines.push(`  ${scenario.padEnd(20)} ${parts.join(", ")}`);
  }
  lines.push("providers:");
  for (const [label, p] of Object.entries(summary.providers)) {
    const rate = p.sends ? ((100 * p.notForwarded) / p.sends).toFixed(1) : "0.0";
    lines.push(
      `  ${label.padEnd(12)} attempts ${p.attempts}, sends ${p.sends}, not forwarded ${p.notForwarded} (${rate}%), dropped ${p.dropped}`,
    );
  }
  return lines.join("\n");
}
