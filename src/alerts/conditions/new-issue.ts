// new_issue (docs/alerts.md#new_issue): a fingerprint first seen after the rule was created that
// occurred at least `minCount` times in the last `withinMinutes` before the latest refresh. Counts
// and first sightings come from recentActivity (the serving tables' attempts and issue lifetimes,
// the same ones top-issues reads); what the issue is, its example and wallets from top-issues.

import { recentActivity, topIssues } from "../../analytics/queries";
import { countOf } from "../../shared/wording";
import {
  type Condition,
  type Finding,
  formatCount,
  issuePath,
  issuesByFingerprint,
  programPath,
  transactionPath,
} from "../finding";

export const newIssue: Condition<"new_issue"> = async (ctx, rule) => {
  const { minCount, withinMinutes } = rule.params;
  const recent = await recentActivity(ctx, {
    program: rule.program,
    accountId: rule.accountId,
    minutes: withinMinutes,
  });
  const fresh = recent.issues.filter(
    (issue) => issue.firstSeen !== null && issue.firstSeen >= rule.createdAt && issue.count >= minCount,
  );
  if (fresh.length === 0) return [];
  const top = await topIssues(ctx, { program: rule.program, window: "1d", accountId: rule.accountId, limit: 500 });
  const known = issuesByFingerprint(top.segments);
  return fresh.map((issue): Finding => {
    const detail = known.get(issue.fingerprint);
    const what = detail?.title ?? issue.fingerprint; // docs/api.md#issue-titles
    return {
      subject: `issue:${issue.fingerprint}`,
      title: `New issue: ${what}`,
      lines: [
        `${countOf(issue.count, "occurrence")} in the last ${withinMinutes} min (rule: at least ${minCount})`,
        `First seen ${new Date(issue.firstSeen!).toISOString()}${detail ? ` · ${countOf(detail.wallets, "wallet")} · ${formatCount(detail.count)} in the last day` : ""}`,
      ],
      data: {
        fingerprint: issue.fingerprint,
        title: detail?.title ?? null,
        count: issue.count,
        withinMinutes,
        minCount,
        firstSeen: issue.firstSeen,
        outcome: detail?.outcome ?? null,
        instruction: detail?.instruction ?? null,
        failingProgram: detail?.failingProgram ?? null,
        errCode: detail?.errCode ?? null,
        errName: detail?.errName ?? null,
        dropClass: detail?.dropClass ?? null,
        count1d: detail?.count ?? null,
        wallets: detail?.wallets ?? null,
        sampleSig: detail?.sampleSig ?? null,
      },
      links: {
        program: programPath(rule.program),
        issue: issuePath(issue.fingerprint),
        ...(detail?.sampleSig ? { example: transactionPath(detail.sampleSig) } : {}),
      },
    };
  });
};
