// Figures that are always possible (docs/api.md#invariants), on every analytical route, in both
// scopes and every window, over generated worlds of a few seeds and sizes, one of them with client
// clocks ahead of the chain. Each answer is walked generically: rates and shares in [0, 1],
// intervals around their rate, quantiles ordered and within their data's range, durations never
// negative, counts whole and adding up; then the figures a sender sets exactly (requested compute
// units) are compared with the lake's values.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import { buildServingTables } from "../../src/analytics/tables/build";
import { MAX_SLOTS_TO_LAND } from "../../src/analytics/tables/rollups";
import { WINDOW_NAMES } from "../../src/analytics/windows";
import type { Context } from "../../src/context";
import { summarize, summaryText } from "../../src/contract";
import { createAccountKey } from "../../src/control";
import { testContext } from "../helpers/context";
import { END_MS, readLakeRows, serveRoutes } from "./support";

type WorldSpec = { name: string; seed: number; envelopes: number; programs: number; clientAheadMs: number };

const SPECS: WorldSpec[] = [
  { name: "small", seed: 3, envelopes: 4_000, programs: 3, clientAheadMs: 0 },
  { name: "larger", seed: 19, envelopes: 12_000, programs: 4, clientAheadMs: 0 },
  { name: "clients ahead of the chain", seed: 5, envelopes: 6_000, programs: 3, clientAheadMs: 4_000 },
];

type InvariantWorld = {
  spec: WorldSpec;
  ctx: Context & { dispose(): void };
  generated: GenerateResult;
  key: string;
  baseUrl: string;
  stop(): Promise<void>;
};

/** Rewrites a column of every Parquet file under `dir` by an SQL expression. */
async function rewriteColumn(ctx: Context, dir: string, column: string, expression: string): Promise<void> {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at)) {
      const path = join(at, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".parquet")) files.push(path);
    }
  };
  walk(dir);
  for (const file of files) {
    await ctx.duck.run(
      `COPY (SELECT * REPLACE (${expression} AS ${column}) FROM read_parquet('${file}', hive_partitioning = false)) TO '${file}.shifted' (FORMAT parquet)`,
    );
    renameSync(`${file}.shifted`, file);
  }
}

/**
 * Client clocks ahead of the chain's: every envelope's `sent_at` later by `aheadMs`, and for the
 * last program, the chain's block times two minutes earlier than its attempts' reports arrived too
 * (as if clients and server both ran ahead), so none of its times to land can be known.
 */
async function shiftClocks(ctx: Context, aheadMs: number, unknownProgram: string): Promise<void> {
  await rewriteColumn(ctx, join(ctx.paths.lake, "envelopes"), "sent_at", `sent_at + to_milliseconds(${aheadMs})`);
  await rewriteColumn(
    ctx,
    join(ctx.paths.lake, "resolutions", `program=${unknownProgram}`),
    "block_time",
    "block_time - to_milliseconds(120000)",
  );
}

async function makeInvariantWorld(spec: WorldSpec): Promise<InvariantWorld> {
  const ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => END_MS;
  const a = createAccountKey(ctx.control, "team-a", "read", END_MS);
  const b = createAccountKey(ctx.control, "team-b", "read", END_MS);
  const generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: spec.envelopes,
    programs: spec.programs,
    days: 30,
    seed: spec.seed,
    endMs: END_MS,
    accounts: [a.record.accountId, b.record.accountId],
    control: ctx.control,
    threads: 2,
  });
  if (spec.clientAheadMs > 0) await shiftClocks(ctx, spec.clientAheadMs, generated.programs.at(-1)!);
  await buildServingTables(ctx);
  const server = serveRoutes(ctx);
  return {
    spec,
    ctx,
    generated,
    key: a.key,
    baseUrl: `http://127.0.0.1:${server.port}`,
    async stop() {
      await server.stop(true);
      ctx.dispose();
    },
  };
}

