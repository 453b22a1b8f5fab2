// release-diff/{program}: what changed at a deploy (the latest, or `deploy` = its ProgramData slot).
// Pre = the window before it (not before the previous deploy), post = the window after it (not past
// the next deploy nor now). Per issue: rates before/after, delta, two-sided two-proportion z-test
// p-value and a status; per instruction: on-chain failure rate and CU p95 before/after. Public
// answers for each program's latest deploy are precomputed by the tables job (releaseDiffAnswers);
// account-scoped ones and `?deploy=` are computed on request by the same function and cached per
// serving version. Each deploy's source (repository and commit, from its verified-build record,
// src/chain/deploys/verified-build.ts) is read from its cache when answering, so a record found after
// the tables were built shows at once.

import { z } from "zod";
import { compareUrl, type DeploySource, deploySource } from "../../chain/deploys";
import type { Context } from "../../context";
import { notFound } from "../../shared/errors";
import { issueTitleOfRow } from "../../shared/issue-title";
import { type Rates, rates, ratio, twoProportionPValue } from "../../shared/stats";
import { servingTables } from "../serving/reader";
import {
  type AnswerScope,
  answerKey,
  answerSlot,
  type BaseParams,
  baseParams,
  type CountRow,
  countsOf,
  groupRows,
  parseParams,
  programFilter,
  type RowSource,
  requireKnownProgram,
  scopeKey,
  windowFilter,
} from "./common";

/** Significance level for `regressed`. */
export const RELEASE_ALPHA = 0.05;

export type IssueStatus = "new" | "regressed" | "resolved" | "unchanged";
export type ReleaseIssue = {
  fingerprint: string;
  title: string;
  instruction: string | null;
  errName: string | null;
  outcome: string;
  // The issue's identity as top-issues gives it (the same fingerprint has the same values there).
  failingProgram: string | null;
  errCode: number | null;
  dropClass: string | null;
  preCount: number;
  postCount: number;
  preRate: number;
  postRate: number;
  delta: number;
  pValue: number;
  status: IssueStatus;
};
export type ReleaseInstruction = {
  instruction: string;
  preAttempts: number;
  postAttempts: number;
  preFailureRate: number;
  postFailureRate: number;
  cuP95Pre: number | null;
  cuP95Post: number | null;
  cuP95Shift: number | null;
};
export type DeployRef = {
  slot: number;
  deployedAt: number | null;
  detectedAt: number | null;
  effectiveAt: number;
  authority: string | null;
  /** The repository and commit its verified-build record names; null without one (or before it is read). */
  source?: DeploySource | null;
};
/** A rate's change across the deploy: post − pre, its two-sided two-proportion p-value, and p < RELEASE_ALPHA. */
export type RateChange = { delta: number; pValue: number; significant: boolean };
export type RateName = "landingRate" | "failureRate" | "dropRate" | "preflightRate";
export type ReleaseDiffResponse = {
  program: string;
  window: string;
  deploy: DeployRef;
  previousDeploy: { slot: number; deployedAt: number; source?: DeploySource | null } | null;
  /** The commits between the previous deploy's source and this one's (GitHub compare view), when both are known. */
  compareUrl?: string | null;
  periods: { pre: { since: number; until: number }; post: { since: number; until: number } };
  pre: Rates;
  post: Rates;
  rateChanges: Record<RateName, RateChange>;
  issues: ReleaseIssue[];
  instructions: ReleaseInstruction[];
};

const releaseParams = baseParams.extend({
  // A slot binds as a BIGINT: at most 2^53 - 1 here (u64 slots beyond it were a 500, found by the fuzzer).
  deploy: z
    .union([
      z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      z
        .string()
        .regex(/^\d{1,16}$/, "expected a slot number")
        .refine((text) => Number(text) <= Number.MAX_SAFE_INTEGER, "expected a slot number"),
    ])
    .nullish(),
});
export type ReleaseDiffParams = BaseParams & { deploy?: string | number | null };

const RATE_COUNTS: Record<RateName, keyof Rates> = {
  landingRate: "landed",
  failureRate: "failedOnchain",
  dropRate: "dropped",
  preflightRate: "preflight",
};

/** Whether each outcome rate changed significantly across the deploy (what the web app colours). */
function rateChanges(pre: Rates, post: Rates): Record<RateName, RateChange> {
  const change = (name: RateName): RateChange => {
    const count = RATE_COUNTS[name];
    const pValue = twoProportionPValue(pre[count] as number, pre.attempts, post[count] as number, post.attempts);
    return { delta: post[name] - pre[name], pValue, significant: pValue < RELEASE_ALPHA };
  };
  return {
    landingRate: change("landingRate"),
    failureRate: change("failureRate"),
    dropRate: change("dropRate"),
    preflightRate: change("preflightRate"),
  };
}

