// Test support for analytics: a generated lake with built serving tables, the lake read back as
// plain rows (joined in TS, independently of the serving SQL), and the analytics routes served
// over loopback HTTP the way app.ts will mount them.

import { type GenerateResult, generateLake } from "../../devkit/generate";
import { type ServingTables, servingTables } from "../../src/analytics/serving/reader";
import { SKETCH_RELATIVE_ERROR } from "../../src/analytics/serving/sketch";
import { buildServingTables } from "../../src/analytics/tables/build";
import { errorResponse, json } from "../../src/api/http";
import { analyticsRoutes } from "../../src/api/routes/analytics";
import type { Context } from "../../src/context";
import { createAccountKey } from "../../src/control";
import { testContext } from "../helpers/context";

export const END_MS = 1_763_700_000_000;
export const DAY = 86_400_000;

export type Row = {
  attempt_id: string;
  account_id: string;
  program: string;
  received_at: number;
  sent_at: number;
  sig: string | null;
  payer: string;
  rpc_label: string;
  rpc_hash: string;
  wallet_adapter: string;
  kind: string;
  outcome: string | null;
  drop_class: string | null;
  instruction: string | null;
  err_code: number | null;
  err_name: string | null;
  failing_program: string | null;
  fingerprint: string | null;
  cu_used: number | null;
  cu_requested: number | null;
  compute_exceeded: boolean | null;
  block_time: number | null;
  resolved_at: number | null;
  /** The slot the client saw before sending (envelope), and the slot the attempt landed in (resolution). */
  sent_slot: number | null;
  slot: number | null;
  /** How many attempts a decoded row stands for (lake version 2: 1 / rate for a sampled success, 1 for a failure). */
  sample_weight: number | null;
};

export type World = {
  ctx: Context & { dispose(): void };
  generated: GenerateResult;
  keys: { a: string; b: string };
  accounts: { a: string; b: string };
  rows: Row[];
  baseUrl: string;
  stop(): Promise<void>;
};

export async function makeWorld(envelopes = 20_000): Promise<World> {
  const ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => END_MS;
  const a = createAccountKey(ctx.control, "team-a", "read", END_MS);
  const b = createAccountKey(ctx.control, "team-b", "read", END_MS);
  const generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes,
    programs: 4,
    days: 30,
    seed: 7,
    endMs: END_MS,
    accounts: [a.record.accountId, b.record.accountId],
    control: ctx.control,
    threads: 2,
  });
  await buildServingTables(ctx);
  const rows = await readLakeRows(ctx);
  const server = serveRoutes(ctx);
  return {
    ctx,
    generated,
    rows,
    keys: { a: a.key, b: b.key },
    accounts: { a: a.record.accountId, b: b.record.accountId },
    baseUrl: `http://127.0.0.1:${server.port}`,
    async stop() {
      await server.stop(true);
      ctx.dispose();
    },
  };
}

/** Envelopes and resolutions as plain objects, joined by attempt_id in TypeScript. */
export async function readLakeRows(ctx: Context): Promise<Row[]> {
  const lake = ctx.paths.lake;
  const envelopes = await ctx.duck.all<Record<string, unknown>>(
    `SELECT * EXCLUDE (simulation_logs) FROM read_parquet('${lake}/envelopes/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})`,
  );
  const resolutions = await ctx.duck.all<Record<string, unknown>>(
    `SELECT * EXCLUDE (log_messages) FROM read_parquet('${lake}/resolutions/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})`,
  );
  const byAttempt = new Map(resolutions.map((r) => [r.attempt_id as string, r]));
  return envelopes.map((e) => {
    const r = byAttempt.get(e.attempt_id as string);
    return {
      ...(e as object),
      outcome: (r?.outcome as string) ?? (e.kind === "preflight" ? "preflight" : null),
      drop_class: (r?.drop_class as string) ?? null,
      instruction: (r?.instruction as string) ?? null,
      err_code: (r?.err_code as number) ?? null,
      err_name: (r?.err_name as string) ?? null,
      failing_program: (r?.failing_program as string) ?? null,
      fingerprint: (r?.fingerprint as string) ?? null,
      cu_used: (r?.cu_used as number) ?? null,
      cu_requested: (r?.cu_requested as number) ?? null,
      compute_exceeded: (r?.compute_exceeded as boolean) ?? null,
      block_time: (r?.block_time as number) ?? null,
      resolved_at: (r?.resolved_at as number) ?? null,
      sent_slot: e.sent_slot === null || e.sent_slot === undefined ? null : Number(e.sent_slot),
      slot: r?.slot === null || r?.slot === undefined ? null : Number(r.slot),
      sample_weight: (r?.sample_weight as number) ?? null,
    } as Row;
  });
}

