// Computes one Landing Score snapshot from the lake: counts sends per program in the window, picks
// each program's sample rate, samples and joins envelopes with resolutions in DuckDB (sql/), applies
// the account cap, then finishes the small per-(program, account, provider, outcome) table here:
// counts, rates, Wilson intervals, provider mix, trust fields, listing rules and rank.

import type { DuckDBConnection } from "@duckdb/node-api";
import { plainRow, readAgainAfterSwap } from "../../lake/duckdb";
import { listPartitions } from "../../lake/partitions";
import type { DataPaths } from "../../lake/paths";
import { isBase58Address } from "../../shared/base58";
import { ratio, wilson } from "../../shared/stats";
import { methodologyText } from "./methodology";
import { MAX_SAMPLED_SENDS, MINIMUM_SENDS, RESOLUTION_GRACE_MS, SCHEMA_VERSION, WINDOW_DAYS } from "./params";
import { sampleRateFor, sampleThreshold } from "./sample";
import type { ProgramNames, ProviderShare, ScoreRow, Snapshot } from "./snapshot";
import { scoreSql } from "./sql";
import { accountKeep } from "./trust";
import { daysBetween, type ScoreWindow, scoreWindow } from "./window";

export type ScoreOptions = {
  date: string;
  minimumAccounts: number;
  /**
   * LANDING_SCORE_MAX_ACCOUNT_SHARE: a cap on every program. Unset: the public figures' cap
   * (`publicMaxAccountShare`), only where more than 1 ÷ that many accounts report a program.
   */
  maxAccountShare: number | undefined;
  /** PUBLIC_MAX_ACCOUNT_SHARE (default 1: none). */
  publicMaxAccountShare?: number;
  /** PUBLIC_UNCONFIRMED_PER_CONFIRMED: drops one account may count per confirmed send (default: no limit). */
  unconfirmedPerConfirmed?: number;
  names: ProgramNames;
  /** Methodology parameters; tests lower them to exercise sampling on small lakes. */
  maxSampledSends?: number;
  minimumSends?: number;
};

export type ScoreDetails = {
  programsWithSends: number;
  sampledSends: number;
  countedSends: number;
  listed: number;
  belowMinimumSends: number;
  belowMinimumAccounts: number;
  cappedAccounts: number;
  /** Accounts whose drops of a program were limited by their confirmed sends there. */
  dropLimitedAccounts: number;
};

/** How the poisoning guard applies in one run (docs/publishing.md, "Poisoning"). */
type Guard = { maxAccountShare: number; capEveryProgram: boolean; unconfirmedPerConfirmed: number };

type Cell = { program: string; account_id: string; rpc_label: string; outcome: string; sends: number };
type Tally = {
  landed: number;
  failedOnchain: number;
  dropped: number;
  accounts: Map<string, number>;
  providers: Map<string, number>;
};

export async function computeLandingScore(
  paths: DataPaths,
  connect: () => Promise<DuckDBConnection>,
  options: ScoreOptions,
): Promise<{ snapshot: Snapshot; details: ScoreDetails }> {
  const maxSampledSends = options.maxSampledSends ?? MAX_SAMPLED_SENDS;
  const minimumSends = options.minimumSends ?? MINIMUM_SENDS;
  const window = scoreWindow(options.date);
  // Compaction may swap a listed part away between the listing and DuckDB opening it; the swapped
  // partition holds the same rows, so the whole read is made again over a fresh listing.
  const guard: Guard = {
    maxAccountShare: options.maxAccountShare ?? options.publicMaxAccountShare ?? 1,
    capEveryProgram: options.maxAccountShare !== undefined,
    unconfirmedPerConfirmed: options.unconfirmedPerConfirmed ?? Number.POSITIVE_INFINITY,
  };
  const read = await readAgainAfterSwap(() => readSampledCells(paths, connect, window, maxSampledSends, guard));
  const { cells, rates } = read;
  // A window whose sample holds one account is that account's own data: nothing is weighted.
  const maxAccountShare = read.singleAccount && !guard.capEveryProgram ? 1 : guard.maxAccountShare;
  const details: ScoreDetails = {
    ...read.details,
    countedSends: 0,
    listed: 0,
    belowMinimumSends: 0,
    belowMinimumAccounts: 0,
  };

  const tallies = tally(cells);
  details.countedSends = cells.reduce((sum, c) => sum + c.sends, 0);
  const rows: Omit<ScoreRow, "rank">[] = [];
  for (const [program, t] of tallies) {
    const sends = t.landed + t.failedOnchain + t.dropped;
    if (t.accounts.size < options.minimumAccounts) {
      details.belowMinimumAccounts++;
      continue;
    }
    if (sends < minimumSends) {
      details.belowMinimumSends++;
      continue;
    }
    rows.push({
      program,
      name: options.names[program] ?? null,
      sampleRate: rates.get(program)!,
      sends,
      landed: t.landed,
      failedOnchain: t.failedOnchain,
      dropped: t.dropped,
      landingRate: ratio(t.landed, sends),
      ci95: wilson(t.landed, sends),
      dropRate: ratio(t.dropped, sends),
      providers: providerMix(t.providers, sends),
      accounts: t.accounts.size,
      topAccountShare: ratio(Math.max(...t.accounts.values()), sends),
    });
  }
  rows.sort(
    (a, b) =>
      b.ci95[0] - a.ci95[0] || b.landingRate - a.landingRate || b.sends - a.sends || (a.program < b.program ? -1 : 1),
  );
  details.listed = rows.length;

  const snapshot: Snapshot = {
    schemaVersion: SCHEMA_VERSION,
    sample: true,
    date: options.date,
    window: { since: window.since, until: window.until, resolvedBefore: window.resolvedBefore },
    methodology: methodologyText({
      windowDays: WINDOW_DAYS,
      graceMinutes: RESOLUTION_GRACE_MS / 60_000,
      maxSampledSends,
      minimumSends,
      minimumAccounts: options.minimumAccounts,
      maxAccountShare,
      capEveryProgram: guard.capEveryProgram,
      unconfirmedPerConfirmed: read.singleAccount ? Number.POSITIVE_INFINITY : guard.unconfirmedPerConfirmed,
    }),
    minimumSends,
    sampling: { method: "md5(attempt_id) < sampleRate * 2^64", maxSampledSends },
    trust: { minimumAccounts: options.minimumAccounts, maxAccountShare },
    programs: rows.map((row, k) => ({ rank: k + 1, ...row })),
  };
  return { snapshot, details };
}

