// Alerts end to end on the local chain: real transactions through a real txray server, a redeploy
// that breaks the app program (its memo code replaced: every call fails with Custom 12), the jobs a
// deployment runs, the alerts job, and real receivers on loopback (a signed webhook, a Slack
// webhook). The broken release fires `regression` and `new_issue` for account A with the numbers
// of the account's release-diff and of the chain's ground truth; a healthy program (the System
// Program, watched by all five rules) fires nothing over the whole run; account B, which reported the
// app program only before the break, can neither create rules on A's programs nor list A's rules,
// and receives nothing of A's.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RunResult } from "../../devkit/simulate";
import { type AlertPayload, verifySignature } from "../../src/alerts";
import { alertsJob } from "../../src/jobs/alerts";
import { runJob } from "../../src/jobs/run";
import { blockKitProblems } from "../helpers/block-kit";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";
import { type LocalnetWorld, localnetWorld } from "./localnet-world";

const SYSTEM = "11111111111111111111111111111111";
const SECRET = "s3cr3t-0123456789abcdef";
const PROVIDERS = [
  { label: "alpha", dropRate: 0 },
  { label: "bravo", dropRate: 0 },
  { label: "charlie", dropRate: 0 },
];
const MIX = { app_call: 40, sol_transfer: 25, token_transfer: 10, sol_insufficient: 12, preflight_sol: 5 };

let world: LocalnetWorld;
let receiver: Receiver;
let app: string;
let broken: RunResult;
const evaluations: Record<string, unknown>[] = [];

