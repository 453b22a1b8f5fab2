// GET /v1/issue/{fingerprint} on a generated world, against numbers computed here in TypeScript from
// the lake's rows (not by re-running the serving SQL): counts per window, first and last seen,
// wallets, the per-minute (last day), hourly and daily series, every breakdown (segments from the bot score computed
// independently), the examples, the deploy it followed; scope=account isolation; bad input.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IssueDetailSchema } from "../../src/analytics/queries";
import { OTTERSEC_SIGNERS, refreshDeploySources, verificationRecordAddress } from "../../src/chain/deploys";
import { issueTitle } from "../../src/shared/issue-title";
import { accountsRpc, verificationRecord } from "../chain/deploys/verified-records";
import { DAY, END_MS, get, inWindow, makeWorld, type Row, referenceBotScore, segmentOf, type World } from "./support";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const WINDOWS = { "1d": DAY, "7d": 7 * DAY, "30d": 30 * DAY } as const;
let world: World;
let segments: Map<string, string>;

beforeAll(async () => {
  world = await makeWorld(12_000);
  segments = new Map();
  for (const payer of new Set(world.rows.map((r) => r.payer)))
    segments.set(payer, segmentOf(referenceBotScore(world.rows, payer)));
}, 60_000);
afterAll(async () => await world?.stop());

