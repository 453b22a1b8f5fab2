// Issue states over a generated world, in process (the app's handler, a clock the test sets): an admin
// key resolves, ignores, assigns and reopens issues through POST /v1/issue/{fingerprint}/state; the
// state read back (the state route, issue detail, the issue list, top-issues) is the one the rules
// derive from the events and deploys in the serving tables. Times of changes are set between the
// world's own events and deploys, so "events after the change" are the world's newest events: 10
// after an ignore keep it ignored, 11 bring it back. A read or ingest key changes nothing (403).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRule, runAlerts } from "../../src/alerts";
import {
  actorOfPrincipal,
  changeIssueState,
  deriveIssueState,
  ErrorBodySchema,
  IssueDetailSchema,
  IssueListSchema,
  IssueStateAnswerSchema,
} from "../../src/analytics/queries";
import { createApp } from "../../src/api/app";
import { slackSignature } from "../../src/chat";
import { run } from "../../src/cli/commands";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { authenticate, createAccountKey, type StoredIssueState } from "../../src/control";
import { readLakeSql } from "../../src/lake/schema";
import { silentLogger } from "../../src/shared/logger";
import { type AnswersWorld, END_MS, makeAnswersWorld } from "../helpers/answers-world";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

const DAY = 86_400_000;
const SLACK_SECRET = "slack-signing-secret-for-tests";
let world: AnswersWorld;
let ctx: Context;
let app: ReturnType<typeof createApp>;
let receiver: Receiver;
let now = END_MS + 60_000;
const keys = { admin: "", read: "", ingest: "", otherAdmin: "" };
let accountId: string;
/** The busiest issue's newest kept events in account A (received_at, newest first). */
let newest: number[];
let deploys: { slot: number; effective_at: number }[];

beforeAll(async () => {
  world = await makeAnswersWorld(1_500);
  ctx = await createContext(
    loadConfig({
      ...world.env,
      PUBLIC_RATE_PER_MINUTE: "1000000",
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_TRIAGE_ACCOUNT: "team-a",
      ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
    }),
    {
      logger: silentLogger,
      clock: () => now,
    },
  );
  app = createApp({ ctx, spool: null });
  keys.admin = createAccountKey(ctx.control, "team-a", "live", now).key;
  keys.read = world.keys.a;
  keys.ingest = createAccountKey(ctx.control, "team-a", "ingest", now).key;
  keys.otherAdmin = createAccountKey(ctx.control, "team-b", "live", now).key;
  accountId = authenticate(ctx.control, keys.admin)!.accountId;
  receiver = startReceiver();
  newest = (
    await ctx.duck.all<{ received_at: number }>(
      `SELECT received_at FROM read_parquet('${ctx.paths.lake}/envelopes/**/*.parquet', hive_partitioning = true) e
       JOIN read_parquet('${ctx.paths.lake}/resolutions/**/*.parquet', hive_partitioning = true) r USING (attempt_id)
       WHERE r.fingerprint = '${world.fingerprint}' AND e.account_id = '${accountId}' ORDER BY received_at DESC LIMIT 30`,
    )
  ).map((row) => Number(row.received_at));
  deploys = await ctx.duck.all<{ slot: number; effective_at: number }>(
    `SELECT slot, coalesce(min(deployed_at), min(detected_at)) AS effective_at FROM read_parquet('${ctx.paths.lake}/deploys/**/*.parquet', hive_partitioning = true, hive_types = {'program': 'VARCHAR'})
     WHERE program = '${world.program}' GROUP BY slot ORDER BY slot`,
  );
}, 60_000);

afterAll(() => {
  receiver?.stop();
  ctx?.close();
  world?.dispose();
});

async function call(method: string, path: string, options: { key?: string; body?: unknown; raw?: string } = {}) {
  const response = await app.handle(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { ...(options.key ? { "x-api-key": options.key } : {}), "content-type": "application/json" },
      body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    }),
  );
  return { status: response.status, body: (await response.json()) as any };
}
const path = (fingerprint: string) => `/v1/issue/${encodeURIComponent(fingerprint)}/state`;
/**
 * Changes an issue's state at time `at` as the admin key: through the route when `at` is the app's
 * time, else through the function the route calls, with the context's clock set back (the route's
 * rate limit would take a clock going back for a flood).
 */