/** new: absent before; resolved: absent after; regressed: significantly more frequent; else unchanged. */
export function issueStatus(preCount: number, postCount: number, delta: number, pValue: number): IssueStatus {
  if (preCount === 0 && postCount > 0) return "new";
  if (preCount > 0 && postCount === 0) return "resolved";
  if (delta > 0 && pValue < RELEASE_ALPHA) return "regressed";
  return "unchanged";
}

type DeployRow = {
  program: string;
  slot: number;
  deployed_at: number | null;
  detected_at: number | null;
  effective_at: number;
  authority: string | null;
  previous_slot: number | null;
  previous_at: number | null;
};
type PeriodRow = { program: string; slot: number; win: string; period: string; starts: number; ends: number };
type RateRow = CountRow & { program: string; slot: number; win: string; period: string };
type IssueRow = {
  program: string;
  slot: number;
  win: string;
  fingerprint: string;
  instruction: string | null;
  err_name: string | null;
  outcome: string;
  failing_program: string | null;
  err_code: number | null;
  drop_class: string | null;
  pre_count: number;
  post_count: number;
};
type InstructionRow = {
  program: string;
  slot: number;
  win: string;
  instruction: string;
  pre_attempts: number;
  pre_failed: number;
  post_attempts: number;
  post_failed: number;
  cu_p95_pre: number | null;
  cu_p95_post: number | null;
};

// $1 program (NULL: all), $2 slot (NULL: all), $3 window (NULL: all), $4 scope.
const DEPLOYS_SQL = `
  SELECT program, slot, deployed_at, detected_at, effective_at, authority, previous_slot, previous_at FROM deploys
  WHERE ($1::VARCHAR IS NULL OR program = $1) AND ($2::BIGINT IS NULL OR slot = $2)
  ORDER BY program, slot DESC`;
const PERIODS_SQL = `
  SELECT program, slot, win, period, starts, ends FROM release_periods
  WHERE ($1::VARCHAR IS NULL OR program = $1) AND ($2::BIGINT IS NULL OR slot = $2) AND ($3::VARCHAR IS NULL OR win = $3)`;
const RATES_SQL = `
  SELECT program, slot, win, period, landed, failed_onchain, dropped, preflight FROM release_rates
  WHERE ($1::VARCHAR IS NULL OR program = $1) AND ($2::BIGINT IS NULL OR slot = $2) AND ($3::VARCHAR IS NULL OR win = $3) AND scope = $4`;
const ISSUES_SQL = `
  SELECT program, slot, win, fingerprint, instruction, err_name, outcome, failing_program, err_code, drop_class, pre_count, post_count FROM release_issues
  WHERE ($1::VARCHAR IS NULL OR program = $1) AND ($2::BIGINT IS NULL OR slot = $2) AND ($3::VARCHAR IS NULL OR win = $3) AND scope = $4`;
const INSTRUCTIONS_SQL = `
  SELECT program, slot, win, instruction, pre_attempts, pre_failed, post_attempts, post_failed, cu_p95_pre, cu_p95_post FROM release_instructions
  WHERE ($1::VARCHAR IS NULL OR program = $1) AND ($2::BIGINT IS NULL OR slot = $2) AND ($3::VARCHAR IS NULL OR win = $3) AND scope = $4
  ORDER BY program, slot, win, instruction`;

export async function releaseDiff(ctx: Context, input: ReleaseDiffParams): Promise<ReleaseDiffResponse> {
  const params = parseParams(releaseParams, input);
  const slot = params.deploy === null || params.deploy === undefined ? null : Number(params.deploy);
  const tables = await servingTables(ctx);
  requireKnownProgram(tables, params.program);
  const missing = () =>
    notFound(
      slot === null
        ? `program ${params.program}: no deploy observed yet`
        : `program ${params.program}: no deploy at slot ${slot}`,
    );
  if (params.accountId === null && slot === null) {
    const precomputed = tables.precomputed<ReleaseDiffResponse>("release-diff", params.program, params.window);
    if (precomputed === null) throw missing();
    if (precomputed) return withSources(ctx.paths.root, precomputed);
  }
  const answer = await tables.cached(answerKey("release-diff", { ...params, deploy: slot }), async () => {
    const answers = await releaseDiffAnswers(
      tables,
      { scope: scopeKey(params.accountId), programs: [params.program], windows: [params.window] },
      slot,
    );
    const found = answers.get(answerSlot(params.program, params.window));
    if (!found) throw missing();
    return found;
  });
  return withSources(ctx.paths.root, answer);
}

/** The answer with each deploy's source and the compare link between them (a copy: answers are shared). */
export function withSources(dataDir: string, answer: ReleaseDiffResponse): ReleaseDiffResponse {
  const source = deploySource(dataDir, answer.program, answer.deploy.slot);
  const previous = answer.previousDeploy;
  const previousSource = previous ? deploySource(dataDir, answer.program, previous.slot) : null;
  return {
    ...answer,
    deploy: { ...answer.deploy, source },
    previousDeploy: previous ? { ...previous, source: previousSource } : null,
    compareUrl: compareUrl(previousSource, source),
  };
}

