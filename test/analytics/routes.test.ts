// Every analytics route against numbers computed here, in TypeScript, from the generated lake's
// rows (not by re-running the serving SQL); plus input validation, unknown programs and
// scope=account isolation, over real HTTP on loopback.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { syntheticAddress } from "../../devkit/generate";
import { issueSummary, payerBotScore } from "../../src/analytics/queries";
import { MAX_SLOTS_TO_LAND } from "../../src/analytics/tables/rollups";
import { OTTERSEC_SIGNERS, refreshDeploySources, verificationRecordAddress } from "../../src/chain/deploys";
import { wilson } from "../../src/shared/stats";
import { accountsRpc, verificationRecord } from "../chain/deploys/verified-records";
import { randomAddress } from "../helpers/envelopes";
import {
  DAY,
  END_MS,
  expectNearQuantile,
  get,
  inWindow,
  makeWorld,
  nearestRank,
  type Row,
  referenceBotScore,
  type World,
  weightedCu,
  weightedNearestRank,
} from "./support";

let world: World;
let program: string;
// Generating the lake and building the tables takes seconds; more on a shared, loaded machine.
beforeAll(async () => {
  world = await makeWorld();
  program = world.generated.programs[0];
}, 30_000);
afterAll(async () => await world.stop());

const resolved = (rows: Row[]) => rows.filter((r) => r.outcome !== null);
const countOutcomes = (rows: Row[]) => ({
  landed: rows.filter((r) => r.outcome === "landed").length,
  failedOnchain: rows.filter((r) => r.outcome === "failed_onchain").length,
  dropped: rows.filter((r) => r.outcome === "dropped").length,
  preflight: rows.filter((r) => r.outcome === "preflight").length,
});

describe("baseline", () => {
  test("program, ecosystem and provider rates match the lake, pending excluded", async () => {
    for (const [window, length] of [
      ["1d", DAY],
      ["7d", 7 * DAY],
      ["30d", 30 * DAY],
    ] as const) {
      const { status, body } = await get(world, `/v1/baseline/${program}?window=${window}`);
      expect(status).toBe(200);
      const mine = world.rows.filter((r) => r.program === program && inWindow(r, length));
      const expected = countOutcomes(mine);
      expect(body.rates).toMatchObject(expected);
      expect(body.rates.attempts).toBe(resolved(mine).length);
      expect(body.pending).toBe(mine.filter((r) => r.outcome === null).length);
      expect(body.rates.ci95.landingRate).toEqual(wilson(expected.landed, resolved(mine).length));
      expect(body.window).toEqual({ name: window, since: END_MS - length, until: END_MS });
      const all = world.rows.filter((r) => inWindow(r, length));
      expect(body.ecosystem).toMatchObject(countOutcomes(all));
      const helius = mine.filter((r) => r.rpc_label === "helius");
      expect(body.providers.find((p: any) => p.rpcLabel === "helius")).toMatchObject(countOutcomes(helius));
    }
  });
  test("default window is 7d", async () => {
    const { body } = await get(world, `/v1/baseline/${program}`);
    expect(body.window.name).toBe("7d");
  });
  test("some attempts are pending and never counted", () => {
    expect(world.rows.some((r) => r.program === program && r.outcome === null && inWindow(r, DAY))).toBe(true);
  });
});

