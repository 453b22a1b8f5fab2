// release-diff/{program}: what changed at a deploy (the latest, or `deploy` = its ProgramData slot).
// Pre = the window before it (not before the previous deploy), post = the window after it (not past
// the next deploy nor now). Per issue: rates before/after, delta, two-sided two-proportion z-test
// p-value and a status; per instruction: on-chain failure rate and CU p95 before/after.

import { z } from "zod";
import type { Context } from "../../context";
import { notFound } from "../../shared/errors";
import { rates, ratio, twoProportionPValue, type Rates } from "../stats";
import { servingTables, type ServingTables } from "../serving/reader";
import { answerKey, baseParams, type BaseParams, countsOf, parseParams, requireKnownProgram, scopeKey, type CountRow } from "./common";

/** Significance level for `regressed`. */
export const RELEASE_ALPHA = 0.05;

export type IssueStatus = "new" | "regressed" | "resolved" | "unchanged";
export type ReleaseIssue = {
  fingerprint: string; instruction: string | null; errName: string | null; outcome: string;
  preCount: number; postCount: number; preRate: number; postRate: number; delta: number; pValue: number; status: IssueStatus;
};
export type ReleaseInstruction = {
  instruction: string; preAttempts: number; postAttempts: number; preFailureRate: number; postFailureRate: number;
  cuP95Pre: number | null; cuP95Post: number | null; cuP95Shift: number | null;
};
export type DeployRef = { slot: number; deployedAt: number | null; detectedAt: number | null; effectiveAt: number; authority: string | null };
export type ReleaseDiffResponse = {
  program: string;
  window: string;
  deploy: DeployRef;
  previousDeploy: { slot: number; deployedAt: number } | null;
  periods: { pre: { since: number; until: number }; post: { since: number; until: number } };
  pre: Rates;
  post: Rates;
  issues: ReleaseIssue[];
  instructions: ReleaseInstruction[];
};

const releaseParams = baseParams.extend({
  deploy: z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/, "expected a slot number")]).nullish(),
});
export type ReleaseDiffParams = BaseParams & { deploy?: string | number | null };

/** new: absent before; resolved: absent after; regressed: significantly more frequent; else unchanged. */
export function issueStatus(preCount: number, postCount: number, delta: number, pValue: number): IssueStatus {
  if (preCount === 0 && postCount > 0) return "new";
  if (preCount > 0 && postCount === 0) return "resolved";
  if (delta > 0 && pValue < RELEASE_ALPHA) return "regressed";
  return "unchanged";
}

type DeployRow = { slot: number; deployed_at: number | null; detected_at: number | null; effective_at: number; authority: string | null; previous_slot: number | null; previous_at: number | null };

export async function releaseDiff(ctx: Context, input: ReleaseDiffParams): Promise<ReleaseDiffResponse> {
  const params = parseParams(releaseParams, input);
  const slot = params.deploy === null || params.deploy === undefined ? null : Number(params.deploy);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("release-diff", { ...params, deploy: slot }), async () => {
    await requireKnownProgram(tables, params.program);
    const deploy = await findDeploy(tables, params.program, slot);
    const scope = scopeKey(params.accountId);
    const key = [params.program, deploy.slot, params.window, scope];
    const periodRows = await tables.all<{ period: string; starts: number; ends: number }>(
      "SELECT period, starts, ends FROM release_periods WHERE program = $1 AND slot = $2 AND win = $3",
      key.slice(0, 3),
    );
    const rateRows = await tables.all<CountRow & { period: string }>(
      "SELECT period, landed, failed_onchain, dropped, preflight FROM release_rates WHERE program = $1 AND slot = $2 AND win = $3 AND scope = $4",
      key,
    );
    const pre = rates(countsOf(rateRows.find((r) => r.period === "pre")));
    const post = rates(countsOf(rateRows.find((r) => r.period === "post")));
    const issueRows = await tables.all<{ fingerprint: string; instruction: string | null; err_name: string | null; outcome: string; pre_count: number; post_count: number }>(
      "SELECT fingerprint, instruction, err_name, outcome, pre_count, post_count FROM release_issues WHERE program = $1 AND slot = $2 AND win = $3 AND scope = $4",
      key,
    );
    const instructionRows = await tables.all<{
      instruction: string; pre_attempts: number; pre_failed: number; post_attempts: number; post_failed: number; cu_p95_pre: number | null; cu_p95_post: number | null;
    }>("SELECT * FROM release_instructions WHERE program = $1 AND slot = $2 AND win = $3 AND scope = $4 ORDER BY instruction", key);

    const issues = issueRows.map((row): ReleaseIssue => {
      const preRate = ratio(row.pre_count, pre.attempts);
      const postRate = ratio(row.post_count, post.attempts);
      const delta = postRate - preRate;
      const pValue = twoProportionPValue(row.pre_count, pre.attempts, row.post_count, post.attempts);
      return {
        fingerprint: row.fingerprint, instruction: row.instruction, errName: row.err_name, outcome: row.outcome,
        preCount: row.pre_count, postCount: row.post_count, preRate, postRate, delta, pValue,
        status: issueStatus(row.pre_count, row.post_count, delta, pValue),
      };
    });
    const rank: Record<IssueStatus, number> = { new: 0, regressed: 1, resolved: 2, unchanged: 3 };
    issues.sort((a, b) => rank[a.status] - rank[b.status] || Math.abs(b.delta) - Math.abs(a.delta) || a.fingerprint.localeCompare(b.fingerprint));
    const periodOf = (name: string) => {
      const row = periodRows.find((p) => p.period === name);
      return { since: row?.starts ?? deploy.effective_at, until: row?.ends ?? deploy.effective_at };
    };
    return {
      program: params.program,
      window: params.window,
      deploy: { slot: deploy.slot, deployedAt: deploy.deployed_at, detectedAt: deploy.detected_at, effectiveAt: deploy.effective_at, authority: deploy.authority },
      previousDeploy: deploy.previous_slot === null ? null : { slot: deploy.previous_slot, deployedAt: deploy.previous_at! },
      periods: { pre: periodOf("pre"), post: periodOf("post") },
      pre,
      post,
      issues,
      instructions: instructionRows.map((row) => ({
        instruction: row.instruction,
        preAttempts: row.pre_attempts,
        postAttempts: row.post_attempts,
        preFailureRate: ratio(row.pre_failed, row.pre_attempts),
        postFailureRate: ratio(row.post_failed, row.post_attempts),
        cuP95Pre: row.cu_p95_pre,
        cuP95Post: row.cu_p95_post,
        cuP95Shift: row.cu_p95_pre === null || row.cu_p95_post === null ? null : row.cu_p95_post - row.cu_p95_pre,
      })),
    };
  });
}

async function findDeploy(tables: ServingTables, program: string, slot: number | null): Promise<DeployRow> {
  const rows = await tables.all<DeployRow>(
    slot === null
      ? "SELECT slot, deployed_at, detected_at, effective_at, authority, previous_slot, previous_at FROM deploys WHERE program = $1 ORDER BY slot DESC LIMIT 1"
      : "SELECT slot, deployed_at, detected_at, effective_at, authority, previous_slot, previous_at FROM deploys WHERE program = $1 AND slot = $2",
    slot === null ? [program] : [program, slot],
  );
  if (rows.length === 0) throw notFound(slot === null ? `program ${program}: no deploy observed yet` : `program ${program}: no deploy at slot ${slot}`);
  return rows[0];
}