/** The routes on Bun.serve: `:name` path parameters, errors rendered like app.ts does. */
export function serveRoutes(ctx: Context) {
  const routes = analyticsRoutes(ctx).map((route) => ({
    ...route,
    pattern: new RegExp(`^${route.path.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
  }));
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      for (const route of routes) {
        const match = route.pattern.exec(url.pathname);
        if (!match) continue;
        try {
          const params = Object.fromEntries(
            Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
          );
          return json(await route.handler(request, url, params, "test"));
        } catch (error) {
          return errorResponse(error, ctx.logger);
        }
      }
      return json({ error: { code: "not_found", message: "no such route" } }, 404);
    },
  });
}

export async function get(world: World, path: string, key?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(world.baseUrl + path, { headers: key ? { "x-api-key": key } : {} });
  return { status: response.status, body: await response.json() };
}

/**
 * A quantile from the serving tables' sketch against the exact nearest-rank value: within the
 * documented relative error, after rounding to a whole unit (serving/sketch.ts, docs/api.md).
 */
export function expectNearQuantile(actual: number, exact: number): void {
  const error = Math.abs(actual - exact);
  if (error > SKETCH_RELATIVE_ERROR * Math.abs(exact) + 0.5)
    throw new Error(`quantile ${actual} is not within ${SKETCH_RELATIVE_ERROR} of ${exact}`);
}

/** Nearest-rank quantile (what DuckDB's quantile_disc returns). */
export function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/** Nearest rank over weighted values: the smallest value whose cumulative weight reaches q of the total (docs/lake.md). */
export function weightedNearestRank(values: { value: number; weight: number }[], q: number): number {
  const sorted = [...values].sort((x, y) => x.value - y.value);
  const total = sorted.reduce((sum, v) => sum + v.weight, 0);
  let running = 0;
  for (const v of sorted) {
    running += v.weight;
    if (running >= q * total) return v.value;
  }
  return sorted[sorted.length - 1].value;
}

/** A decoded row's compute units and the attempts it stands for. */
export const weightedCu = (r: Row) => ({ value: r.cu_used!, weight: r.sample_weight ?? 1 });

export const inWindow = (row: Row, lengthMs: number) =>
  row.received_at >= END_MS - lengthMs && row.received_at <= END_MS;

/** The serving tables once this process has switched to `version` (the switch happens in the background). */
export async function untilVersion(ctx: Context, version: number, timeoutMs = 60_000): Promise<ServingTables> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tables = await servingTables(ctx);
    if (tables.version === version || Date.now() > deadline) return tables;
    await Bun.sleep(25);
  }
}

/** payerBotScore (bot-v2, docs/api.md) computed independently from the payer's raw rows of the 30-day window. */
export function referenceBotScore(all: Row[], payer: string): number {
  const rows = all.filter((r) => r.payer === payer && r.received_at >= END_MS - 30 * DAY && r.received_at <= END_MS);
  const hours = new Set(rows.map((r) => Math.floor(r.received_at / 3_600_000))).size;
  const rate = rows.length / Math.max(hours, 1);
  const times = rows.map((r) => r.sent_at).sort((a, b) => a - b);
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  const q1 = interpolatedQuantile(gaps, 0.25);
  const q3 = interpolatedQuantile(gaps, 0.75);
  const dispersion = gaps.length >= 5 && q1 + q3 > 0 ? (q3 - q1) / (q3 + q1) : null;
  const scripted =
    rows.filter((r) =>
      [
        "",
        "unknown",
        "none",
        "keypair",
        "keypair-wallet",
        "local-keypair",
        "node",
        "cli",
        "server",
        "script",
        "bot",
      ].includes(r.wallet_adapter.toLowerCase()),
    ).length / rows.length;
  const resolvedRows = rows.filter((r) => r.outcome !== null);
  const failures = resolvedRows.length
    ? resolvedRows.filter((r) => r.outcome === "failed_onchain" || r.outcome === "preflight").length /
      resolvedRows.length
    : 0;
  const programs = new Set(rows.map((r) => r.program)).size;
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  return (
    0.1 * clamp((Math.log10(rate) - Math.log10(6)) / (Math.log10(360) - Math.log10(6))) +
    0.3 * (dispersion === null ? 0 : clamp((0.5 - dispersion) / 0.35)) +
    0.4 * scripted +
    0.1 * clamp((failures - 0.2) / 0.6) +
    0.1 * clamp((programs - 2) / 6)
  );
}

/** Linear interpolation between closest ranks (DuckDB's quantile_cont). */
function interpolatedQuantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lo = Math.floor(position);
  const hi = Math.ceil(position);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (position - lo);
}

/** The payer segment of a score (docs/api.md): human < 0.3 ≤ mixed < 0.7 ≤ bot. */
export const segmentOf = (score: number) => (score < 0.3 ? "human" : score < 0.7 ? "mixed" : "bot");