describe("provider-report", () => {
  test("drop rates, expiry share and time to land per provider over resolved sends", async () => {
    const { status, body } = await get(world, `/v1/provider-report/${program}?window=30d`);
    expect(status).toBe(200);
    const sends = world.rows.filter(
      (r) =>
        r.program === program &&
        inWindow(r, 30 * DAY) &&
        r.kind === "send" &&
        r.outcome !== null &&
        r.outcome !== "preflight",
    );
    for (const provider of body.providers) {
      const mine = sends.filter((r) => r.rpc_label === provider.rpcLabel);
      const dropped = mine.filter((r) => r.outcome === "dropped");
      expect(provider.attempts).toBe(mine.length);
      expect(provider.dropped).toBe(dropped.length);
      expect(provider.dropRate).toBeCloseTo(dropped.length / mine.length, 12);
      expect(provider.ci95).toEqual(wilson(dropped.length, mine.length));
      const expired = dropped.filter(
        (r) => r.drop_class === "expired_blockhash" || r.drop_class === "stale_blockhash_at_send",
      ).length;
      expect(provider.expiredShare).toBeCloseTo(dropped.length ? expired / dropped.length : 0, 12);
      // To the end of the block time's second, from the send but no later than its report arrived.
      const landTimes = mine
        .filter((r) => r.block_time !== null && r.outcome !== "dropped")
        .map((r) => r.block_time! + 1000 - Math.min(r.sent_at, r.received_at))
        .filter((ms) => ms > 0);
      // Quantiles come from the per-unit sketch: within its documented relative error.
      expectNearQuantile(provider.timeToLandMs.p50, nearestRank(landTimes, 0.5));
      expectNearQuantile(provider.timeToLandMs.p95, nearestRank(landTimes, 0.95));
      // In slots: landed slot − the slot its client saw, where the client sent one and it is not after the landing.
      const landSlots = mine
        .filter((r) => r.slot !== null && r.sent_slot !== null && r.outcome !== "dropped")
        .map((r) => r.slot! - r.sent_slot!)
        .filter((slots) => slots >= 0 && slots <= MAX_SLOTS_TO_LAND);
      expect(provider.timeToLandSlots.measured).toBe(landSlots.length);
      expect(landSlots.length).toBeLessThan(mine.filter((r) => r.outcome !== "dropped").length);
      expectNearQuantile(provider.timeToLandSlots.p50, nearestRank(landSlots, 0.5));
      expectNearQuantile(provider.timeToLandSlots.p95, nearestRank(landSlots, 0.95));
    }
    const publicRpc = body.providers.find((p: any) => p.rpcLabel === "public");
    const helius = body.providers.find((p: any) => p.rpcLabel === "helius");
    expect(publicRpc.dropRate).toBeGreaterThan(helius.dropRate);
  });
});

describe("cu-headroom", () => {
  test("per-instruction p50/p95 over the attempts each decoded row stands for (sketch, within its error), exact max, requested median and trend", async () => {
    const { status, body } = await get(world, `/v1/cu-headroom/${program}?window=7d`);
    expect(status).toBe(200);
    const landedOrFailed = world.rows.filter(
      (r) =>
        r.program === program &&
        inWindow(r, 7 * DAY) &&
        (r.outcome === "landed" || r.outcome === "failed_onchain") &&
        r.instruction &&
        r.cu_used !== null,
    );
    expect(body.instructions.length).toBeGreaterThan(0);
    for (const item of body.instructions) {
      const mine = landedOrFailed.filter((r) => r.instruction === item.instruction);
      const used = mine.map(weightedCu);
      expect(item.samples).toBe(mine.length);
      expectNearQuantile(item.cuUsed.p50, weightedNearestRank(used, 0.5));
      expectNearQuantile(item.cuUsed.p95, weightedNearestRank(used, 0.95));
      expect(item.cuUsed.max).toBe(Math.max(...used.map((u) => u.value)));
      expect(item.cuRequestedP50).toBe(
        weightedNearestRank(
          mine.map((r) => ({ value: r.cu_requested!, weight: r.sample_weight ?? 1 })),
          0.5,
        ),
      );
      expect(item.headroomP95).toBe(item.cuRequestedP50 - item.cuUsed.p95);
      expect(item.exceeded).toBe(mine.filter((r) => r.compute_exceeded).length);
      for (const point of item.trend) {
        const day = mine.filter((r) => new Date(r.received_at).toISOString().slice(0, 10) === point.day);
        if (day.length > 0 && point.day >= new Date(END_MS - 7 * DAY).toISOString().slice(0, 10)) {
          // Trend days are whole UTC days of the 30-day range; the first may extend before the window.
          const all = world.rows
            .filter(
              (r) =>
                r.program === program &&
                r.instruction === item.instruction &&
                (r.outcome === "landed" || r.outcome === "failed_onchain") &&
                r.cu_used !== null,
            )
            .filter((r) => new Date(r.received_at).toISOString().slice(0, 10) === point.day && r.received_at <= END_MS)
            .map(weightedCu);
          expectNearQuantile(point.cuP95, weightedNearestRank(all, 0.95));
        }
      }
    }
  });
});

