// scope=account isolation across every read route, over the real server on loopback: two accounts
// report the same programs; each key's scoped answer counts only its own account's events (the two
// add up to the public answer), a third account with no events sees nothing of theirs, and a key
// never widens what a request sees beyond its account. /v1/programs lists only the key's programs.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type GenerateResult, generateLake } from "../../devkit/generate";
import { buildServingTables } from "../../src/analytics/tables/build";
import { createAccountKey, revokeKey } from "../../src/control";
import { type RunningServer, startServer } from "../../src/server";
import { testContext } from "../helpers/context";

const END_MS = 1_763_700_000_000;
let ctx: Awaited<ReturnType<typeof testContext>>;
let server: RunningServer;
let generated: GenerateResult;
const keys = { a: "", b: "", c: "", revoked: "" };
const accounts = { a: "", b: "" };
/** Per program, account A's busiest payer (payers of the generated accounts do not overlap). */
const walletOf = new Map<string, string>();

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_RATE_PER_MINUTE: "100000" });
  (ctx as { clock: () => number }).clock = () => END_MS;
  const a = createAccountKey(ctx.control, "iso-a", "read", END_MS);
  const b = createAccountKey(ctx.control, "iso-b", "live", END_MS);
  const c = createAccountKey(ctx.control, "iso-c", "live", END_MS);
  const revoked = createAccountKey(ctx.control, "iso-a", "live", END_MS);
  revokeKey(ctx.control, revoked.record.id, END_MS);
  Object.assign(keys, { a: a.key, b: b.key, c: c.key, revoked: revoked.key });
  Object.assign(accounts, { a: a.record.accountId, b: b.record.accountId });
  generated = await generateLake({
    dataDir: ctx.config.dataDir,
    envelopes: 6000,
    programs: 2,
    days: 30,
    seed: 11,
    endMs: END_MS,
    accounts: [a.record.accountId, b.record.accountId],
    control: ctx.control,
    threads: 1,
  });
  await buildServingTables(ctx);
  const rows = await ctx.duck.all<{ program: string; payer: string }>(
    `SELECT program, arg_max(payer, n) AS payer FROM (
       SELECT program, payer, count(*) AS n FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)
       WHERE epoch_ms(received_at) >= ${END_MS - 29 * 86_400_000} AND account_id = '${a.record.accountId}' GROUP BY ALL) GROUP BY program`,
  );
  for (const row of rows) walletOf.set(row.program, row.payer);
  server = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  ctx?.dispose();
});

async function get(path: string, key?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, { headers: key ? { "x-api-key": key } : {} });
  return { status: response.status, body: await response.json() };
}

const sum = (items: any[], field: string) => items.reduce((total, item) => total + item[field], 0);

/** Every scoped read route, with the count of events its answer is built from. */
const SCOPED: { route: string; path: (program: string) => string; total: (body: any) => number }[] = [
  { route: "baseline", path: (p) => `/v1/baseline/${p}?window=30d`, total: (b) => b.rates.attempts },
  {
    route: "release-diff",
    path: (p) => `/v1/release-diff/${p}?window=30d`,
    total: (b) => b.pre.attempts + b.post.attempts,
  },
  {
    route: "top-issues",
    path: (p) => `/v1/top-issues/${p}?window=30d&limit=500`,
    total: (b) => ["human", "mixed", "bot"].reduce((t, segment) => t + sum(b.segments[segment], "count"), 0),
  },
  {
    route: "cu-headroom",
    path: (p) => `/v1/cu-headroom/${p}?window=30d`,
    total: (b) => sum(b.instructions, "samples"),
  },
  {
    route: "provider-report",
    path: (p) => `/v1/provider-report/${p}?window=30d`,
    total: (b) => sum(b.providers, "attempts"),
  },
  {
    route: "wallet",
    path: (p) => `/v1/wallet/${p}/${walletOf.get(p)}?window=30d&limit=500`,
    total: (b) => b.summary.attempts + b.items.length,
  },
];