async function change(body: unknown, at: number, fingerprint = world.fingerprint): Promise<any> {
  if (at === now) {
    const answer = await call("POST", path(fingerprint), { key: keys.admin, body });
    expect(answer.status).toBe(200);
    return IssueStateAnswerSchema.parse(answer.body);
  }
  const principal = authenticate(ctx.control, keys.admin)!;
  const saved = now;
  now = at;
  try {
    return IssueStateAnswerSchema.parse(
      await changeIssueState(ctx, principal.accountId, actorOfPrincipal(principal), fingerprint, body),
    );
  } finally {
    now = saved;
  }
}
const stateNow = async (fingerprint = world.fingerprint) =>
  (await call("GET", path(fingerprint), { key: keys.read })).body.state;

describe("changing a state", () => {
  test("resolve: resolved while no event follows; hidden from top-issues and the list unless asked", async () => {
    const answer = await change({ state: "resolved" }, now);
    expect(answer.state).toMatchObject({ state: "resolved", stored: "resolved", eventsSinceChange: 0 });
    const top = await call("GET", `/v1/top-issues/${world.program}?scope=account&limit=500`, { key: keys.read });
    const listed = (body: any) =>
      Object.values(body.segments)
        .flat()
        .map((issue: any) => issue.fingerprint);
    expect(listed(top.body)).not.toContain(world.fingerprint);
    const all = await call("GET", `/v1/top-issues/${world.program}?scope=account&limit=500&state=all`, {
      key: keys.read,
    });
    expect(listed(all.body)).toContain(world.fingerprint);
    // The public answer knows no account's triage.
    const pub = await call("GET", `/v1/top-issues/${world.program}?limit=500`);
    expect(listed(pub.body)).toContain(world.fingerprint);
    const list = await call("GET", `/v1/issues/${world.program}?limit=500`, { key: keys.read });
    expect(list.body.items.map((item: any) => item.fingerprint)).not.toContain(world.fingerprint);
    const resolvedOnly = await call("GET", `/v1/issues/${world.program}?state=resolved`, { key: keys.read });
    expect(resolvedOnly.body.items.map((item: any) => item.fingerprint)).toEqual([world.fingerprint]);
    const detail = await call("GET", `/v1/issue/${encodeURIComponent(world.fingerprint)}?scope=account`, {
      key: keys.read,
    });
    IssueDetailSchema.parse(detail.body);
    expect(detail.body.state.state).toBe("resolved");
    expect((await call("GET", `/v1/issue/${encodeURIComponent(world.fingerprint)}`)).body.state).toBeNull();
  });

  test("events after the resolve make it regressed, and the regression rule fires once for it", async () => {
    const regressAt = deploys.at(-1)!.effective_at;
    const answer = await change({ state: "resolved" }, regressAt - DAY);
    expect(answer.state.state).toBe("regressed");
    const list = await call("GET", `/v1/issues/${world.program}?limit=500`, { key: keys.read });
    expect(list.body.items.find((item: any) => item.fingerprint === world.fingerprint).state.state).toBe("regressed");
    createRule(
      ctx.control,
      accountId,
      {
        program: world.program,
        rule: "regression",
        params: { window: "30d", minAttempts: 1_000_000 }, // only the state's finding can fire
        destination: { type: "webhook", url: `${receiver.url}/regression`, secret: "s3cr3t-0123456789abcdef" },
      },
      now,
      ctx.config,
    );
    const effects = { fetch: globalThis.fetch, clock: () => now, random: () => 1 };
    await runAlerts(ctx, { effects });
    await runAlerts(ctx, { effects });
    const fired = receiver.received.map((request) => JSON.parse(request.body));
    expect(fired).toHaveLength(1);
    expect(fired[0].state).toBe("firing");
    expect(JSON.stringify(fired[0])).toContain(world.fingerprint);
  });

  test("resolved_next_release: pending until a deploy follows, resolved at it, regressed by events after it", async () => {
    const [quiet, regress] = deploys;
    // Before the world's last deploy, with events after it: that deploy shipped, and events followed.
    expect((await change({ state: "resolved_next_release" }, regress.effective_at - DAY)).state).toMatchObject({
      state: "regressed",
      release: { slot: Number(regress.slot) },
    });
    // After every deploy: waiting for the next one.
    const pending = await change({ state: "resolved_next_release" }, END_MS + 1000);
    expect(pending.state).toMatchObject({ state: "resolved_next_release", release: null });
    // An issue of the account last seen before a deploy, marked before that deploy: resolved by it.
    const [quietIssue] = await ctx.duck.all<{ fingerprint: string; last_seen: number }>(
      `SELECT r.fingerprint, max(e.received_at) AS last_seen
       FROM ${readLakeSql("envelopes", `'${ctx.paths.lake}/envelopes/**/*.parquet'`, "hive_partitioning = true")} e
       JOIN ${readLakeSql("resolutions", `'${ctx.paths.lake}/resolutions/**/*.parquet'`, "hive_partitioning = true")} r USING (attempt_id)
       WHERE e.program = '${world.program}' AND e.account_id = '${accountId}' AND r.fingerprint IS NOT NULL
       GROUP BY r.fingerprint HAVING max(e.received_at) < ${quiet.effective_at} OR
         (max(e.received_at) < ${regress.effective_at} AND max(e.received_at) > ${quiet.effective_at})
       ORDER BY last_seen DESC LIMIT 1`,
    );
    expect(quietIssue).toBeDefined();
    const release = Number(quietIssue.last_seen) < quiet.effective_at ? quiet : regress;
    const shipped = await change(
      { state: "resolved_next_release" },
      Number(quietIssue.last_seen) + 1,
      quietIssue.fingerprint,
    );
    expect(shipped.state).toMatchObject({ state: "resolved", release: { slot: Number(release.slot) } });
  });

  test("ignored until 10 more events: still ignored after the 10th, unresolved at the 11th", async () => {
    // The change just before the 10th newest event: 10 events after it.
    const ten = await change({ state: "ignored", ignoreUntilEvents: 10 }, newest[10]);
    expect(newest[9]).toBeGreaterThan(newest[10]);
    expect(ten.state).toMatchObject({ state: "ignored", eventsSinceChange: 10 });
    const eleven = await change({ state: "ignored", ignoreUntilEvents: 10 }, newest[11]);
    expect(newest[10]).toBeGreaterThan(newest[11]);
    expect(eleven.state).toMatchObject({ state: "unresolved", stored: "ignored", eventsSinceChange: 11 });
    // Until a time: ignored before it, back after it.
    const until = await change({ state: "ignored", ignoreUntilAt: END_MS + 2 * DAY }, END_MS + 1000);
    expect(until.state.state).toBe("ignored");
    now = END_MS + 3 * DAY;
    expect((await stateNow()).state).toBe("unresolved");
  });

  test("the history lists each change with who made it, never the key", async () => {
    await change({ assignee: "alice@example.com" }, now);
    now += 1000;
    const answer = await change({ state: "unresolved", assignee: null }, now);
    const history = answer.history as any[];
    const adminId = authenticate(ctx.control, keys.admin)!.keyId;
    expect(history.map((entry) => [entry.change, entry.change === "state" ? entry.to.state : entry.to])).toEqual([
      ["state", "resolved"],
      ["state", "resolved"],
      ["state", "resolved_next_release"],
      ["state", "resolved_next_release"],
      ["state", "ignored"],
      ["state", "ignored"],
      ["state", "ignored"],
      ["assignee", "alice@example.com"],
      ["state", "unresolved"],
      ["assignee", null],
    ]);
    for (const entry of history) expect(entry.actor).toBe(`key ${adminId} (team-a)`);
    expect(JSON.stringify(history)).not.toContain(keys.admin);
    expect(history.at(-1).at).toBe(now);
    expect(answer.state).toMatchObject({ state: "unresolved", assignee: null });
  });
});

