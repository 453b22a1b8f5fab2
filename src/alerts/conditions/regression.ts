// regression (docs/alerts.md#regression): after the program's latest detected deploy, an issue that
// is new or regressed, or the failure or drop rate, significantly higher than before. The test is
// release-diff's own: its per-issue status and p-value (two-sided pooled two-proportion z-test) and
// its rate changes (the same test on the periods' counts), in the direction of a regression. One deploy
// gets many tests at once, so each must pass alpha divided by their number (Bonferroni): the chance
// of any false alarm per deploy stays at most alpha.
// Issue states (docs/api.md#issue-states) come first: an issue the account resolved that is
// regressed now is one finding, named by the resolve it broke, so it fires once for that resolve
// however long it stays regressed; an issue the account triaged (resolved, ignored) gets no
// statistical finding, which would repeat or contradict that.

import {
  type IssueState,
  programIssueStates,
  type ReleaseDiffResponse,
  releaseDiff,
  topIssues,
} from "../../analytics/queries";
import { TxrayError } from "../../shared/errors";
import type { Rates } from "../../shared/stats";
import { formatPValue } from "../../shared/wording";
import {
  type Condition,
  type Finding,
  formatCount,
  issuePath,
  issuesByFingerprint,
  percent,
  programPath,
  transactionPath,
} from "../finding";

const RATES = [
  { name: "failureRate", label: "on-chain failure rate", count: (rates: Rates) => rates.failedOnchain },
  { name: "dropRate", label: "drop rate", count: (rates: Rates) => rates.dropped },
] as const;

export const regression: Condition<"regression"> = async (ctx, rule) => {
  const states = await programIssueStates(ctx, rule.accountId, rule.program);
  const regressed = [...states].filter(([, state]) => state.state === "regressed");
  const stateFindings = regressed.length > 0 ? await regressedIssueFindings(ctx, rule, regressed) : [];
  return [...stateFindings, ...(await releaseFindings(ctx, rule, states))];
};

/** One finding per issue the account resolved that is regressed now. */
async function regressedIssueFindings(
  ctx: Parameters<Condition<"regression">>[0],
  rule: Parameters<Condition<"regression">>[1],
  regressed: [string, IssueState][],
): Promise<Finding[]> {
  const known = issuesByFingerprint(
    (await topIssues(ctx, { program: rule.program, window: "30d", accountId: rule.accountId, limit: 500 })).segments,
  );
  return regressed.map(([fingerprint, state]): Finding => {
    const issue = known.get(fingerprint);
    const resolvedAt = state.release?.deployedAt ?? state.changedAt!;
    const sample = issue?.sampleSig ?? null;
    return {
      subject: `issue:${fingerprint}:resolved:${state.changedAt}`,
      title: `Regressed: ${issue?.title ?? fingerprint}`, // docs/api.md#issue-titles
      lines: [
        state.release
          ? `Marked resolved in the next release by ${state.changedBy}; shipped in the deploy at slot ${state.release.slot} (${new Date(resolvedAt).toISOString()}); seen again since`
          : `Resolved by ${state.changedBy} at ${new Date(resolvedAt).toISOString()}; seen again since`,
        ...(issue
          ? [`${formatCount(issue.count)} in the last 30 days · last seen ${new Date(issue.lastSeen).toISOString()}`]
          : []),
      ],
      data: { kind: "issue_state", fingerprint, state: { ...state }, title: issue?.title ?? null, sampleSig: sample },
      links: {
        program: programPath(rule.program),
        issue: issuePath(fingerprint),
        ...(sample ? { example: transactionPath(sample) } : {}),
      },
    };
  });
}

/**
 * The code the deploy shipped, from its verified-build record: the repository and commit, the range
 * since the previous deploy's commit and its compare link when both are known; null without a record.
 */
function sourceLine(diff: ReleaseDiffResponse): string | null {
  const source = diff.deploy.source;
  if (!source) return null;
  const previous = diff.previousDeploy?.source;
  const range = previous && previous.commit !== source.commit ? `${previous.commit}...${source.commit}` : source.commit;
  return `Source: ${source.repository} at ${range}${diff.compareUrl ? ` (${diff.compareUrl})` : ""}`;
}