const post = async (key: string, body: unknown) => {
  const response = await fetch(`${world.t.url}/v1/alerts`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};
const evaluate = async () => {
  const outcome = await runJob(world.t.ctx, alertsJob);
  expect(outcome).toMatchObject({ ok: true });
  evaluations.push(outcome.details!);
};
const received = (prefix: string) => receiver.received.filter((r) => r.path.startsWith(prefix));

beforeAll(async () => {
  world = await localnetWorld({ ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" });
  receiver = startReceiver();
  // Before: the app works. One app call in five is account B's.
  const before = await world.phase(
    { attempts: 120, seed: 7, providers: PROVIDERS, mix: MIX, payers: 6, blocksPerAttempt: 1 },
    (a, i) => a.truth.scenario === "app_call" && i % 5 === 0,
  );
  app = before.world.appProgram!.toBase58();
  await world.refresh();

  const hook = (path: string, type: "webhook" | "slack" = "webhook") =>
    type === "webhook"
      ? { type, url: `${receiver.url}${path}`, secret: SECRET }
      : { type, url: `${receiver.url}${path}` };
  const rules: [string, unknown][] = [
    [world.keys.a, { program: app, rule: "new_issue", destination: hook("/a/slack/new-issue", "slack") }],
    [
      world.keys.a,
      { program: app, rule: "regression", params: { minAttempts: 20 }, destination: hook("/a/regression") },
    ],
    ...["new_issue", "regression", "landing_rate", "provider_drops", "cu_headroom"].map((rule): [string, unknown] => [
      world.keys.a,
      {
        program: SYSTEM,
        rule,
        params: rule === "landing_rate" ? { threshold: 0.5, windowMinutes: 5 } : {},
        destination: hook(`/healthy/${rule}`),
      },
    ]),
    [world.keys.b, { program: app, rule: "new_issue", destination: hook("/b/new-issue") }],
    [
      world.keys.b,
      { program: app, rule: "regression", params: { minAttempts: 1 }, destination: hook("/b/regression") },
    ],
  ];
  for (const [key, body] of rules) expect((await post(key, body)).status).toBe(201);
  await evaluate(); // before the break: nothing holds

  // The break: the app program is redeployed with other code after 30 attempts; all of this is account A's.
  broken = await world.phase({
    attempts: 120,
    seed: 7,
    providers: PROVIDERS,
    mix: MIX,
    payers: 6,
    blocksPerAttempt: 1,
    redeployAt: 30,
  });
  await world.refresh();
  await evaluate();
  await evaluate(); // the same data again: nothing new
}, 600_000);

afterAll(async () => {
  receiver?.stop();
  await world?.stop();
});

describe("a redeploy that breaks the app program", () => {
  const failuresAfterBreak = () =>
    broken.attempts.filter((a) => a.truth.scenario === "app_call" && a.truth.outcome === "failed_onchain");

  test("fires regression for the new issue and the failure rate, once, with the account's release-diff numbers", async () => {
    const messages = received("/a/regression").map((r) => ({ request: r, body: JSON.parse(r.body) as AlertPayload }));
    expect(messages.map((m) => m.body.subject?.replace(/:v1:.*$/, "")).sort()).toEqual(
      [`deploy:${broken.deploys.at(-1)!.slot}:failureRate`, `deploy:${broken.deploys.at(-1)!.slot}:issue`].sort(),
    );
    for (const { request, body } of messages) {
      expect(
        verifySignature(SECRET, request.headers.get("x-txray-signature"), request.body, Math.floor(body.sentAt / 1000)),
      ).toBe(true);
      expect(body).toMatchObject({ kind: "alert", rule: "regression", program: app, state: "firing", attempt: 1 });
    }
    const diff = (await world.t.get(`/v1/release-diff/${app}?window=1d&scope=account`, { "x-api-key": world.keys.a }))
      .body;
    expect(diff.deploy.slot).toBe(broken.deploys.at(-1)!.slot);
    const issueAlert = messages.find((m) => m.body.data.kind === "issue")!.body;
    const issue = diff.issues.find((i: any) => i.fingerprint === (issueAlert.data as any).issue.fingerprint);
    expect(issue).toMatchObject({ status: "new", preCount: 0, errCode: 12 });
    expect((issueAlert.data as any).issue).toMatchObject({
      preCount: issue.preCount,
      postCount: issue.postCount,
      pValue: issue.pValue,
      status: "new",
    });
    expect(issue.postCount).toBe(failuresAfterBreak().length);
    expect(issueAlert.data).toMatchObject({
      preAttempts: diff.pre.attempts,
      postAttempts: diff.post.attempts,
      tests: diff.issues.length + 2,
    });
    expect(issueAlert.links.issue).toEndWith(`/i/${encodeURIComponent(issue.fingerprint)}`);
    expect(issueAlert.links.example).toMatch(/\/tx\/[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    const rate = messages.find((m) => m.body.data.kind === "failureRate")!.body.data as any;
    expect(rate.before).toEqual({
      count: diff.pre.failedOnchain,
      attempts: diff.pre.attempts,
      rate: diff.pre.failureRate,
    });
    expect(rate.after).toEqual({
      count: diff.post.failedOnchain,
      attempts: diff.post.attempts,
      rate: diff.post.failureRate,
    });
    expect(rate.before.count).toBe(0);
  });

  test("fires new_issue once, to Slack, in valid Block Kit with the count the chain shows and links to the web app", async () => {
    const messages = received("/a/slack/new-issue");
    expect(messages).toHaveLength(1);
    const message = JSON.parse(messages[0].body);
    expect(blockKitProblems(message)).toEqual([]);
    const text = JSON.stringify(message);
    const count = failuresAfterBreak().length;
    expect(count).toBeGreaterThan(20);
    expect(text).toContain(`${count} occurrences in the last 60 min`);
    expect(text).toContain("error 12");
    expect(text).toContain(`/p/${app}|Program page>`);
    expect(text).toMatch(/\/i\/v1%3A[0-9a-f]{16}\|Issue>/);
    expect(text).toMatch(/\/tx\/[1-9A-HJ-NP-Za-km-z]+\|Example transaction>/);
  });

  test("each alert went out once over the three evaluations; the second evaluation of the same data fired nothing", () => {
    expect(evaluations.map((e) => e.fired)).toEqual([0, 3, 0]);
    expect(evaluations.every((e) => e.failedRules === 0)).toBe(true);
    expect(received("/a/")).toHaveLength(3);
    const ids = received("/a/").map((r) => r.headers.get("x-txray-delivery"));
    expect(new Set(ids).size).toBe(3);
  });
});

describe("no false alarm and no leak", () => {
  test("the healthy System Program, watched by all five rules (evaluated each time), fired nothing over the run", async () => {
    expect(evaluations.every((e) => e.evaluated === 9)).toBe(true);
    expect(received("/healthy/")).toEqual([]);
    // The rules had data to judge: the program's recent traffic is well over their minimums.
    const base = (await world.t.get(`/v1/baseline/${SYSTEM}?window=1d&scope=account`, { "x-api-key": world.keys.a }))
      .body;
    expect(base.rates.attempts).toBeGreaterThan(60);
    expect(base.rates.failedOnchain).toBeGreaterThan(5);
  });

  test("account B: its rules on the app program see only its own data (healthy) and receive nothing; it cannot watch or list A's", async () => {
    expect(received("/b/")).toEqual([]);
    const refused = await post(world.keys.b, {
      program: SYSTEM,
      rule: "new_issue",
      destination: { type: "webhook", url: `${receiver.url}/b/x` },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe("not_found");
    const listed = (await world.t.get("/v1/alerts", { "x-api-key": world.keys.b })).body;
    expect(
      listed.items.every(
        (r: any) => r.destination.url.startsWith(`${receiver.url}/…`) && !r.destination.url.includes("/b/"),
      ),
    ).toBe(true);
    expect(listed.items).toHaveLength(2);
    expect(listed.items.every((r: any) => r.program === app && r.firing === 0)).toBe(true);
    const aRules = (await world.t.get("/v1/alerts", { "x-api-key": world.keys.a })).body.items;
    expect(aRules).toHaveLength(7);
    expect(
      aRules
        .filter((r: any) => r.firing > 0)
        .map((r: any) => [r.rule, r.firing])
        .sort(),
    ).toEqual([
      ["new_issue", 1],
      ["regression", 2],
    ]);
  });
});