describe("top-issues", () => {
  test("issue counts, wallets and shares match the lake; segments partition the failures", async () => {
    const { status, body } = await get(world, `/v1/top-issues/${program}?window=30d&limit=500`);
    expect(status).toBe(200);
    const failures = world.rows.filter((r) => r.program === program && inWindow(r, 30 * DAY) && r.fingerprint !== null);
    const byFingerprint = new Map<string, Row[]>();
    for (const r of failures) byFingerprint.set(r.fingerprint!, [...(byFingerprint.get(r.fingerprint!) ?? []), r]);
    const seen = new Map<string, { count: number; wallets: number }>();
    let total = 0;
    for (const segment of ["human", "mixed", "bot"]) {
      const issues = body.segments[segment];
      const segmentTotal = issues.reduce((s: number, i: any) => s + i.count, 0);
      total += segmentTotal;
      for (const issue of issues) {
        expect(issue.share).toBeCloseTo(issue.count / segmentTotal, 12);
        const acc = seen.get(issue.fingerprint) ?? { count: 0, wallets: 0 };
        seen.set(issue.fingerprint, { count: acc.count + issue.count, wallets: acc.wallets + issue.wallets });
      }
      const counts = issues.map((i: any) => i.count);
      expect(counts).toEqual([...counts].sort((x: number, y: number) => y - x));
    }
    expect(total).toBe(failures.length);
    for (const [fingerprint, rows] of byFingerprint) {
      expect(seen.get(fingerprint)!.count).toBe(rows.length);
      // Distinct payers per segment add up to the distinct payers overall (a payer has one segment).
      expect(seen.get(fingerprint)!.wallets).toBe(new Set(rows.map((r) => r.payer)).size);
    }
    const top = body.segments.human[0] ?? body.segments.mixed[0];
    const rows = byFingerprint.get(top.fingerprint)!;
    expect(top.count7d).toBe(rows.filter((r) => inWindow(r, 7 * DAY)).length);
    expect(top.firstSeen).toBe(Math.min(...rows.map((r) => r.received_at)));
    expect(top.lastSeen).toBe(Math.max(...rows.map((r) => r.received_at)));
    expect(rows.map((r) => r.sig)).toContain(top.sampleSig);
    expect(top).toMatchObject({
      outcome: rows[0].outcome,
      instruction: rows[0].instruction,
      errCode: rows[0].err_code,
      dropClass: rows[0].drop_class,
    });
  });
  test("bots: regular high-rate keypair payers land in the bot segment; segment filter", async () => {
    const { body } = await get(world, `/v1/top-issues/${program}?window=30d&segment=bot&limit=5`);
    expect(body.segment).toBe("bot");
    expect(body.segments.human).toEqual([]);
    expect(body.segments.bot.length).toBeGreaterThan(0);
    expect(body.segments.bot.length).toBeLessThanOrEqual(5);
    expect(body.segments.bot[0].botShare).toBeGreaterThan(0.5);
  });
  test("issueSummary (for why) matches the lake", async () => {
    const rows = world.rows.filter((r) => r.fingerprint !== null);
    const fingerprint = rows[0].fingerprint!;
    const mine = rows.filter((r) => r.fingerprint === fingerprint);
    expect(await issueSummary(world.ctx, fingerprint)).toEqual({
      fingerprint,
      count7d: mine.filter((r) => inWindow(r, 7 * DAY)).length,
      firstSeen: Math.min(...mine.map((r) => r.received_at)),
    });
    expect(await issueSummary(world.ctx, "v1:0000000000000000")).toBeNull();
  });
});

describe("payerBotScore", () => {
  const expectedScore = (payer: string) => referenceBotScore(world.rows, payer);
  test("matches the documented formula for a bot and a human; segments", async () => {
    const bot = syntheticAddress(7, "bot:0");
    const human = syntheticAddress(7, "human:150");
    expect(world.rows.some((r) => r.payer === human)).toBe(true);
    const botScore = await payerBotScore(world.ctx, bot);
    const humanScore = await payerBotScore(world.ctx, human);
    expect(botScore!).toBeCloseTo(expectedScore(bot), 9);
    expect(humanScore!).toBeCloseTo(expectedScore(human), 9);
    expect(botScore!).toBeGreaterThanOrEqual(0.7);
    expect(humanScore!).toBeLessThan(0.3);
    expect(await payerBotScore(world.ctx, randomAddress())).toBeNull();
  });
});

