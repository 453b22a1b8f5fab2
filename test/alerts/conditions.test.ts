// Each rule over a generated 30-day lake (providers with different drop rates, a regressing deploy,
// instructions near their compute limits), evaluated by the alerts job and delivered to a real
// receiver: what fires is exactly what the documented condition says of the same account's route
// answers (provider-report, cu-headroom, release-diff, baseline), with their numbers; a new-issue
// storm comes as summaries under the flood cap; a second run sends nothing (once per state change).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AlertPayload, createRule, runAlerts } from "../../src/alerts";
import { baseline, cuHeadroom, providerReport, releaseDiff, topIssues } from "../../src/analytics/queries";
import { OTTERSEC_SIGNERS, refreshDeploySources, verificationRecordAddress } from "../../src/chain/deploys";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { authenticate, deliveryLog } from "../../src/control";
import { silentLogger } from "../../src/shared/logger";
import { twoProportionPValue } from "../../src/shared/stats";
import { accountsRpc, verificationRecord } from "../chain/deploys/verified-records";
import { type AnswersWorld, END_MS, makeAnswersWorld } from "../helpers/answers-world";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

let world: AnswersWorld;
let ctx: Context;
let receiver: Receiver;
let accountId: string;
const alerts = new Map<string, AlertPayload[]>();