type SampledCells = {
  cells: Cell[];
  rates: Map<string, number>;
  /** Whether the window's sampled sends come from one account (or none). */
  singleAccount: boolean;
  details: Pick<ScoreDetails, "programsWithSends" | "sampledSends" | "cappedAccounts" | "dropLimitedAccounts">;
};

/** Lists the window's parts, then samples, joins and caps them in DuckDB: the per-cell send counts. */
async function readSampledCells(
  paths: DataPaths,
  connect: () => Promise<DuckDBConnection>,
  window: ScoreWindow,
  maxSampledSends: number,
  guard: Guard,
): Promise<SampledCells> {
  const files = windowFiles(paths, window);
  const result: SampledCells = {
    cells: [],
    rates: new Map(),
    singleAccount: true,
    details: { programsWithSends: 0, sampledSends: 0, cappedAccounts: 0, dropLimitedAccounts: 0 },
  };
  if (files.envelopes.length === 0) return result;
  const connection = await connect();
  const all = async <T>(sql: string) =>
    (await connection.runAndReadAll(sql)).getRowObjectsJS().map((row) => plainRow(row) as T);
  try {
    const sendCounts = await all<{ program: string; sends: number }>(
      scoreSql("send_counts", { envelopeFiles: files.envelopes, ...window }),
    );
    result.details.programsWithSends = sendCounts.length;
    await connection.run("CREATE OR REPLACE TEMP TABLE sample_rates (program VARCHAR, threshold VARCHAR)");
    const appender = await connection.createAppender("sample_rates");
    for (const { program, sends } of sendCounts) {
      const rate = sampleRateFor(sends, maxSampledSends);
      result.rates.set(program, rate);
      const threshold = sampleThreshold(rate);
      appender.appendVarchar(program);
      if (threshold === null) appender.appendNull();
      else appender.appendVarchar(threshold);
      appender.endRow();
    }
    appender.closeSync();
    if (files.resolutions.length === 0 || sendCounts.length === 0) return result;
    await connection.run(
      scoreSql("sampled_sends", { envelopeFiles: files.envelopes, resolutionFiles: files.resolutions, ...window }),
    );
    await connection.run(scoreSql("uncapped_sends"));
    let sampled = await all<Cell>(scoreSql("send_cells"));
    result.details.sampledSends = sampled.reduce((sum, c) => sum + c.sends, 0);
    result.singleAccount = new Set(sampled.map((c) => c.account_id)).size <= 1;
    if (result.singleAccount) return { ...result, cells: sampled };
    const dropCaps = accountDropCaps(sampled, guard.unconfirmedPerConfirmed);
    result.details.dropLimitedAccounts = dropCaps.length;
    if (dropCaps.length > 0) {
      await appendCaps(connection, "drop_caps", dropCaps);
      await connection.run(scoreSql("limited_drops"));
      await connection.run(scoreSql("uncapped_sends"));
      sampled = await all<Cell>(scoreSql("send_cells"));
    }
    const caps = accountCaps(sampled, guard.maxAccountShare, guard.capEveryProgram);
    result.details.cappedAccounts = caps.length;
    result.cells = sampled;
    if (caps.length > 0) {
      await appendCaps(connection, "account_caps", caps);
      await connection.run(scoreSql("capped_sends"));
      result.cells = await all<Cell>(scoreSql("send_cells"));
    }
    return result;
  } finally {
    connection.closeSync();
  }
}

