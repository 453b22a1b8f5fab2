// landing_rate (docs/alerts.md#landing_rate): the program's landing rate over the last
// `windowMinutes` before the latest refresh (recentActivity) is below `threshold` with its whole 95%
// Wilson interval, or significantly below the program's own previous 7 days: the 7-day baseline
// (the baseline question) minus the recent minutes, compared with the pooled two-proportion z-test
// (release-diff's), fired when p < alpha and the drop is at least `minDrop`.

import { baseline, recentActivity } from "../../analytics/queries";
import { ratio, twoProportionPValue } from "../../shared/stats";
import { formatPValue } from "../../shared/wording";
import { type Condition, formatCount, percent, programPath } from "../finding";

export const landingRate: Condition<"landing_rate"> = async (ctx, rule) => {
  const { windowMinutes, threshold, alpha, minDrop, minAttempts } = rule.params;
  const recent = await recentActivity(ctx, {
    program: rule.program,
    accountId: rule.accountId,
    minutes: windowMinutes,
  });
  const now = recent.rates;
  if (now.attempts < minAttempts) return [];
  const [low, high] = now.ci95.landingRate;
  const belowThreshold = threshold !== undefined && high < threshold;
  let versusBaseline: {
    landed: number;
    attempts: number;
    rate: number;
    pValue: number;
    drop: number;
    significant: boolean;
  } | null = null;
  if (rule.params.baseline) {
    const week = await baseline(ctx, { program: rule.program, window: "7d", accountId: rule.accountId });
    // The same serving version (the same clock) or the subtraction would mix two builds: test at the next evaluation.
    if (week.window.until === recent.until) {
      const attempts = Math.max(0, week.rates.attempts - now.attempts);
      const landed = Math.max(0, week.rates.landed - now.landed);
      if (attempts >= minAttempts) {
        const rate = ratio(landed, attempts);
        const pValue = twoProportionPValue(landed, attempts, now.landed, now.attempts);
        const drop = rate - now.landingRate;
        versusBaseline = { landed, attempts, rate, pValue, drop, significant: drop >= minDrop && pValue < alpha };
      }
    }
  }
  if (!belowThreshold && !versusBaseline?.significant) return [];
  const lines = [
    `${formatCount(now.landed)} of ${formatCount(now.attempts)} attempts landed in the last ${windowMinutes} min: ${percent(now.landingRate)} (95% CI ${percent(low)}–${percent(high)})`,
  ];
  if (belowThreshold) lines.push(`Below the threshold of ${percent(threshold!)} with its whole interval`);
  if (versusBaseline?.significant) {
    lines.push(
      `The previous 7 days: ${percent(versusBaseline.rate)} of ${formatCount(versusBaseline.attempts)} (down ${percent(versusBaseline.drop)}, ${formatPValue(versusBaseline.pValue)})`,
    );
  }
  return [
    {
      subject: "program",
      title: `Landing rate fell to ${percent(now.landingRate)} in the last ${windowMinutes} min`,
      lines,
      data: {
        windowMinutes,
        since: recent.since,
        until: recent.until,
        recent: now,
        threshold: threshold ?? null,
        belowThreshold,
        baseline: versusBaseline,
        alpha,
        minDrop,
      },
      links: { program: programPath(rule.program) },
    },
  ];
};
