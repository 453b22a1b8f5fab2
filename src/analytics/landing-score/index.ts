// The Landing Score: a nightly, sampled, public ranking of programs by how reliably their sent
// transactions land (docs/publishing.md). computeLandingScore reads the lake;
// publishSnapshot writes the files; runLandingScore is what the job, the CLI and the scheduler call.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROGRAM_NAMES } from "../../chain/decode";
import type { Context } from "../../context";
import { badRequest } from "../../shared/errors";
import { computeLandingScore, type ScoreDetails } from "./compute";
import { publishSnapshot } from "./publish";
import { type ProgramNames, programNamesSchema } from "./snapshot";
import { checkDate, lastCompleteDay } from "./window";

export type LandingScoreResult = { date: string; dir: string; files: string[]; latest: boolean } & ScoreDetails & {
    seconds: number;
  };

/** Where the files go: <TXRAY_SNAPSHOTS_DIR>/landing-score. */
export const landingScoreDir = (snapshotsDir: string) => join(snapshotsDir, "landing-score");

/**
 * Computes and publishes the snapshot of `date` (default: the last complete UTC day by the
 * context's clock). The result depends on the date and the lake only.
 */
export async function runLandingScore(
  ctx: Context,
  options: { date?: string; maxSampledSends?: number; minimumSends?: number } = {},
): Promise<LandingScoreResult> {
  const started = performance.now();
  const date = options.date ?? lastCompleteDay(ctx.clock());
  const problem = checkDate(date, ctx.clock());
  if (problem) throw badRequest(problem);
  const compute = () =>
    computeLandingScore(ctx.paths, () => ctx.duck.connect(), {
      date,
      minimumAccounts: ctx.config.LANDING_SCORE_MIN_ACCOUNTS,
      maxAccountShare: ctx.config.LANDING_SCORE_MAX_ACCOUNT_SHARE,
      publicMaxAccountShare: ctx.config.PUBLIC_MAX_ACCOUNT_SHARE,
      unconfirmedPerConfirmed: ctx.config.PUBLIC_UNCONFIRMED_PER_CONFIRMED,
      // Well-known programs read by the names the web app shows; snapshots/programs.json names the rest (and wins).
      names: { ...PROGRAM_NAMES, ...readProgramNames(ctx.config.snapshotsDir) },
      maxSampledSends: options.maxSampledSends,
      minimumSends: options.minimumSends,
    });
  let computed: Awaited<ReturnType<typeof compute>>;
  try {
    computed = await compute();
  } catch (error) {
    // Compaction swaps a partition's directory atomically; a run that listed the old parts just
    // before finds them gone (docs/lake.md). Listing again sees the new ones: try once more.
    if (!/no files found|no such file|not found|cannot open file/i.test(String((error as Error).message))) throw error;
    ctx.logger.warn("landing-score: lake parts changed while reading; listing them again", {
      error: (error as Error).message,
    });
    computed = await compute();
  }
  const { snapshot, details } = computed;
  const published = await publishSnapshot(landingScoreDir(ctx.config.snapshotsDir), snapshot, () => ctx.duck.connect());
  return { date, ...published, ...details, seconds: Math.round(performance.now() - started) / 1000 };
}

/** Display names from <TXRAY_SNAPSHOTS_DIR>/programs.json (optional; a malformed file is an error). */
export function readProgramNames(snapshotsDir: string): ProgramNames {
  const file = join(snapshotsDir, "programs.json");
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  const result = programNamesSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(
      `${file}: ${issue.path.join(".") || "(root)"}: ${issue.message} (expected { "<program id>": "<display name>" })`,
    );
  }
  return result.data;
}

/** A nightly run is missing when the last complete day has no snapshot yet (the scheduler's catch-up). */
export function nightlySnapshotMissing(ctx: Context): boolean {
  return !existsSync(join(landingScoreDir(ctx.config.snapshotsDir), `${lastCompleteDay(ctx.clock())}.json`));
}

export { computeLandingScore, type ScoreDetails, type ScoreOptions } from "./compute";
export { renderPage } from "./html";
export {
  MAX_SAMPLED_SENDS,
  MINIMUM_SENDS,
  NIGHTLY_AT_MS,
  RESOLUTION_GRACE_MS,
  SCHEMA_VERSION,
  WINDOW_DAYS,
} from "./params";
export { publishSnapshot, snapshotJson } from "./publish";
export { sampleRateFor, sampleThreshold } from "./sample";
export { type ProgramNames, type ScoreRow, type Snapshot, scoreRowSchema, snapshotSchema } from "./snapshot";
export { accountCeiling } from "./trust";
export { checkDate, lastCompleteDay, scoreWindow } from "./window";
