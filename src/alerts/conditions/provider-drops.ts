// provider_drops (docs/alerts.md#provider_drops): one RPC provider's drop rate significantly above
// that of the program's other providers together, from the provider-report answer (resolved sends:
// drops over attempts per provider). Each provider with enough sends is tested against the pooled
// others with the two-proportion z-test (release-diff's); with k providers tested, each must pass
// alpha / k (Bonferroni) and exceed the others' rate by at least `minExcess`.

import { providerReport } from "../../analytics/queries";
import { ratio, twoProportionPValue } from "../../shared/stats";
import { formatPValue } from "../../shared/wording";
import { type Condition, type Finding, formatCount, percent, programPath } from "../finding";

export const providerDrops: Condition<"provider_drops"> = async (ctx, rule) => {
  const { window, alpha, minExcess, minAttempts } = rule.params;
  const report = await providerReport(ctx, { program: rule.program, window, accountId: rule.accountId });
  const total = report.providers.reduce(
    (sum, p) => ({ attempts: sum.attempts + p.attempts, dropped: sum.dropped + p.dropped }),
    { attempts: 0, dropped: 0 },
  );
  const candidates = report.providers
    .map((provider) => ({
      provider,
      others: { attempts: total.attempts - provider.attempts, dropped: total.dropped - provider.dropped },
    }))
    .filter(({ provider, others }) => provider.attempts >= minAttempts && others.attempts >= minAttempts);
  const tests = candidates.length;
  const findings: Finding[] = [];
  for (const { provider, others } of candidates) {
    const othersRate = ratio(others.dropped, others.attempts);
    const pValue = twoProportionPValue(others.dropped, others.attempts, provider.dropped, provider.attempts);
    const excess = provider.dropRate - othersRate;
    if (!(excess >= minExcess && pValue < alpha / tests)) continue;
    findings.push({
      subject: `provider:${provider.rpcHash}`,
      title: `Provider ${provider.rpcLabel} drops ${percent(provider.dropRate)} of sends vs ${percent(othersRate)} for the others`,
      lines: [
        `${provider.rpcLabel}: ${formatCount(provider.dropped)} of ${formatCount(provider.attempts)} sends dropped (95% CI ${percent(provider.ci95[0])}–${percent(provider.ci95[1])}) in the last ${window}`,
        `Other providers: ${formatCount(others.dropped)} of ${formatCount(others.attempts)} (${formatPValue(pValue)}; alert level ${alpha} / ${tests} providers)`,
      ],
      data: { window, provider, others: { ...others, dropRate: othersRate }, excess, pValue, alpha, tests },
      links: { program: programPath(rule.program) },
    });
  }
  return findings;
};