async function answer(world: InvariantWorld, path: string, scoped: boolean): Promise<any> {
  const url = `${world.baseUrl}${path}${path.includes("?") ? "&" : "?"}${scoped ? "scope=account" : ""}`;
  const response = await fetch(url, { headers: scoped ? { "x-api-key": world.key } : {} });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const COUNT_FIELDS = new Set([
  "attempts",
  "landed",
  "failedOnchain",
  "dropped",
  "preflight",
  "pending",
  "count",
  "count7d",
  "wallets",
  "samples",
  "measured",
  "exceeded",
  "preCount",
  "postCount",
  "preAttempts",
  "postAttempts",
]);
const isRateName = (name: string) => /(^rate$|Rate$|^share$|Share$|^pValue$|^confidence$)/.test(name);
const isNumber = (value: unknown): value is number => typeof value === "number";

/** Every broken invariant of an answer, as `path: what`. */
export function violations(value: unknown, path = "$"): string[] {
  const found: string[] = [];
  const visit = (node: unknown, at: string, name: string) => {
    if (isNumber(node) && !Number.isFinite(node)) found.push(`${at}: ${node} is not finite`);
    if (Array.isArray(node)) {
      if (name === "ci95" || name.endsWith("Rate")) checkInterval(node, at);
      for (const [i, item] of node.entries()) visit(item, `${at}[${i}]`, name);
      return;
    }
    if (node === null || typeof node !== "object") {
      if (!isNumber(node)) return;
      if (isRateName(name) && (node < 0 || node > 1)) found.push(`${at}: rate ${node} outside [0, 1]`);
      if (name.endsWith("Ms") && node < 0) found.push(`${at}: duration ${node} is negative`);
      if (name.endsWith("Slots") && (node < 0 || !Number.isInteger(node) || node > MAX_SLOTS_TO_LAND))
        found.push(`${at}: slots ${node} is not a whole number in [0, ${MAX_SLOTS_TO_LAND}]`);
      if (COUNT_FIELDS.has(name) && (node < 0 || !Number.isInteger(node)))
        found.push(`${at}: count ${node} is not a whole number ≥ 0`);
      return;
    }
    const record = node as Record<string, unknown>;
    checkQuantiles(record, at);
    checkCounts(record, at);
    for (const [key, child] of Object.entries(record)) {
      // A duration's quantiles are durations too.
      const childName = /(Ms|Slots)$/.test(name) && /^(p\d+|max|min)$/.test(key) ? name : key;
      visit(child, `${at}.${key}`, childName);
    }
  };
  const checkInterval = (interval: unknown[], at: string) => {
    if (interval.length !== 2 || !interval.every(isNumber)) return;
    const [lo, hi] = interval;
    if (!(lo >= 0 && lo <= hi && hi <= 1)) found.push(`${at}: interval [${lo}, ${hi}] is not within [0, 1] in order`);
  };
  const checkQuantiles = (record: Record<string, unknown>, at: string) => {
    if (!("p50" in record) && !("p95" in record)) return;
    const { p50, p95, max, min } = record;
    if ((p50 === null) !== (p95 === null)) found.push(`${at}: p50 ${p50} and p95 ${p95} are not both known`);
    const ordered = [min, p50, p95, max].filter(isNumber);
    for (let i = 1; i < ordered.length; i++) {
      if (ordered[i - 1] > ordered[i]) {
        found.push(`${at}: quantiles out of order ${JSON.stringify({ min, p50, p95, max })}`);
        break;
      }
    }
  };
  const checkCounts = (record: Record<string, unknown>, at: string) => {
    const { attempts, landed, failedOnchain, dropped, preflight } = record;
    if ([attempts, landed, failedOnchain, dropped, preflight].every(isNumber)) {
      const sum = (landed as number) + (failedOnchain as number) + (dropped as number) + (preflight as number);
      if (sum !== attempts) found.push(`${at}: outcomes add up to ${sum}, not attempts ${attempts}`);
      for (const [rate, count] of [
        ["landingRate", landed],
        ["failureRate", failedOnchain],
        ["dropRate", dropped],
        ["preflightRate", preflight],
      ] as const) {
        const value = record[rate];
        const expected = (attempts as number) === 0 ? 0 : (count as number) / (attempts as number);
        if (isNumber(value) && Math.abs(value - expected) > 1e-9)
          found.push(`${at}.${rate}: ${value} is not ${count} / ${attempts}`);
      }
    } else if (isNumber(attempts) && isNumber(dropped) && dropped > attempts) {
      found.push(`${at}: dropped ${dropped} of ${attempts} attempts`);
    }
    if (isNumber(record.exceeded) && isNumber(record.samples) && record.exceeded > record.samples)
      found.push(`${at}: exceeded ${record.exceeded} of ${record.samples} samples`);
    const rate = record.rate ?? record.dropRate;
    const interval = record.ci95;
    if (isNumber(rate) && Array.isArray(interval) && interval.every(isNumber)) {
      if (rate < interval[0] - 1e-12 || rate > interval[1] + 1e-12)
        found.push(`${at}: rate ${rate} outside its interval [${interval}]`);
    }
  };
  visit(value, path, "");
  return found;
}

/** Where a route's parts must add up to its whole: baseline's providers, top-issues' shares, ecosystem's programs. */
export function partsViolations(path: string, body: any): string[] {
  const found: string[] = [];
  const sum = (items: any[], field: string) => items.reduce((total, item) => total + item[field], 0);
  if (path.startsWith("/v1/baseline/")) {
    for (const field of ["attempts", "landed", "failedOnchain", "dropped", "preflight"]) {
      const parts = sum(body.providers, field);
      if (parts !== body.rates[field]) found.push(`providers' ${field} add up to ${parts}, not ${body.rates[field]}`);
    }
    if (body.rates.attempts > body.ecosystem.attempts)
      found.push(`program's attempts ${body.rates.attempts} above the ecosystem's ${body.ecosystem.attempts}`);
  }
  if (path.startsWith("/v1/top-issues/")) {
    for (const [segment, issues] of Object.entries(body.segments as Record<string, any[]>)) {
      const shares = sum(issues, "share");
      if (shares > 1 + 1e-9) found.push(`${segment} shares add up to ${shares}`);
      for (const issue of issues) {
        if (issue.count > issue.count7d && path.includes("window=1d"))
          found.push(`${issue.fingerprint}: ${issue.count} in 1d but ${issue.count7d} in 7d`);
      }
    }
  }
  if (path.startsWith("/v1/ecosystem")) {
    // Every program is listed (fewer than the default limit of 50): their window's counts are the whole's.
    for (const field of ["attempts", "landed", "failedOnchain", "dropped", "preflight"]) {
      const parts = body.programs.reduce((total: number, program: any) => total + program.rates[field], 0);
      if (parts !== body.rates[field]) found.push(`programs' ${field} add up to ${parts}, not ${body.rates[field]}`);
    }
  }
  if (path.startsWith("/v1/provider-report/")) {
    for (const provider of body.providers) {
      if (provider.attempts === 0) found.push(`${provider.rpcLabel}: a provider with no sends`);
    }
  }
  return found.map((v) => `$ ${v}`);
}

/** The routes a world answers, per scope and window: every analytical question. */
async function routePaths(world: InvariantWorld): Promise<{ path: string; scoped: boolean }[]> {
  const { ctx, generated } = world;
  const lake = ctx.paths.lake;
  const wallets = await ctx.duck.all<{ program: string; payer: string }>(
    `SELECT program, arg_max(payer, n) AS payer FROM (SELECT program, payer, count(*) AS n FROM read_parquet('${lake}/envelopes/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}) GROUP BY ALL) GROUP BY program`,
  );
  const paths: { path: string; scoped: boolean }[] = [];
  for (const scoped of [false, true]) {
    for (const window of WINDOW_NAMES) {
      const q = `?window=${window}`;
      if (!scoped) paths.push({ path: `/v1/ecosystem${q}`, scoped });
      for (const program of generated.programs) {
        for (const route of ["baseline", "top-issues", "cu-headroom", "provider-report", "release-diff"])
          paths.push({ path: `/v1/${route}/${program}${q}`, scoped });
        for (const deploy of generated.deploys.filter((d) => d.program === program))
          paths.push({ path: `/v1/release-diff/${program}${q}&deploy=${deploy.slot}`, scoped });
        const wallet = wallets.find((w) => w.program === program);
        if (wallet) paths.push({ path: `/v1/wallet/${program}/${wallet.payer}${q}`, scoped });
      }
    }
  }
  return paths;
}

const worlds: InvariantWorld[] = [];

beforeAll(async () => {
  for (const spec of SPECS) worlds.push(await makeInvariantWorld(spec));
}, 600_000);

afterAll(async () => {
  for (const world of worlds) await world.stop();
});

describe("every answer's figures are possible", () => {
  for (const [index, spec] of SPECS.entries()) {
    test(`${spec.name} world: every route, both scopes, every window`, async () => {
      const world = worlds[index];
      const broken: string[] = [];
      let answers = 0;
      for (const { path, scoped } of await routePaths(world)) {
        const body = await answer(world, path, scoped);
        answers++;
        broken.push(
          ...[...violations(body), ...partsViolations(path, body)].map(
            (v) => `${path}${scoped ? " (account)" : ""} ${v}`,
          ),
        );
        if (path.startsWith("/v1/top-issues/")) {
          const issues = Object.values(body.segments as Record<string, { fingerprint: string }[]>).flat();
          for (const fingerprint of new Set(issues.slice(0, 3).map((i) => i.fingerprint))) {
            const issuePath = `/v1/issue/${encodeURIComponent(fingerprint)}${path.slice(path.indexOf("?"))}`;
            const issue = await answer(world, issuePath, scoped);
            answers++;
            broken.push(...violations(issue).map((v) => `${issuePath}${scoped ? " (account)" : ""} ${v}`));
          }
        }
      }
      expect(answers).toBeGreaterThan(50);
      expect(broken.slice(0, 20)).toEqual([]);
    }, 300_000);
  }
});

describe("figures a sender sets exactly are reported exactly", () => {
  for (const [index, spec] of SPECS.entries()) {
    test(`${spec.name} world: cu-headroom's requested limit is one the senders requested`, async () => {
      const world = worlds[index];
      const lake = world.ctx.paths.lake;
      const requested = await world.ctx.duck.all<{ program: string; instruction: string; cu: number }>(
        `SELECT DISTINCT program, instruction, cu_requested::DOUBLE AS cu FROM read_parquet('${lake}/resolutions/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'})
         WHERE cu_requested IS NOT NULL AND instruction IS NOT NULL`,
      );
      const known = new Set(requested.map((r) => `${r.program}/${r.instruction}/${r.cu}`));
      let checked = 0;
      const inexact: string[] = [];
      for (const scoped of [false, true]) {
        for (const window of WINDOW_NAMES) {
          for (const program of world.generated.programs) {
            const body = await answer(world, `/v1/cu-headroom/${program}?window=${window}`, scoped);
            for (const item of body.instructions) {
              if (item.cuRequestedP50 === null) continue;
              checked++;
              const figure = `${program}/${item.instruction}/${item.cuRequestedP50}`;
              if (!known.has(figure)) inexact.push(`${window}${scoped ? " (account)" : ""} ${figure}`);
              expect(item.headroomP95).toBe(item.cuRequestedP50 - item.cuUsed.p95);
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
      expect(inexact.slice(0, 10)).toEqual([]);
    }, 120_000);
  }
});

describe("time to land", () => {
  test("is known from the report's arrival, or unknown (null), where the client's clock is ahead of the chain", async () => {
    const world = worlds[SPECS.findIndex((s) => s.clientAheadMs > 0)];
    const unknownProgram = world.generated.programs.at(-1)!;
    let known = 0;
    for (const program of world.generated.programs) {
      const body = await answer(world, `/v1/provider-report/${program}?window=30d`, false);
      expect(body.providers.length).toBeGreaterThan(0);
      for (const provider of body.providers) {
        const { p50, p95 } = provider.timeToLandMs;
        if (program === unknownProgram) {
          expect({ p50, p95 }).toEqual({ p50: null, p95: null });
          expect(summaryText(summarize("provider_report", body))).toContain(
            `${provider.rpcLabel}: dropped ${provider.dropped.toLocaleString("en-US")}`,
          );
          expect(summaryText(summarize("provider_report", body))).toContain("time to land unknown");
        } else if (p50 !== null) {
          known++;
          expect(p50).toBeGreaterThan(0);
          expect(p95).toBeGreaterThanOrEqual(p50);
        }
      }
    }
    expect(known).toBeGreaterThan(0);
  }, 60_000);

  test("in slots: within the data's valid slots, known where the client's clock hides the ms, null where no slot was sent", async () => {
    const world = worlds[SPECS.findIndex((s) => s.clientAheadMs > 0)];
    const rows = await readLakeRows(world.ctx);
    let compared = 0;
    let wrongSlots = 0;
    for (const program of world.generated.programs) {
      const body = await answer(world, `/v1/provider-report/${program}?window=30d`, false);
      for (const provider of body.providers) {
        const landed = rows.filter(
          (r) =>
            r.program === program &&
            r.rpc_label === provider.rpcLabel &&
            r.kind === "send" &&
            (r.outcome === "landed" || r.outcome === "failed_onchain"),
        );
        wrongSlots += landed.filter((r) => r.sent_slot !== null && r.slot !== null && r.sent_slot > r.slot).length;
        const valid = landed
          .filter((r) => r.sent_slot !== null && r.slot !== null)
          .map((r) => r.slot! - r.sent_slot!)
          .filter((slots) => slots >= 0 && slots <= MAX_SLOTS_TO_LAND);
        const { p50, p95, measured } = provider.timeToLandSlots;
        expect(measured).toBe(valid.length);
        if (valid.length === 0) {
          expect({ p50, p95 }).toEqual({ p50: null, p95: null });
          continue;
        }
        compared++;
        expect(p50).toBeGreaterThanOrEqual(Math.min(...valid));
        expect(p95).toBeLessThanOrEqual(Math.max(...valid));
        expect(p95).toBeGreaterThanOrEqual(p50);
      }
    }
    expect(compared).toBeGreaterThan(0);
    // The generated world sends some slots after their landing: they count nowhere.
    expect(wrongSlots).toBeGreaterThan(0);
    const unknownMs = await answer(world, `/v1/provider-report/${world.generated.programs.at(-1)}?window=30d`, false);
    expect(unknownMs.providers.some((p: any) => p.timeToLandMs.p50 === null && p.timeToLandSlots.p50 !== null)).toBe(
      true,
    );
  }, 60_000);

  test("the checker refuses slots that are negative, fractional or beyond any landing", () => {
    const provider = (p50: number, p95: number, measured = 1) => ({
      providers: [{ attempts: 1, dropped: 0, timeToLandSlots: { p50, p95, measured } }],
    });
    expect(violations(provider(2, 5))).toEqual([]);
    expect(violations(provider(-1, 5)).join()).toContain("not a whole number");
    expect(violations(provider(1.5, 5)).join()).toContain("not a whole number");
    expect(violations(provider(1, 1e18)).join()).toContain("not a whole number");
    expect(violations(provider(5, 2)).join()).toContain("out of order");
    expect(violations(provider(1, 2, -3)).join()).toContain("count -3 is not a whole number");
  });
});
