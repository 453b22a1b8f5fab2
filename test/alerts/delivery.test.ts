// Delivering alerts to a real receiver on loopback, with the clock and the jitter passed in so time is
// the test's to move: a receiver that answers 500 then 200 gets the alert once (two requests, one
// id); 429 with Retry-After (seconds or a date) is waited out exactly; a 4xx fails at once; a
// destination down past ALERTS_GIVE_UP_MS is given up and says so; a later alert never overtakes an
// earlier one to the same destination; a Slack destination gets valid Block Kit; the signature
// verifies. The deliveries are stored as an evaluation stores them (commitAlertChanges).

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  createRule,
  deliverDue,
  PAYLOAD_VERSION,
  type SendEffects,
  type StoredPayload,
  verifySignature,
} from "../../src/alerts";
import { addProgramCounts, commitAlertChanges, deliveryById, deliveryLog, type NewDelivery } from "../../src/control";
import { blockKitProblems } from "../helpers/block-kit";
import { testContext } from "../helpers/context";
import { randomAddress } from "../helpers/envelopes";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

type Ctx = Awaited<ReturnType<typeof testContext>>;
const SECRET = "s3cr3t-0123456789abcdef";
const T0 = 1_763_700_000_000;

let ctx: Ctx;
let receiver: Receiver | null = null;
let now = T0;
const program = randomAddress();
const effects: SendEffects = { fetch: globalThis.fetch, clock: () => now, random: () => 1 };

beforeEach(async () => {
  ctx = await testContext({
    ALERTS_RETRY_BASE_MS: "5000",
    ALERTS_GIVE_UP_MS: "600000",
    ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  });
  now = T0;
});
afterEach(() => {
  receiver?.stop();
  receiver = null;
  ctx.dispose();
});

/** A rule of a fresh account on `program` to the receiver, and a way to queue alerts for it as an evaluation does. */
function ruleTo(url: string, type: "webhook" | "slack" = "webhook") {
  const accountId = `acc_${Math.random().toString(36).slice(2, 10)}`;
  addProgramCounts(ctx.control, [{ accountId, program, attempts: 1, lastSeen: T0 }]);
  const created = createRule(
    ctx.control,
    accountId,
    { program, rule: "new_issue", destination: type === "webhook" ? { type, url, secret: SECRET } : { type, url } },
    T0,
    ctx.config,
  );
  let n = 0;
  const queue = (state: "firing" | "resolved" = "firing") => {
    const id = `dlv_${created.id.slice(4)}${String(++n).padStart(8, "0")}`;
    const payload: StoredPayload = {
      version: PAYLOAD_VERSION,
      id,
      kind: "alert",
      alertId: created.id,
      rule: "new_issue",
      program,
      subject: `issue:v1:${n}`,
      state,
      title: `New issue ${n}`,
      text: [`${n} occurrences`],
      data: { n },
      links: { program: `http://127.0.0.1/p/${program}` },
      firingSince: now,
      changedAt: now,
    };
    const delivery: NewDelivery = {
      id,
      ruleId: created.id,
      accountId,
      destinationKey: ctx.control
        .query<{ k: string }, [string]>("SELECT destination_key AS k FROM alert_rules WHERE id = ?")
        .get(created.id)!.k,
      kind: "alert",
      subject: payload.subject,
      state,
      title: payload.title,
      payload: JSON.stringify(payload),
      status: "pending",
      createdAt: now,
      nextAttemptAt: now,
      giveUpAt: now + ctx.config.ALERTS_GIVE_UP_MS,
      summaryId: null,
    };
    commitAlertChanges(ctx.control, { states: [], deliveries: [delivery], updates: [] });
    return id;
  };
  return { rule: created, queue };
}

const bodies = (r: Receiver) => r.received.map((request) => JSON.parse(request.body));