/** release-diff's significant regressions after the latest deploy, but for issues the account triaged. */
async function releaseFindings(
  ctx: Parameters<Condition<"regression">>[0],
  rule: Parameters<Condition<"regression">>[1],
  states: Map<string, IssueState>,
): Promise<Finding[]> {
  const { window, alpha, minCount, minAttempts } = rule.params;
  let diff: ReleaseDiffResponse;
  try {
    diff = await releaseDiff(ctx, { program: rule.program, window, accountId: rule.accountId });
  } catch (error) {
    if (error instanceof TxrayError && error.code === "not_found") return []; // no deploy observed (or no data) yet
    throw error;
  }
  const { pre, post, deploy } = diff;
  if (pre.attempts < minAttempts || post.attempts < minAttempts) return [];
  const tests = diff.issues.length + RATES.length;
  const level = alpha / tests;
  const deployed = `deploy at slot ${deploy.slot}`;
  const shipped = sourceLine(diff);
  const evidence = {
    deploy,
    ...(diff.compareUrl ? { previousDeploy: diff.previousDeploy, compareUrl: diff.compareUrl } : {}),
    periods: diff.periods,
    window,
    alpha,
    tests,
    level,
    preAttempts: pre.attempts,
    postAttempts: post.attempts,
  };
  const findings: Finding[] = [];

  const regressed = diff.issues.filter(
    (issue) =>
      (states.get(issue.fingerprint)?.stored ?? "unresolved") === "unresolved" &&
      (issue.status === "new" || issue.status === "regressed") &&
      issue.delta > 0 &&
      issue.postCount >= minCount &&
      issue.pValue < level,
  );
  const known =
    regressed.length > 0
      ? issuesByFingerprint(
          (await topIssues(ctx, { program: rule.program, window: "1d", accountId: rule.accountId, limit: 500 }))
            .segments,
        )
      : new Map();
  for (const issue of regressed) {
    const sample = known.get(issue.fingerprint)?.sampleSig ?? null;
    findings.push({
      subject: `deploy:${deploy.slot}:issue:${issue.fingerprint}`,
      title: `Regression after ${deployed}: ${issue.title} ${percent(issue.preRate)} → ${percent(issue.postRate)}`,
      lines: [
        `${issue.status === "new" ? "New" : "Regressed"} since the ${deployed}: ${formatCount(issue.preCount)} of ${formatCount(pre.attempts)} attempts before, ${formatCount(issue.postCount)} of ${formatCount(post.attempts)} after`,
        `${percent(issue.preRate)} → ${percent(issue.postRate)} (${formatPValue(issue.pValue)}; alert level ${alpha} / ${tests} tests)`,
        ...(shipped ? [shipped] : []),
      ],
      data: { ...evidence, kind: "issue", issue: { ...issue }, sampleSig: sample },
      links: {
        program: programPath(rule.program),
        issue: issuePath(issue.fingerprint),
        ...(sample ? { example: transactionPath(sample) } : {}),
      },
    });
  }
  for (const rate of RATES) {
    const before = rate.count(pre);
    const after = rate.count(post);
    const { delta, pValue } = diff.rateChanges[rate.name];
    if (!(delta > 0 && pValue < level)) continue;
    findings.push({
      subject: `deploy:${deploy.slot}:${rate.name}`,
      title: `Regression after ${deployed}: ${rate.label} ${percent(pre[rate.name])} → ${percent(post[rate.name])}`,
      lines: [
        `${formatCount(before)} of ${formatCount(pre.attempts)} attempts before the deploy, ${formatCount(after)} of ${formatCount(post.attempts)} after`,
        `${percent(pre[rate.name])} → ${percent(post[rate.name])} (${formatPValue(pValue)}; alert level ${alpha} / ${tests} tests)`,
        ...(shipped ? [shipped] : []),
      ],
      data: {
        ...evidence,
        kind: rate.name,
        before: { count: before, attempts: pre.attempts, rate: pre[rate.name] },
        after: { count: after, attempts: post.attempts, rate: post[rate.name] },
        pValue,
      },
      links: { program: programPath(rule.program) },
    });
  }
  return findings;
}