/** Rows of a fingerprint, grouped by count (busiest first). */
function fingerprints(rows: Row[]): [string, Row[]][] {
  const by = new Map<string, Row[]>();
  for (const r of rows)
    if (r.fingerprint) (by.get(r.fingerprint) ?? by.set(r.fingerprint, []).get(r.fingerprint)!).push(r);
  return [...by].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

function tally(rows: Row[], key: (r: Row) => string | null) {
  const counts = new Map<string | null, number>();
  for (const r of rows) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  return [...counts]
    .map(([k, count]) => ({ key: k, count, share: count / rows.length }))
    .sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
}

function buckets(rows: Row[], since: number, step: number): number[] {
  const first = Math.floor(since / step);
  const counts = new Array(Math.floor(END_MS / step) - first + 1).fill(0);
  for (const r of rows)
    if (r.received_at >= since && r.received_at <= END_MS) counts[Math.floor(r.received_at / step) - first]++;
  return counts;
}

/** The whole answer, computed from the lake rows of one fingerprint in one scope. */
function expected(fingerprint: string, mine: Row[], window: keyof typeof WINDOWS) {
  const inSelected = mine.filter((r) => inWindow(r, WINDOWS[window]));
  const newest = [...mine].sort((a, b) => b.received_at - a.received_at)[0];
  const firstSeen = Math.min(...mine.map((r) => r.received_at));
  const deploys = world.generated.deploys.filter((d) => d.program === newest.program).sort((a, b) => a.slot - b.slot);
  const introduced = deploys.filter((d) => d.deployedAt <= firstSeen).at(-1);
  const examples = inSelected
    .filter((r) => r.sig !== null)
    .sort((a, b) => b.received_at - a.received_at || a.sig!.localeCompare(b.sig!))
    .slice(0, 20)
    .map((r) => ({ sig: r.sig, sentAt: r.sent_at, receivedAt: r.received_at, payer: r.payer, rpcLabel: r.rpc_label }));
  const segmentCounts = tally(inSelected, (r) => segments.get(r.payer) ?? "human");
  return {
    fingerprint,
    program: newest.program,
    title: issueTitle({
      outcome: newest.outcome!,
      errName: newest.err_name,
      errCode: newest.err_code,
      dropClass: newest.drop_class,
      instruction: newest.instruction,
    }),
    outcome: newest.outcome,
    instruction: newest.instruction,
    failingProgram: newest.failing_program,
    errCode: newest.err_code,
    errName: newest.err_name,
    dropClass: newest.drop_class,
    window: { name: window, since: END_MS - WINDOWS[window], until: END_MS },
    firstSeen,
    lastSeen: Math.max(...mine.map((r) => r.received_at)),
    introducedBy: introduced ? { slot: introduced.slot, deployedAt: introduced.deployedAt } : null,
    counts: {
      "1d": mine.filter((r) => inWindow(r, DAY)).length,
      "7d": mine.filter((r) => inWindow(r, 7 * DAY)).length,
      "30d": mine.filter((r) => inWindow(r, 30 * DAY)).length,
    },
    wallets: new Set(inSelected.map((r) => r.payer)).size,
    botShare: inSelected.length
      ? inSelected.filter((r) => segments.get(r.payer) === "bot").length / inSelected.length
      : 0,
    series: {
      // Whole minutes from the one that holds the clock − 1 day, as recent activity counts them.
      minute: {
        since: Math.floor((END_MS - DAY) / MINUTE) * MINUTE,
        stepMs: MINUTE,
        counts: buckets(mine, Math.floor((END_MS - DAY) / MINUTE) * MINUTE, MINUTE),
      },
      hourly: {
        since: Math.floor((END_MS - 7 * DAY) / HOUR) * HOUR,
        stepMs: HOUR,
        counts: buckets(mine, END_MS - 7 * DAY, HOUR),
      },
      daily: {
        since: Math.floor((END_MS - 30 * DAY) / DAY) * DAY,
        stepMs: DAY,
        counts: buckets(mine, END_MS - 30 * DAY, DAY),
      },
    },
    deploys: deploys
      .filter((d) => d.deployedAt >= END_MS - 30 * DAY && d.deployedAt <= END_MS)
      .map((d) => ({ slot: d.slot, deployedAt: d.deployedAt })),
    breakdowns: {
      providers: tally(inSelected, (r) => r.rpc_label),
      walletAdapters: tally(inSelected, (r) => r.wallet_adapter),
      instructions: tally(inSelected, (r) => r.instruction),
      segments: ["human", "mixed", "bot"].map((key) => ({
        key,
        count: segmentCounts.find((s) => s.key === key)?.count ?? 0,
        share: 0,
      })),
    },
    examples,
  };
}

/** Shares compared to 12 digits; everything else exactly. */
function expectAnswer(body: any, want: ReturnType<typeof expected>) {
  const { breakdowns, botShare, ...rest } = want;
  expect(body).toMatchObject(rest);
  expect(body.botShare).toBeCloseTo(botShare, 12);
  for (const name of ["providers", "walletAdapters", "instructions"] as const) {
    expect(body.breakdowns[name].map((s: any) => [s.key, s.count])).toEqual(
      breakdowns[name].map((s) => [s.key, s.count]),
    );
    for (const [i, s] of (body.breakdowns[name] as any[]).entries())
      expect(s.share).toBeCloseTo(breakdowns[name][i].share, 12);
  }
  expect(body.breakdowns.segments.map((s: any) => [s.key, s.count])).toEqual(
    breakdowns.segments.map((s) => [s.key, s.count]),
  );
}

describe("GET /v1/issue/{fingerprint}", () => {
  test("counts, first/last seen, wallets, series, breakdowns and examples match the lake, every window", async () => {
    const program = world.generated.programs[0];
    const issues = fingerprints(world.rows.filter((r) => r.program === program));
    // The busiest issue, a middling one and a rare one; a drop among them.
    const picked = [issues[0], issues[Math.floor(issues.length / 2)], issues.at(-1)!];
    const drop = issues.find(([, rows]) => rows[0].outcome === "dropped");
    if (drop) picked.push(drop);
    let lastDayMinutes = 0;
    for (const [fingerprint, mine] of picked) {
      for (const window of ["1d", "7d", "30d"] as const) {
        const { status, body } = await get(world, `/v1/issue/${fingerprint}?window=${window}`);
        if (!mine.some((r) => r.received_at >= END_MS - 45 * DAY)) continue;
        expect(status).toBe(200);
        expect(IssueDetailSchema.safeParse(body).success).toBe(true);
        expectAnswer(body, expected(fingerprint, mine, window));
        expect(body.series.hourly.counts.reduce((a: number, b: number) => a + b, 0)).toBe(body.counts["7d"]);
        expect(body.series.daily.counts.reduce((a: number, b: number) => a + b, 0)).toBe(body.counts["30d"]);
        lastDayMinutes += body.series.minute.counts.filter((n: number) => n > 0).length;
      }
    }
    expect(lastDayMinutes).toBeGreaterThan(0); // the minute series were compared with attempts in them
  });

  test("agrees with top-issues on the same fingerprint: title, counts, wallets, first and last seen", async () => {
    const program = world.generated.programs[1];
    const top = (await get(world, `/v1/top-issues/${program}?window=7d&limit=5`)).body;
    const issue = top.segments.human[0] ?? top.segments.mixed[0] ?? top.segments.bot[0];
    const { body } = await get(world, `/v1/issue/${issue.fingerprint}?window=7d`);
    expect(body.title).toBe(issue.title);
    expect(body.counts["7d"]).toBe(issue.count7d);
    expect(body.firstSeen).toBe(issue.firstSeen);
    expect(body.lastSeen).toBe(issue.lastSeen);
    expect(body.botShare).toBeCloseTo(issue.botShare, 12);
  });

  test("the regression's issue first appeared after the deploy that introduced it", async () => {
    const regression = world.generated.deploys.find((d) => d.regression)!;
    const stale = world.rows.find((r) => r.program === regression.program && r.err_name === "StaleOracle")!;
    const { body } = await get(world, `/v1/issue/${stale.fingerprint}?window=30d`);
    const previous = world.generated.deploys
      .filter((d) => d.program === regression.program && d.slot < regression.slot)
      .sort((a, b) => b.slot - a.slot)[0];
    expect(body.introducedBy).toEqual({
      slot: regression.slot,
      deployedAt: regression.deployedAt,
      previousSlot: previous?.slot ?? null,
      source: null,
      compareUrl: null,
    });
    expect(body.firstSeen).toBeGreaterThanOrEqual(regression.deployedAt);
    expect(body.deploys.map((d: any) => d.slot)).toContain(regression.slot);
    expect(body.title).toBe(`StaleOracle in ${stale.instruction}`);

    // With verified-build records for both deploys, the page names the commit and links the range.
    const signer = OTTERSEC_SIGNERS[0];
    const records = new Map<string, Uint8Array>();
    for (const [deploy, commit] of [
      [previous, "0a1b2c3"],
      [regression, "4d5e6f7"],
    ] as const) {
      records.set(
        verificationRecordAddress(signer, deploy.program),
        verificationRecord({
          program: deploy.program,
          signer,
          repository: "https://github.com/acme/vault",
          commit,
          deployedSlot: deploy.slot,
        }),
      );
      const deploys = [{ program: deploy.program, slot: deploy.slot, authority: null }];
      await refreshDeploySources(world.ctx.paths.root, accountsRpc(records), deploys, END_MS);
    }
    const sourced = (await get(world, `/v1/issue/${stale.fingerprint}?window=30d`)).body;
    expect(sourced.introducedBy.source).toEqual({ repository: "https://github.com/acme/vault", commit: "4d5e6f7" });
    expect(sourced.introducedBy.compareUrl).toBe("https://github.com/acme/vault/compare/0a1b2c3...4d5e6f7");
    expect(sourced.deploys.find((d: any) => d.slot === regression.slot).source.commit).toBe("4d5e6f7");
  });

  test("scope=account: the key's account's attempts only; another account cannot see an issue it never had", async () => {
    const program = world.generated.programs[0];
    const accountRows = world.rows.filter((r) => r.program === program && r.account_id === world.accounts.a);
    const [fingerprint, mine] = fingerprints(accountRows)[0];
    const { status, body } = await get(world, `/v1/issue/${fingerprint}?window=30d&scope=account`, world.keys.a);
    expect(status).toBe(200);
    expectAnswer(body, expected(fingerprint, mine, "30d"));
    const onlyA = fingerprints(world.rows.filter((r) => r.account_id === world.accounts.a)).find(
      ([fp]) => !world.rows.some((r) => r.fingerprint === fp && r.account_id === world.accounts.b),
    );
    if (onlyA) {
      const other = await get(world, `/v1/issue/${onlyA[0]}?scope=account`, world.keys.b);
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe("not_found");
    }
  });

  test("bad input: malformed fingerprint, window, scope; missing and wrong keys; unknown issue", async () => {
    const [fingerprint] = fingerprints(world.rows)[0];
    const cases: [string, string | undefined, number, string, string | null][] = [
      ["/v1/issue/v1:XYZ", undefined, 400, "bad_request", "fingerprint"],
      ["/v1/issue/5b0c2e8a91d3f4c7", undefined, 400, "bad_request", "fingerprint"],
      [`/v1/issue/${fingerprint.toUpperCase()}`, undefined, 400, "bad_request", "fingerprint"],
      [`/v1/issue/${fingerprint}?window=2d`, undefined, 400, "bad_request", "window"],
      [`/v1/issue/${fingerprint}?scope=everyone`, undefined, 400, "bad_request", "scope"],
      [`/v1/issue/${fingerprint}?scope=account`, undefined, 401, "unauthorized", null],
      [`/v1/issue/${fingerprint}?scope=account`, `txr_read_${"1".repeat(32)}`, 401, "unauthorized", null],
      ["/v1/issue/v1:0000000000000000", undefined, 404, "not_found", null],
    ];
    for (const [path, key, status, code, names] of cases) {
      const response = await get(world, path, key);
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({ path, status, code });
      if (names) expect(response.body.error.message).toContain(names);
    }
  });
});