describe("retries", () => {
  test("500 then 200: the alert arrives once, two requests with one id; the log says sent after 2 attempts", async () => {
    receiver = startReceiver((_, i) => (i === 0 ? new Response("boom", { status: 500 }) : new Response("ok")));
    const { queue } = ruleTo(`${receiver.url}/hook`);
    const id = queue();
    expect(await deliverDue(ctx, effects)).toMatchObject({ sent: 0, retrying: 1 });
    expect(deliveryById(ctx.control, id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatus: 500,
      lastError: "HTTP 500: boom",
      nextAttemptAt: T0 + 5000,
    });
    now = T0 + 4999;
    expect(await deliverDue(ctx, effects)).toMatchObject({ sent: 0, retrying: 0 }); // not due yet
    expect(receiver.received).toHaveLength(1);
    now = T0 + 5000;
    expect(await deliverDue(ctx, effects)).toMatchObject({ sent: 1 });
    now = T0 + 60_000;
    expect(await deliverDue(ctx, effects)).toMatchObject({ sent: 0 }); // nothing left
    const [first, second] = bodies(receiver);
    expect(receiver.received).toHaveLength(2);
    expect(first.id).toBe(id);
    expect(second.id).toBe(id);
    expect([first.attempt, second.attempt]).toEqual([1, 2]);
    expect(second.sentAt).toBe(T0 + 5000);
    expect(deliveryById(ctx.control, id)).toMatchObject({
      status: "sent",
      attempts: 2,
      lastStatus: 200,
      sentAt: T0 + 5000,
    });
    // Accepted exactly once (the 500 was not an acceptance) and each request signed over its own body.
    for (const request of receiver.received)
      expect(
        verifySignature(
          SECRET,
          request.headers.get("x-txray-signature"),
          request.body,
          Math.floor(JSON.parse(request.body).sentAt / 1000),
        ),
      ).toBe(true);
  });

  test("429 with Retry-After in seconds, then as an HTTP date, is waited out exactly", async () => {
    const retryAt = new Date(T0 + 200_000).toUTCString();
    receiver = startReceiver((_, i) =>
      i === 0
        ? new Response("slow down", { status: 429, headers: { "retry-after": "120" } })
        : i === 1
          ? new Response("", { status: 429, headers: { "retry-after": retryAt } })
          : new Response("ok"),
    );
    const { queue } = ruleTo(`${receiver.url}/hook`);
    const id = queue();
    await deliverDue(ctx, effects);
    expect(deliveryById(ctx.control, id)).toMatchObject({
      status: "pending",
      lastStatus: 429,
      nextAttemptAt: T0 + 120_000,
    });
    now = T0 + 119_999;
    await deliverDue(ctx, effects);
    expect(receiver.received).toHaveLength(1);
    now = T0 + 120_000;
    await deliverDue(ctx, effects);
    expect(receiver.received).toHaveLength(2);
    expect(deliveryById(ctx.control, id)!.nextAttemptAt).toBe(Date.parse(retryAt));
    now = Date.parse(retryAt);
    await deliverDue(ctx, effects);
    expect(receiver.received).toHaveLength(3);
    expect(deliveryById(ctx.control, id)).toMatchObject({ status: "sent", attempts: 3 });
  });

  test("a 4xx fails at once without retrying; a 3xx is not followed; the next alert to the destination still goes", async () => {
    receiver = startReceiver((request) =>
      request.path === "/gone"
        ? new Response("no_service", { status: 404 })
        : request.path === "/moved"
          ? new Response(null, { status: 301, headers: { location: "/hook" } })
          : new Response("ok"),
    );
    const gone = ruleTo(`${receiver.url}/gone`);
    const lost = gone.queue();
    const moved = ruleTo(`${receiver.url}/moved`).queue();
    expect(await deliverDue(ctx, effects)).toMatchObject({ failed: 2, retrying: 0 });
    expect(deliveryById(ctx.control, lost)).toMatchObject({
      status: "failed",
      attempts: 1,
      lastError: "HTTP 404: no_service",
    });
    expect(deliveryById(ctx.control, moved)!.lastError).toContain("redirects are not followed");
    expect(receiver.received.map((r) => r.path).sort()).toEqual(["/gone", "/moved"]);
    const next = gone.queue();
    now += 1000;
    await deliverDue(ctx, effects);
    expect(deliveryById(ctx.control, next)).toMatchObject({ status: "failed", attempts: 1 });
  });

  test("a destination down past ALERTS_GIVE_UP_MS: the delivery is given up and says how; nothing more is sent", async () => {
    receiver = startReceiver(() => new Response("down", { status: 503 }));
    const { queue } = ruleTo(`${receiver.url}/hook`);
    const id = queue();
    for (let round = 0; round < 40 && deliveryById(ctx.control, id)!.status === "pending"; round++) {
      now = Math.max(now, deliveryById(ctx.control, id)!.nextAttemptAt);
      await deliverDue(ctx, effects);
    }
    const delivery = deliveryById(ctx.control, id)!;
    expect(delivery.status).toBe("failed");
    // 5 s, 10 s, 20 s, … (random = 1: the whole step): attempts at 0, 5, 15, 35, 75, 155, 315 s; the next (at 635 s) is past 600 s.
    expect(delivery.attempts).toBe(7);
    expect(delivery.lastError).toBe("gave up after 7 attempts over 5 min; last: HTTP 503: down");
    expect(receiver.received).toHaveLength(7);
    now += 3_600_000;
    await deliverDue(ctx, effects);
    expect(receiver.received).toHaveLength(7);
    const [entry] = deliveryLog(ctx.control, { accountId: null, ruleId: null, limit: 1 });
    expect(entry).toMatchObject({ id, status: "failed", program, rule: "new_issue" });
  });

  test("per destination in order: a later alert waits while an earlier one is retried; other destinations do not wait", async () => {
    let failFirst = true;
    receiver = startReceiver((request) => {
      const body = JSON.parse(request.body);
      if (request.path === "/a" && body.subject === "issue:v1:1" && failFirst) {
        failFirst = false;
        return new Response("", { status: 502 });
      }
      return new Response("ok");
    });
    const a = ruleTo(`${receiver.url}/a`);
    const b = ruleTo(`${receiver.url}/b`);
    const first = a.queue("firing");
    const second = a.queue("resolved");
    const other = b.queue();
    await deliverDue(ctx, effects);
    expect(receiver.received.map((r) => `${r.path} ${JSON.parse(r.body).subject}`).sort()).toEqual([
      "/a issue:v1:1",
      "/b issue:v1:1",
    ]);
    expect(deliveryById(ctx.control, second)).toMatchObject({ status: "pending", attempts: 0 });
    expect(deliveryById(ctx.control, other)).toMatchObject({ status: "sent" });
    now += 5000;
    await deliverDue(ctx, effects);
    const toA = receiver.received.filter((r) => r.path === "/a").map((r) => JSON.parse(r.body).id);
    expect(toA).toEqual([first, first, second]);
  });
});

test("a Slack destination gets valid Block Kit (no signature header: the URL is the credential)", async () => {
  receiver = startReceiver();
  const { queue } = ruleTo(`${receiver.url}/services/T0/B0/x`, "slack");
  queue();
  await deliverDue(ctx, effects);
  const [request] = receiver.received;
  const message = JSON.parse(request.body);
  expect(blockKitProblems(message)).toEqual([]);
  expect(message.blocks[0]).toMatchObject({ type: "header" });
  expect(JSON.stringify(message)).toContain("1 occurrences");
  expect(request.headers.get("x-txray-signature")).toBeNull();
  expect(request.headers.get("content-type")).toBe("application/json");
});