beforeAll(async () => {
  world = await makeAnswersWorld();
  ctx = await createContext(
    loadConfig({ ...world.env, ALERTS_FLOOD_LIMIT: "10", ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" }),
    {
      logger: silentLogger,
      clock: () => END_MS,
    },
  );
  accountId = authenticate(ctx.control, world.keys.a)!.accountId;
  receiver = startReceiver();
  const created = END_MS - 40 * 86_400_000; // before any of the data: every issue is "new" to new_issue
  const add = (rule: string, params: Record<string, unknown>, path = rule) =>
    createRule(
      ctx.control,
      accountId,
      {
        program: world.program,
        rule,
        params,
        destination: { type: "webhook", url: `${receiver.url}/${path}`, secret: "s3cr3t-0123456789abcdef" },
      },
      created,
      ctx.config,
    );
  add("provider_drops", { window: "30d" });
  add("cu_headroom", { window: "30d", withinPercent: 18, minSamples: 20 }); // generated p95s are 80–85% of their limits
  add("regression", { window: "30d", minAttempts: 30 });
  add("landing_rate", { windowMinutes: 1440, threshold: 0.99, baseline: false, minAttempts: 10 });
  add("landing_rate", { windowMinutes: 1440 }, "landing_rate_baseline"); // the generated last day lands far less than the 6 before
  add("new_issue", { withinMinutes: 1440 });
  // Both sides of the regressing deploy have verified-build records naming their commits.
  const release = await releaseDiff(ctx, { program: world.program, accountId, window: "30d" });
  const records = new Map<string, Uint8Array>();
  const signer = OTTERSEC_SIGNERS[0];
  for (const [slot, commit] of [
    [release.previousDeploy!.slot, "0a1b2c3"],
    [release.deploy.slot, "4d5e6f7"],
  ] as const) {
    const repository = "https://github.com/acme/vault";
    records.set(
      verificationRecordAddress(signer, world.program),
      verificationRecord({ program: world.program, signer, repository, commit, deployedSlot: slot }),
    );
    await refreshDeploySources(
      ctx.paths.root,
      accountsRpc(records),
      [{ program: world.program, slot, authority: null }],
      END_MS,
    );
  }
  const summary = await runAlerts(ctx, { effects: { fetch: globalThis.fetch, clock: () => END_MS, random: () => 1 } });
  expect(summary).toMatchObject({ failedRules: 0, gaveUp: 0, failed: 0, retrying: 0 });
  for (const request of receiver.received) {
    const rule = request.path.slice(1);
    alerts.set(rule, [...(alerts.get(rule) ?? []), JSON.parse(request.body)]);
  }
}, 120_000);

afterAll(() => {
  receiver?.stop();
  ctx?.close();
  world?.dispose();
});

const scope = () => ({ program: world.program, accountId });

describe("what fires is what the condition says of the account's answers", () => {
  test("provider_drops: each provider significantly above the others (alpha / k) by at least 5 points", async () => {
    const report = await providerReport(ctx, { ...scope(), window: "30d" });
    const total = report.providers.reduce(
      (s, p) => ({ attempts: s.attempts + p.attempts, dropped: s.dropped + p.dropped }),
      { attempts: 0, dropped: 0 },
    );
    const tested = report.providers.filter((p) => p.attempts >= 30 && total.attempts - p.attempts >= 30);
    const expected = tested.filter((p) => {
      const others = { attempts: total.attempts - p.attempts, dropped: total.dropped - p.dropped };
      return (
        p.dropRate - others.dropped / others.attempts >= 0.05 &&
        twoProportionPValue(others.dropped, others.attempts, p.dropped, p.attempts) < 0.01 / tested.length
      );
    });
    expect(expected.length).toBeGreaterThan(0); // the generated "public" provider drops ~25%
    const fired = alerts.get("provider_drops") ?? [];
    expect(fired.map((a) => a.subject).sort()).toEqual(expected.map((p) => `provider:${p.rpcHash}`).sort());
    for (const alert of fired) {
      const row = report.providers.find((p) => `provider:${p.rpcHash}` === alert.subject)!;
      expect(alert.data.provider).toEqual(JSON.parse(JSON.stringify(row)));
      expect(alert).toMatchObject({ rule: "provider_drops", state: "firing", kind: "alert", program: world.program });
      expect(alert.title).toContain(row.rpcLabel);
    }
  });

  test("cu_headroom: each instruction whose p95 is within 18% of its requested limit", async () => {
    const answer = await cuHeadroom(ctx, { ...scope(), window: "30d" });
    const expected = answer.instructions.filter(
      (i) => i.cuRequestedP50 !== null && i.samples >= 20 && i.cuUsed.p95 >= i.cuRequestedP50 * 0.82,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(answer.instructions.length);
    const fired = alerts.get("cu_headroom") ?? [];
    expect(fired.map((a) => a.subject).sort()).toEqual(expected.map((i) => `instruction:${i.instruction}`).sort());
    for (const alert of fired) {
      const row = answer.instructions.find((i) => `instruction:${i.instruction}` === alert.subject)!;
      expect(alert.data).toMatchObject({
        samples: row.samples,
        cuUsed: row.cuUsed,
        cuRequestedP50: row.cuRequestedP50,
      });
    }
  });

  test("regression: the latest deploy's new or regressed issues and rates below alpha / m, with release-diff's numbers", async () => {
    const diff = await releaseDiff(ctx, { ...scope(), window: "30d" });
    const m = diff.issues.length + 2;
    const expectedIssues = diff.issues.filter(
      (i) => (i.status === "new" || i.status === "regressed") && i.delta > 0 && i.postCount >= 5 && i.pValue < 0.05 / m,
    );
    const rateFires = (["failureRate", "dropRate"] as const).filter((name) => {
      const count =
        name === "failureRate" ? (r: typeof diff.pre) => r.failedOnchain : (r: typeof diff.pre) => r.dropped;
      return (
        diff.pre[name] < diff.post[name] &&
        twoProportionPValue(count(diff.pre), diff.pre.attempts, count(diff.post), diff.post.attempts) < 0.05 / m
      );
    });
    const fired = alerts.get("regression") ?? [];
    expect(expectedIssues.length).toBeGreaterThan(0); // the generated regressing deploy
    expect(fired.map((a) => a.subject).sort()).toEqual(
      [
        ...expectedIssues.map((i) => `deploy:${diff.deploy.slot}:issue:${i.fingerprint}`),
        ...rateFires.map((name) => `deploy:${diff.deploy.slot}:${name}`),
      ].sort(),
    );
    for (const alert of fired.filter((a) => a.data.kind === "issue")) {
      const issue = diff.issues.find((i) => alert.subject === `deploy:${diff.deploy.slot}:issue:${i.fingerprint}`)!;
      expect((alert.data as any).issue).toMatchObject({
        preCount: issue.preCount,
        postCount: issue.postCount,
        pValue: issue.pValue,
        status: issue.status,
      });
      expect(alert.data).toMatchObject({ tests: m, preAttempts: diff.pre.attempts, postAttempts: diff.post.attempts });
      expect(alert.links.issue).toEndWith(`/i/${encodeURIComponent(issue.fingerprint)}`);
    }
    for (const alert of fired) {
      expect(alert.text).toContain(
        "Source: https://github.com/acme/vault at 0a1b2c3...4d5e6f7 (https://github.com/acme/vault/compare/0a1b2c3...4d5e6f7)",
      );
      expect(alert.data).toMatchObject({ compareUrl: "https://github.com/acme/vault/compare/0a1b2c3...4d5e6f7" });
    }
  });

  test("landing_rate: below the threshold with its whole interval, with the same counts as the 1-day baseline", async () => {
    const day = await baseline(ctx, { ...scope(), window: "1d" });
    const [alert] = alerts.get("landing_rate") ?? [];
    expect(day.rates.ci95.landingRate[1]).toBeLessThan(0.99);
    expect(alert).toBeDefined();
    expect((alert.data as any).recent).toEqual(JSON.parse(JSON.stringify(day.rates)));
    expect(alert.data).toMatchObject({ belowThreshold: true, threshold: 0.99 });
    expect(alert.subject).toBe("program");
  });

  test("landing_rate against the program's own baseline: the last day against the 7-day baseline minus that day", async () => {
    const day = await baseline(ctx, { ...scope(), window: "1d" });
    const week = await baseline(ctx, { ...scope(), window: "7d" });
    const prior = { attempts: week.rates.attempts - day.rates.attempts, landed: week.rates.landed - day.rates.landed };
    const pValue = twoProportionPValue(prior.landed, prior.attempts, day.rates.landed, day.rates.attempts);
    const drop = prior.landed / prior.attempts - day.rates.landingRate;
    expect(pValue).toBeLessThan(0.01);
    expect(drop).toBeGreaterThan(0.05);
    const [alert] = alerts.get("landing_rate_baseline") ?? [];
    expect(alert).toBeDefined();
    expect(alert.data).toMatchObject({
      belowThreshold: false,
      threshold: null,
      baseline: { attempts: prior.attempts, landed: prior.landed, pValue, significant: true },
    });
    expect((alert.data as any).baseline.drop).toBeCloseTo(drop, 12);
    expect(alert.text.join("\n")).toContain("The previous 7 days");
  });

  test("new_issue storm: every issue of the last day, folded into one summary under the flood cap, each recorded as summarized", async () => {
    const top = await topIssues(ctx, { ...scope(), window: "1d", limit: 500 });
    const fingerprints = new Set(
      Object.values(top.segments)
        .flat()
        .map((issue) => issue.fingerprint),
    );
    expect(fingerprints.size).toBeGreaterThan(10);
    const messages = alerts.get("new_issue") ?? [];
    expect(messages).toHaveLength(1);
    const [summary] = messages;
    expect(summary).toMatchObject({
      kind: "summary",
      rule: "new_issue",
      subject: null,
      state: "firing",
      data: { count: fingerprints.size, firing: fingerprints.size },
    });
    expect(new Set((summary.data.alerts as any[]).map((a) => a.subject.replace("issue:", "")))).toEqual(fingerprints);
    const log = deliveryLog(ctx.control, { accountId, ruleId: summary.alertId, limit: 1000 });
    expect(log.filter((e) => e.status === "summarized" && e.summaryId === summary.id)).toHaveLength(fingerprints.size);
  });
});

test("a second evaluation of the same data sends nothing: one message per state change", async () => {
  const before = receiver.received.length;
  const summary = await runAlerts(ctx, {
    effects: { fetch: globalThis.fetch, clock: () => END_MS + 60_000, random: () => 1 },
  });
  expect(summary).toMatchObject({ fired: 0, resolved: 0, sent: 0 });
  expect(receiver.received.length).toBe(before);
});