describe("who may change a state, and bad input", () => {
  test("a read or ingest key cannot change a state (403); no key or an unknown one is 401", async () => {
    for (const key of [keys.read, keys.ingest]) {
      const answer = await call("POST", path(world.fingerprint), { key, body: { state: "resolved" } });
      expect(answer.status).toBe(403);
      expect(ErrorBodySchema.parse(answer.body).error.code).toBe("forbidden");
    }
    expect((await call("POST", path(world.fingerprint), { body: { state: "resolved" } })).status).toBe(401);
    expect(
      (await call("POST", path(world.fingerprint), { key: "txr_live_nope", body: { state: "resolved" } })).status,
    ).toBe(401);
    expect((await call("GET", path(world.fingerprint), { key: keys.ingest })).status).toBe(403);
    expect((await call("GET", `/v1/issues/${world.program}`, { key: keys.ingest })).status).toBe(403);
    expect((await call("GET", `/v1/issues/${world.program}`)).status).toBe(401);
    expect((await stateNow()).stored).toBe("unresolved");
  });

  test("bad bodies and fingerprints are 400s naming the field; another account's or an unknown issue is 404", async () => {
    const bad: [unknown, string][] = [
      [{ state: "fixed" }, "state"],
      [{}, "expected state or assignee"],
      [{ state: "resolved", extra: 1 }, "extra"],
      [{ state: "resolved", ignoreUntilEvents: 5 }, "state"],
      [{ state: "ignored", ignoreUntilEvents: 0 }, "ignoreUntilEvents"],
      [{ state: "ignored", ignoreUntilEvents: "10" }, "ignoreUntilEvents"],
      [{ assignee: "x".repeat(101) }, "assignee"],
      [{ assignee: "bob\u0000" }, "assignee"],
      [[], "(body)"],
      [null, "(body)"],
    ];
    for (const [body, field] of bad) {
      const answer = await call("POST", path(world.fingerprint), { key: keys.admin, body });
      expect(answer.status).toBe(400);
      expect(ErrorBodySchema.parse(answer.body).error.message).toContain(field);
    }
    for (const raw of ["{", "\u00ff", "x".repeat(5000)]) {
      const answer = await call("POST", path(world.fingerprint), { key: keys.admin, raw });
      expect([400, 413]).toContain(answer.status);
      ErrorBodySchema.parse(answer.body);
    }
    for (const fingerprint of ["v1:XYZ", "v1:0123", "' OR 1=1 --", "v1:0123456789abcdef/../x"]) {
      const answer = await call("POST", path(fingerprint), { key: keys.admin, body: { state: "resolved" } });
      expect([400, 404]).toContain(answer.status);
      ErrorBodySchema.parse(answer.body);
    }
    expect(
      (await call("POST", path("v1:0123456789abcdef"), { key: keys.admin, body: { state: "resolved" } })).status,
    ).toBe(404);
    // Team B's key sees none of team A's triage (its own state of the issue is untouched).
    const other = await call("GET", path(world.fingerprint), { key: keys.otherAdmin });
    if (other.status === 200) expect(other.body.history).toEqual([]);
    else expect(other.status).toBe(404);
  });
});