describe("scope=account on every read route, two accounts sharing each program", () => {
  for (const { route, path, total } of SCOPED) {
    test(route, async () => {
      let checked = 0;
      for (const program of generated.programs) {
        const pub = await get(path(program));
        if (pub.status === 404) continue; // e.g. release-diff of a program without a deploy
        expect(pub.status).toBe(200);
        const a = await get(`${path(program)}&scope=account`, keys.a);
        const b = await get(`${path(program)}&scope=account`, keys.b);
        const c = await get(`${path(program)}&scope=account`, keys.c);
        expect(a.status).toBe(200);
        expect(total(a.body)).toBeGreaterThan(0);
        if (route === "wallet") {
          // A's payer: B's key sees none of its attempts.
          if (b.status === 200) expect(total(b.body)).toBe(0);
          else expect([b.status, b.body.error.code]).toEqual([404, "not_found"]);
          expect(total(a.body)).toBe(total(pub.body));
        } else {
          expect(b.status).toBe(200);
          expect(total(b.body)).toBeGreaterThan(0);
          // Disjoint shares of one public answer: neither key sees the other's events.
          expect(total(a.body) + total(b.body)).toBe(total(pub.body));
        }
        // An account with no events sees none of theirs (an empty answer or a 404, never their data).
        if (c.status === 200) expect(total(c.body)).toBe(0);
        else expect([c.status, c.body.error.code]).toEqual([404, "not_found"]);
        // A key without scope=account still gets the public answer; scope needs a valid key.
        expect(total((await get(path(program), keys.a)).body)).toBe(total(pub.body));
        expect((await get(`${path(program)}&scope=account`)).status).toBe(401);
        expect((await get(`${path(program)}&scope=account`, keys.revoked)).status).toBe(401);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }

  test("wallet pages: every item of a scoped page is one of that account's attempts", async () => {
    const program = generated.programs[0];
    let checked = 0;
    for (const [key, account] of [
      [keys.a, accounts.a],
      [keys.b, accounts.b],
    ]) {
      const page = await get(`/v1/wallet/${program}/${walletOf.get(program)}?window=30d&limit=500&scope=account`, key);
      if (account === accounts.b) {
        expect(page.status === 404 || page.body.items.length === 0).toBe(true);
        continue;
      }
      const sigs: string[] = page.body.items.map((item: any) => item.sig).filter((sig: string | null) => sig !== null);
      if (sigs.length === 0) continue;
      const owners = await ctx.duck.all<{ account_id: string }>(
        `SELECT DISTINCT account_id FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}') WHERE sig IN (${sigs.map((s) => `'${s}'`).join(",")})`,
      );
      expect(owners.map((o) => o.account_id)).toEqual([account]);
      checked++;
    }
    expect(checked).toBe(1);
  });

  test("/v1/programs lists the key's own programs only; an account without events has none", async () => {
    const a = await get("/v1/programs?limit=500", keys.a);
    const b = await get("/v1/programs?limit=500", keys.b);
    const c = await get("/v1/programs?limit=500", keys.c);
    expect(a.body.items.map((item: any) => item.program).sort()).toEqual([...generated.programs].sort());
    expect(b.body.items.map((item: any) => item.program).sort()).toEqual([...generated.programs].sort());
    const lakeCounts = await ctx.duck.all<{ account_id: string; n: number }>(
      `SELECT account_id, count(*)::INTEGER AS n FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}') GROUP BY ALL`,
    );
    expect(sum(a.body.items, "attempts") + sum(b.body.items, "attempts")).toBe(sum(lakeCounts, "n"));
    expect(sum(a.body.items, "attempts")).not.toBe(sum(b.body.items, "attempts"));
    expect(c.body).toEqual({ items: [], nextCursor: null });
    expect((await get("/v1/programs")).status).toBe(401);
    expect((await get("/v1/programs", keys.revoked)).status).toBe(401);
  });

  test("a cursor issued to one account's page does not open another account's data", async () => {
    const first = await get("/v1/programs?limit=1", keys.a);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const asC = await get(`/v1/programs?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, keys.c);
    expect(asC.status).toBe(200);
    expect(asC.body.items).toEqual([]);
  });
});