/** Envelope parts of the window's days; resolution parts from its first day to the grace cut-off's day. */
function windowFiles(paths: DataPaths, window: ScoreWindow) {
  const envelopeDays = daysBetween(window.since, window.until - 1);
  const resolutionDays = daysBetween(window.since, window.resolvedBefore - 1);
  const pick = (dataset: "envelopes" | "resolutions", days: string[]) => {
    const out: string[] = [];
    for (const [program, byDay] of [...listPartitions(paths.dataset(dataset))].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )) {
      if (!isBase58Address(program)) continue;
      for (const day of days) out.push(...(byDay.get(day) ?? []));
    }
    return out;
  };
  return { envelopes: pick("envelopes", envelopeDays), resolutions: pick("resolutions", resolutionDays) };
}

type Cap = { program: string; account: string; keep: number };

/** A temp table (program, account_id, keep) of the caps. */
async function appendCaps(connection: DuckDBConnection, table: string, caps: Cap[]): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${table} (program VARCHAR, account_id VARCHAR, keep BIGINT)`);
  const appender = await connection.createAppender(table);
  for (const cap of caps) {
    appender.appendVarchar(cap.program);
    appender.appendVarchar(cap.account);
    appender.appendBigInt(BigInt(cap.keep));
    appender.endRow();
  }
  appender.closeSync();
}

/** Accounts with more sampled drops of a program than their confirmed sends there allow, with how many each keeps. */
function accountDropCaps(cells: Cell[], unconfirmedPerConfirmed: number): Cap[] {
  if (!Number.isFinite(unconfirmedPerConfirmed)) return [];
  const perAccount = new Map<string, { program: string; account: string; confirmed: number; dropped: number }>();
  for (const c of cells) {
    const key = `${c.program}|${c.account_id}`;
    const counts = perAccount.get(key) ?? { program: c.program, account: c.account_id, confirmed: 0, dropped: 0 };
    if (c.outcome === "dropped") counts.dropped += c.sends;
    else counts.confirmed += c.sends;
    perAccount.set(key, counts);
  }
  const caps: Cap[] = [];
  for (const { program, account, confirmed, dropped } of perAccount.values()) {
    const keep = Math.floor(unconfirmedPerConfirmed * confirmed);
    if (dropped > keep) caps.push({ program, account, keep });
  }
  return caps;
}

/**
 * Accounts above their program's ceiling, with how many sends each keeps: on every program, or
 * (capEveryProgram false) only where more than 1 ÷ maxShare accounts report it (fewer could only be
 * made equal).
 */
function accountCaps(cells: Cell[], maxShare: number, capEveryProgram: boolean): Cap[] {
  if (maxShare >= 1) return [];
  const perProgram = new Map<string, Map<string, number>>();
  for (const c of cells) {
    const accounts = perProgram.get(c.program) ?? new Map<string, number>();
    accounts.set(c.account_id, (accounts.get(c.account_id) ?? 0) + c.sends);
    perProgram.set(c.program, accounts);
  }
  const caps: Cap[] = [];
  for (const [program, accounts] of perProgram) {
    if (!capEveryProgram && accounts.size * maxShare <= 1) continue;
    for (const [account, keep] of accountKeep(accounts, maxShare)) {
      if (keep < accounts.get(account)!) caps.push({ program, account, keep });
    }
  }
  return caps;
}

function tally(cells: Cell[]): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const c of cells) {
    if (c.sends <= 0) continue;
    let t = out.get(c.program);
    if (!t)
      out.set(c.program, (t = { landed: 0, failedOnchain: 0, dropped: 0, accounts: new Map(), providers: new Map() }));
    if (c.outcome === "landed") t.landed += c.sends;
    else if (c.outcome === "failed_onchain") t.failedOnchain += c.sends;
    else if (c.outcome === "dropped") t.dropped += c.sends;
    else continue;
    t.accounts.set(c.account_id, (t.accounts.get(c.account_id) ?? 0) + c.sends);
    t.providers.set(c.rpc_label, (t.providers.get(c.rpc_label) ?? 0) + c.sends);
  }
  return out;
}

function providerMix(providers: Map<string, number>, sends: number): ProviderShare[] {
  return [...providers]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([rpcLabel, n]) => ({ rpcLabel, sends: n, share: ratio(n, sends) }));
}