describe("wallet", () => {
  test("newest first, paginated to the end with cursors, summary matches", async () => {
    const counts = new Map<string, number>();
    for (const r of world.rows) if (r.program === program) counts.set(r.payer, (counts.get(r.payer) ?? 0) + 1);
    const wallet = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    const mine = world.rows.filter((r) => r.program === program && r.payer === wallet && inWindow(r, 30 * DAY));
    const collected: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body }: { status: number; body: any } = await get(
        world,
        `/v1/wallet/${program}/${wallet}?window=30d&limit=50${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(status).toBe(200);
      expect(body.summary).toMatchObject(countOutcomes(mine));
      collected.push(...body.items);
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(collected.length).toBe(mine.length);
    const sentAts = collected.map((i) => i.sentAt);
    expect(sentAts).toEqual([...mine.map((r) => r.sent_at)].sort((a, b) => b - a));
    expect(new Set(collected.map((i) => i.sig ?? i.receivedAt)).size).toBe(collected.length);
    const first = mine.find((r) => r.sent_at === collected[0].sentAt)!;
    expect(collected[0]).toMatchObject({
      outcome: first.outcome,
      rpcLabel: first.rpc_label,
      instruction: first.instruction,
      pending: first.outcome === null,
    });
  });
  test("unknown wallet: empty history", async () => {
    const { status, body } = await get(world, `/v1/wallet/${program}/${randomAddress()}`);
    expect(status).toBe(200);
    expect(body.items).toEqual([]);
    expect(body.summary.attempts).toBe(0);
    expect(body.nextCursor).toBeNull();
  });
});

describe("release-diff", () => {
  test("the regressing deploy: StaleOracle is new and significant; rates match the periods", async () => {
    const regression = world.generated.deploys.find((d) => d.regression)!;
    const { status, body } = await get(world, `/v1/release-diff/${regression.program}?window=7d`);
    expect(status).toBe(200);
    expect(body.deploy.slot).toBe(regression.slot);
    expect(body.deploy.deployedAt).toBe(regression.deployedAt);
    const previous = world.generated.deploys
      .filter((d) => d.program === regression.program && d.slot < regression.slot)
      .sort((a, b) => b.slot - a.slot)[0];
    expect(body.previousDeploy).toEqual({ slot: previous.slot, deployedAt: previous.deployedAt, source: null });
    expect([body.deploy.source, body.compareUrl]).toEqual([null, null]); // no verified-build record
    const t = regression.deployedAt;
    const preStart = Math.max(t - 7 * DAY, previous.deployedAt);
    const postEnd = Math.min(t + 7 * DAY, END_MS + 1);
    const rows = world.rows.filter((r) => r.program === regression.program && r.outcome !== null);
    const pre = rows.filter((r) => r.received_at >= preStart && r.received_at < t);
    const post = rows.filter((r) => r.received_at >= t && r.received_at < postEnd);
    expect(body.pre).toMatchObject(countOutcomes(pre));
    expect(body.post).toMatchObject(countOutcomes(post));
    const stale = body.issues.find((i: any) => i.errName === "StaleOracle");
    expect(stale.status).toBe("new");
    expect(stale.preCount).toBe(0);
    expect(stale.postCount).toBe(post.filter((r) => r.err_name === "StaleOracle").length);
    expect(stale.postRate).toBeCloseTo(stale.postCount / post.length, 12);
    expect(stale.pValue).toBeLessThan(0.05);
    const swap = body.instructions.find((i: any) => i.instruction === "swap");
    expect(swap.cuP95Post).toBeGreaterThan(swap.cuP95Pre);
    const swapPost = post.filter(
      (r) => r.instruction === "swap" && (r.outcome === "landed" || r.outcome === "failed_onchain"),
    );
    expect(swap.postFailureRate).toBeCloseTo(
      swapPost.filter((r) => r.outcome === "failed_onchain").length / swapPost.length,
      12,
    );
    expectNearQuantile(
      swap.cuP95Post,
      weightedNearestRank(swapPost.filter((r) => r.cu_used !== null).map(weightedCu), 0.95),
    );
  });
  test("issues carry top-issues' errCode, outcome, failingProgram and dropClass for the same fingerprint", async () => {
    const regression = world.generated.deploys.find((d) => d.regression)!;
    const diff = (await get(world, `/v1/release-diff/${regression.program}?window=7d`)).body;
    const top = (await get(world, `/v1/top-issues/${regression.program}?window=30d&limit=500`)).body;
    const topByFingerprint = new Map<string, any>();
    for (const segment of ["human", "mixed", "bot"])
      for (const issue of top.segments[segment]) topByFingerprint.set(issue.fingerprint, issue);
    const identity = (i: any) => ({
      outcome: i.outcome,
      failingProgram: i.failingProgram,
      errCode: i.errCode,
      dropClass: i.dropClass,
    });
    let compared = 0;
    for (const issue of diff.issues) {
      const row = world.rows.find((r) => r.fingerprint === issue.fingerprint)!;
      expect(identity(issue)).toEqual({
        outcome: row.outcome,
        failingProgram: row.failing_program,
        errCode: row.err_code,
        dropClass: row.drop_class,
      });
      const same = topByFingerprint.get(issue.fingerprint);
      if (same) {
        expect(identity(issue)).toEqual(identity(same));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
    const stale = diff.issues.find((i: any) => i.errName === "StaleOracle");
    expect(stale.errCode).toEqual(expect.any(Number));
    expect(stale.errCode).toBe(topByFingerprint.get(stale.fingerprint).errCode);
    // Both kinds of identity are exercised: a custom error code and a drop class.
    expect(diff.issues.some((i: any) => i.dropClass !== null)).toBe(true);
  });
  test("a deploy with a verified-build record names its repository and commit, and links the range", async () => {
    const regression = world.generated.deploys.find((d) => d.regression)!;
    const previous = world.generated.deploys
      .filter((d) => d.program === regression.program && d.slot < regression.slot)
      .sort((a, b) => b.slot - a.slot)[0];
    const signer = OTTERSEC_SIGNERS[0];
    const accounts = new Map<string, Uint8Array>();
    const rpc = accountsRpc(accounts);
    for (const [deploy, commit] of [
      [previous, "0a1b2c3"],
      [regression, "4d5e6f7"],
    ] as const) {
      accounts.set(
        verificationRecordAddress(signer, deploy.program),
        verificationRecord({
          program: deploy.program,
          signer,
          repository: "https://github.com/acme/vault",
          commit,
          deployedSlot: deploy.slot,
        }),
      );
      await refreshDeploySources(
        world.ctx.paths.root,
        rpc,
        [{ program: deploy.program, slot: deploy.slot, authority: null }],
        END_MS,
      );
    }
    const { body } = await get(world, `/v1/release-diff/${regression.program}?window=7d`);
    expect(body.deploy.source).toEqual({ repository: "https://github.com/acme/vault", commit: "4d5e6f7" });
    expect(body.previousDeploy.source).toEqual({ repository: "https://github.com/acme/vault", commit: "0a1b2c3" });
    expect(body.compareUrl).toBe("https://github.com/acme/vault/compare/0a1b2c3...4d5e6f7");
  });
  test("?deploy=<slot> selects an older deploy; unknown slot is 404", async () => {
    const older = world.generated.deploys.find((d) => d.program === program && !d.regression)!;
    const { body } = await get(world, `/v1/release-diff/${program}?deploy=${older.slot}`);
    expect(body.deploy.slot).toBe(older.slot);
    expect((await get(world, `/v1/release-diff/${program}?deploy=12345`)).status).toBe(404);
  });
});

describe("validation", () => {
  test("400 for malformed program, wallet, window, cursor, segment, limit, deploy", async () => {
    const wallet = world.rows[0].payer;
    const cases = [
      `/v1/baseline/not-a-program`,
      `/v1/baseline/${program}0OIl`,
      `/v1/baseline/${program}?window=2d`,
      `/v1/top-issues/${program}?segment=robots`,
      `/v1/top-issues/${program}?limit=0`,
      `/v1/cu-headroom/${program}?window=`.replace("window=", "window=1w"),
      `/v1/provider-report/abc`,
      `/v1/release-diff/${program}?deploy=-1`,
      `/v1/wallet/${program}/not-a-wallet`,
      `/v1/wallet/${program}/${wallet}?cursor=garbage`,
      `/v1/wallet/${program}/${wallet}?cursor=eyJzIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA`,
      `/v1/wallet/${program}/${wallet}?limit=501`,
    ];
    for (const path of cases) {
      const { status, body } = await get(world, path);
      expect({ path, status, code: body.error?.code }).toEqual({ path, status: 400, code: "bad_request" });
      expect(typeof body.error.message).toBe("string");
    }
    const { body } = await get(world, `/v1/baseline/${program}?window=2d`);
    expect(body.error.message).toContain("window");
  });
  test("404 for a well-formed program txray has no data for", async () => {
    for (const route of ["baseline", "top-issues", "cu-headroom", "provider-report", "release-diff"]) {
      const { status, body } = await get(world, `/v1/${route}/${randomAddress()}`);
      expect(status).toBe(404);
      expect(body.error.code).toBe("not_found");
    }
    expect((await get(world, `/v1/wallet/${randomAddress()}/${world.rows[0].payer}`)).status).toBe(404);
  });
});

describe("scope=account", () => {
  test("each key sees only its account's events; public sees both", async () => {
    const mine = (account: string) =>
      world.rows.filter((r) => r.program === program && r.account_id === account && inWindow(r, 30 * DAY));
    const a = await get(world, `/v1/baseline/${program}?window=30d&scope=account`, world.keys.a);
    const b = await get(world, `/v1/baseline/${program}?window=30d&scope=account`, world.keys.b);
    const pub = await get(world, `/v1/baseline/${program}?window=30d`, world.keys.a);
    expect(a.body.rates).toMatchObject(countOutcomes(mine(world.accounts.a)));
    expect(b.body.rates).toMatchObject(countOutcomes(mine(world.accounts.b)));
    expect(a.body.rates.attempts + b.body.rates.attempts).toBe(pub.body.rates.attempts);
    expect(a.body.rates.attempts).not.toBe(b.body.rates.attempts);

    const wallet = mine(world.accounts.a)[0].payer;
    const walletA = await get(
      world,
      `/v1/wallet/${program}/${wallet}?window=30d&scope=account&limit=500`,
      world.keys.a,
    );
    const walletB = await get(
      world,
      `/v1/wallet/${program}/${wallet}?window=30d&scope=account&limit=500`,
      world.keys.b,
    );
    // The wallet (whichever row the lake read returned first) may be a bot with more than a page.
    const walletRows = (account: string) => mine(account).filter((r) => r.payer === wallet);
    expect(walletA.body.items.length).toBe(Math.min(500, walletRows(world.accounts.a).length));
    expect(walletB.body.items.length).toBe(Math.min(500, walletRows(world.accounts.b).length));
    expect(walletA.body.summary).toMatchObject(countOutcomes(walletRows(world.accounts.a)));
    expect(walletB.body.summary).toMatchObject(countOutcomes(walletRows(world.accounts.b)));

    const issuesA = await get(world, `/v1/top-issues/${program}?window=30d&scope=account&limit=500`, world.keys.a);
    const totalA = ["human", "mixed", "bot"].reduce(
      (s, seg) => s + issuesA.body.segments[seg].reduce((t: number, i: any) => t + i.count, 0),
      0,
    );
    expect(totalA).toBe(mine(world.accounts.a).filter((r) => r.fingerprint !== null).length);

    const providersB = await get(world, `/v1/provider-report/${program}?window=30d&scope=account`, world.keys.b);
    const sendsB = mine(world.accounts.b).filter((r) => r.kind === "send" && r.outcome !== null);
    expect(providersB.body.providers.reduce((s: number, p: any) => s + p.attempts, 0)).toBe(sendsB.length);
  });
  test("scope=account without a key is 401; an invalid key is 401", async () => {
    expect((await get(world, `/v1/baseline/${program}?scope=account`)).status).toBe(401);
    expect((await get(world, `/v1/baseline/${program}?scope=account`, `txr_read_${"x".repeat(32)}`)).status).toBe(401);
  });
});