/**
 * The release-diff answer of every listed program × window in one scope, for the deploy at `slot`
 * (null: each program's latest), keyed by answerSlot; null for a program without such a deploy.
 */
export async function releaseDiffAnswers(
  source: RowSource,
  { scope, programs, windows }: AnswerScope,
  slot: number | null = null,
): Promise<Map<string, ReleaseDiffResponse | null>> {
  const program = programFilter(programs);
  const window = windowFilter(windows);
  const deploys = await source.all<DeployRow>(DEPLOYS_SQL, [program, slot]);
  const chosen = new Map<string, DeployRow>();
  for (const deploy of deploys) if (!chosen.has(deploy.program)) chosen.set(deploy.program, deploy); // latest first
  // With one program the deploy's slot narrows the reads; across programs the rows are matched below.
  const slotFilter = programs.length === 1 ? (chosen.get(programs[0])?.slot ?? null) : null;
  const answers = new Map<string, ReleaseDiffResponse | null>();
  if (programs.length === 1 && slotFilter === null) {
    for (const w of windows) answers.set(answerSlot(programs[0], w), null);
    return answers;
  }
  const filter = [program, slotFilter, window];
  const bySlot = <T extends { program: string; slot: number; win: string }>(rows: T[]) =>
    groupRows(
      rows.filter((row) => chosen.get(row.program)?.slot === row.slot),
      (row) => answerSlot(row.program, row.win),
    );
  const periods = bySlot(await source.all<PeriodRow>(PERIODS_SQL, filter));
  const rateRows = bySlot(await source.all<RateRow>(RATES_SQL, [...filter, scope]));
  const issueRows = bySlot(await source.all<IssueRow>(ISSUES_SQL, [...filter, scope]));
  const instructionRows = bySlot(await source.all<InstructionRow>(INSTRUCTIONS_SQL, [...filter, scope]));
  for (const name of programs) {
    const deploy = chosen.get(name);
    for (const w of windows) {
      const key = answerSlot(name, w);
      answers.set(
        key,
        deploy
          ? diffAnswer(
              name,
              w,
              deploy,
              periods.get(key) ?? [],
              rateRows.get(key) ?? [],
              issueRows.get(key) ?? [],
              instructionRows.get(key) ?? [],
            )
          : null,
      );
    }
  }
  return answers;
}

function diffAnswer(
  program: string,
  window: string,
  deploy: DeployRow,
  periodRows: PeriodRow[],
  rateRows: RateRow[],
  issueRows: IssueRow[],
  instructionRows: InstructionRow[],
): ReleaseDiffResponse {
  const pre = rates(countsOf(rateRows.find((r) => r.period === "pre")));
  const post = rates(countsOf(rateRows.find((r) => r.period === "post")));
  const issues = issueRows.map((row): ReleaseIssue => {
    const preRate = ratio(row.pre_count, pre.attempts);
    const postRate = ratio(row.post_count, post.attempts);
    const delta = postRate - preRate;
    const pValue = twoProportionPValue(row.pre_count, pre.attempts, row.post_count, post.attempts);
    return {
      fingerprint: row.fingerprint,
      title: issueTitleOfRow(row),
      instruction: row.instruction,
      errName: row.err_name,
      outcome: row.outcome,
      failingProgram: row.failing_program,
      errCode: row.err_code,
      dropClass: row.drop_class,
      preCount: row.pre_count,
      postCount: row.post_count,
      preRate,
      postRate,
      delta,
      pValue,
      status: issueStatus(row.pre_count, row.post_count, delta, pValue),
    };
  });
  const rank: Record<IssueStatus, number> = { new: 0, regressed: 1, resolved: 2, unchanged: 3 };
  issues.sort(
    (a, b) =>
      rank[a.status] - rank[b.status] ||
      Math.abs(b.delta) - Math.abs(a.delta) ||
      a.fingerprint.localeCompare(b.fingerprint),
  );
  const periodOf = (name: string) => {
    const row = periodRows.find((p) => p.period === name);
    return { since: row?.starts ?? deploy.effective_at, until: row?.ends ?? deploy.effective_at };
  };
  return {
    program,
    window,
    deploy: {
      slot: deploy.slot,
      deployedAt: deploy.deployed_at,
      detectedAt: deploy.detected_at,
      effectiveAt: deploy.effective_at,
      authority: deploy.authority,
    },
    previousDeploy:
      deploy.previous_slot === null ? null : { slot: deploy.previous_slot, deployedAt: deploy.previous_at! },
    periods: { pre: periodOf("pre"), post: periodOf("post") },
    pre,
    post,
    rateChanges: rateChanges(pre, post),
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
}