describe("the issue list", () => {
  test("filters, sorts by events or wallets, and pages with a signed cursor", async () => {
    const all = await call("GET", `/v1/issues/${world.program}?state=all&window=30d&limit=500`, { key: keys.read });
    expect(all.status).toBe(200);
    IssueListSchema.parse(all.body);
    const items = all.body.items as any[];
    expect(items.length).toBeGreaterThan(3);
    expect(items.map((item) => item.count)).toEqual([...items.map((item) => item.count)].sort((a, b) => b - a));
    const byWallets = await call("GET", `/v1/issues/${world.program}?state=all&window=30d&sort=wallets&limit=500`, {
      key: keys.read,
    });
    const wallets = byWallets.body.items.map((item: any) => item.wallets);
    expect(wallets).toEqual([...wallets].sort((a: number, b: number) => b - a));
    const instruction = items.find((item) => item.instruction !== null).instruction;
    const filtered = await call(
      "GET",
      `/v1/issues/${world.program}?state=all&window=30d&instruction=${encodeURIComponent(instruction)}`,
      { key: keys.read },
    );
    expect(filtered.body.items.length).toBeGreaterThan(0);
    for (const item of filtered.body.items) expect(item.instruction).toBe(instruction);
    const named = items.find((item) => item.errName !== null);
    const byError = await call("GET", `/v1/issues/${world.program}?state=all&window=30d&error=${named.errName}`, {
      key: keys.read,
    });
    for (const item of byError.body.items) expect(item.errName).toBe(named.errName);
    const since = items[Math.floor(items.length / 2)].firstSeen;
    const recent = await call("GET", `/v1/issues/${world.program}?state=all&window=30d&since=${since}&limit=500`, {
      key: keys.read,
    });
    for (const item of recent.body.items) expect(item.firstSeen).toBeGreaterThanOrEqual(since);
    // Pages of 2 walk the same list.
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: any } = await call(
        "GET",
        `/v1/issues/${world.program}?state=all&window=30d&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { key: keys.read },
      );
      pages.push(...page.body.items.map((item: any) => item.fingerprint));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual(items.map((item) => item.fingerprint));
  });

  test("bad and hostile parameters are 400s; a tampered cursor or one from another query too", async () => {
    const first = await call("GET", `/v1/issues/${world.program}?state=all&limit=1`, { key: keys.read });
    const cursor = first.body.nextCursor as string;
    const [payload, signature] = cursor.split(".");
    const forged = `${Buffer.from(JSON.stringify({ offset: 0, query: "x" })).toString("base64url")}.${signature}`;
    for (const query of [
      "limit=0",
      "limit=501",
      "limit=abc",
      "state=fixed",
      "sort=age",
      "since=yesterday",
      "window=2d",
      `cursor=${encodeURIComponent(forged)}`,
      `cursor=${encodeURIComponent(`${payload}x.${signature}`)}`,
      `state=open&cursor=${encodeURIComponent(cursor)}`,
      `instruction=${"x".repeat(300)}`,
    ]) {
      const answer = await call("GET", `/v1/issues/${world.program}?${query}`, { key: keys.read });
      expect(answer.status).toBe(400);
      ErrorBodySchema.parse(answer.body);
    }
    expect((await call("GET", "/v1/issues/not-a-program", { key: keys.read })).status).toBe(400);
  });
});

describe("the MCP tools", () => {
  async function tool(name: string, args: Record<string, unknown>, key: string | null) {
    const response = await app.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          // A real client always names the host (HTTP/1.1); /mcp refuses a request that does not.
          host: "127.0.0.1",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
      }),
    );
    const text = await response.text();
    const message = text.startsWith("{") ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)![1]);
    return message.result;
  }

  test("issue_list and set_issue_state answer as their routes; a read key cannot change a state", async () => {
    const listed = await tool("issue_list", { program: world.program, state: "all", limit: 3 }, keys.read);
    const route = await call("GET", `/v1/issues/${world.program}?state=all&limit=3`, { key: keys.read });
    expect(listed.structuredContent).toEqual(route.body);
    const refused = await tool("set_issue_state", { fingerprint: world.fingerprint, state: "resolved" }, keys.read);
    expect(refused.isError).toBe(true);
    expect(refused._meta["txray/error"].code).toBe("forbidden");
    const set = await tool("set_issue_state", { fingerprint: world.fingerprint, assignee: "mcp-bob" }, keys.admin);
    expect(set.structuredContent.state.assignee).toBe("mcp-bob");
    expect(set.structuredContent.history.at(-1)).toMatchObject({ change: "assignee", to: "mcp-bob" });
    const bad = await tool("set_issue_state", { fingerprint: world.fingerprint, state: "fixed" }, keys.admin);
    expect(bad._meta["txray/error"].code).toBe("bad_request");
    expect((await tool("issue_list", { program: world.program }, null))._meta["txray/error"].code).toBe("unauthorized");
  });
});

describe("Slack", () => {
  async function slash(text: string) {
    const body = new URLSearchParams({ command: "/txray", text, team_id: "T1", user_id: "U42" }).toString();
    const timestamp = String(Math.floor(now / 1000));
    const response = await app.handle(
      new Request("http://127.0.0.1/chat/slack", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-slack-request-timestamp": timestamp,
          "x-slack-signature": slackSignature(SLACK_SECRET, timestamp, body),
        },
        body,
      }),
    );
    expect(response.status).toBe(200);
    return (await response.json()) as { response_type: string; text: string };
  }

  test("/txray resolve, ignore and unresolve change the state in SLACK_TRIAGE_ACCOUNT's account, as the user", async () => {
    const resolved = await slash(`resolve ${world.fingerprint}`);
    expect(resolved.response_type).toBe("in_channel");
    expect(resolved.text).toContain(world.fingerprint);
    const state = await stateNow();
    expect(state).toMatchObject({ stored: "resolved", changedBy: "slack:T1:U42" });
    await slash(`ignore ${world.fingerprint} 5`);
    expect(await stateNow()).toMatchObject({ stored: "ignored", ignoreUntilEvents: 5 });
    await slash(`unresolve ${world.fingerprint}`);
    expect((await stateNow()).stored).toBe("unresolved");
    const refused = await slash("resolve v1:nothex");
    expect(refused.response_type).toBe("ephemeral");
    expect(refused.text).toContain("bad_request");
    expect((await slash("ignore")).text).toContain("usage");
  });
});

describe("the CLI", () => {
  async function txray(...argv: string[]) {
    const out = { stdout: "", stderr: "" };
    const code = await run(argv, {
      stdout: (text) => (out.stdout += text),
      stderr: (text) => (out.stderr += text),
      env: { ...world.env, USER: "ops", XDG_CONFIG_HOME: world.dataDir },
    });
    return { code, ...out };
  }

  test("txray issue resolve|ignore|unresolve|assign change the account's issue, as the operator", async () => {
    const fp = world.fingerprint;
    expect(await txray("issue", "resolve", fp, "--next-release", "--account", "team-a")).toMatchObject({ code: 0 });
    expect(await stateNow()).toMatchObject({ stored: "resolved_next_release", changedBy: "cli:ops" });
    const ignored = await txray("issue", "ignore", fp, "--events", "20", "--account", "team-a", "--json");
    expect(JSON.parse(ignored.stdout).state).toMatchObject({ stored: "ignored", ignoreUntilEvents: 20 });
    expect((await txray("issue", "assign", fp, "carol", "--account", "team-a")).stdout).toContain("assigned to carol");
    expect((await txray("issue", "assign", fp, "--none", "--account", "team-a")).code).toBe(0);
    expect((await txray("issue", "unresolve", fp, "--account", "team-a")).stdout).toBe(`${fp}: unresolved\n`);
    expect(await stateNow()).toMatchObject({ stored: "unresolved", assignee: null });
    // Usage errors (2) and refused changes (1), each saying why.
    expect((await txray("issue", "close", fp, "--account", "team-a")).code).toBe(2);
    expect((await txray("issue", "resolve", fp, "--events", "3", "--account", "team-a")).code).toBe(2);
    expect((await txray("issue", "assign", fp, "--account", "team-a")).code).toBe(2);
    const bad = await txray("issue", "ignore", fp, "--events", "0", "--account", "team-a");
    expect(bad).toMatchObject({ code: 1 });
    expect(bad.stderr).toContain("ignoreUntilEvents");
  });
});

describe("deriving the state", () => {
  const stored = (state: StoredIssueState["state"], extra: Partial<StoredIssueState> = {}): StoredIssueState => ({
    accountId: "acc",
    fingerprint: "v1:0123456789abcdef",
    program: "p",
    state,
    ignoreUntilEvents: null,
    ignoreUntilAt: null,
    assignee: null,
    changedAt: 1000,
    changedBy: "key k (a)",
    ...extra,
  });
  const facts = (lastSeen: number | null, eventsSinceChange = 0, deployedAt: number[] = []) => ({
    lastSeen,
    eventsSinceChange,
    deploys: deployedAt.map((at, slot) => ({ slot, deployedAt: at })),
  });

  test("each rule", () => {
    expect(deriveIssueState(null, facts(5000), 0).state).toBe("unresolved");
    expect(deriveIssueState(stored("resolved"), facts(999), 0).state).toBe("resolved");
    expect(deriveIssueState(stored("resolved"), facts(1001, 1), 0).state).toBe("regressed");
    expect(deriveIssueState(stored("resolved_next_release"), facts(1500, 3, [500]), 0).state).toBe(
      "resolved_next_release",
    );
    expect(deriveIssueState(stored("resolved_next_release"), facts(1500, 3, [500, 2000]), 0)).toMatchObject({
      state: "resolved",
      release: { slot: 1, deployedAt: 2000 },
    });
    expect(deriveIssueState(stored("resolved_next_release"), facts(2001, 3, [2000]), 0).state).toBe("regressed");
    expect(deriveIssueState(stored("ignored"), facts(9e9, 1e6), 0).state).toBe("ignored");
    expect(deriveIssueState(stored("ignored", { ignoreUntilEvents: 10 }), facts(9e9, 10), 0).state).toBe("ignored");
    expect(deriveIssueState(stored("ignored", { ignoreUntilEvents: 10 }), facts(9e9, 11), 0).state).toBe("unresolved");
    expect(deriveIssueState(stored("ignored", { ignoreUntilAt: 5000 }), facts(null), 4999).state).toBe("ignored");
    expect(deriveIssueState(stored("ignored", { ignoreUntilAt: 5000 }), facts(null), 5000).state).toBe("unresolved");
  });
});
