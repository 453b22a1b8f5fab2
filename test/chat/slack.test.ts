// The Slack slash command on a real loopback server: Slack's v0 signature (good, bad, missing,
// replayed timestamps), every command answering in Block Kit with the same numbers as the HTTP
// route, help and unknown commands, and a slow answer delivered later to response_url (a real
// loopback receiver standing in for hooks.slack.com).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { responsePoster, slackSignature } from "../../src/chat";
import { type AnswersWorld, makeAnswersWorld, serveWorld, type WorldServer } from "../helpers/answers-world";
import { blockKitProblems } from "../helpers/block-kit";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
let world: AnswersWorld;
let server: WorldServer;
let slow: WorldServer;
let receiver: Receiver;

beforeAll(async () => {
  world = await makeAnswersWorld();
  server = await serveWorld(world, { SLACK_SIGNING_SECRET: SECRET });
  receiver = startReceiver();
  // Always answers later, posting to loopback (the production poster only posts to hooks.slack.com).
  slow = await serveWorld(
    world,
    { SLACK_SIGNING_SECRET: SECRET },
    { inlineBudgetMs: 0, postResponse: responsePoster((url) => url.hostname === "127.0.0.1") },
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await slow?.stop();
  receiver?.stop();
  world?.dispose();
});

function form(text: string, responseUrl = `${receiver.url}/hooks/1`) {
  return new URLSearchParams({
    token: "legacy",
    team_id: "T1",
    channel_id: "C1",
    user_id: "U1",
    command: "/txray",
    text,
    response_url: responseUrl,
    trigger_id: "1.2.3",
  }).toString();
}

async function slack(
  base: string,
  body: string,
  options: { timestamp?: number; signature?: string; secret?: string } = {},
) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = options.signature ?? slackSignature(options.secret ?? SECRET, timestamp, body);
  const response = await fetch(`${base}/chat/slack`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signature,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const allText = (message: any) => JSON.stringify(message.blocks ?? []) + message.text;

describe("signature", () => {
  test("a correctly signed request is answered", async () => {
    const { status, body } = await slack(server.url, form("help"));
    expect(status).toBe(200);
    expect(body.response_type).toBe("ephemeral");
  });
  test("Slack's ssl_check is answered with an empty 200", async () => {
    const body = new URLSearchParams({ ssl_check: "1", token: "legacy" }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(`${server.url}/chat/slack`, {
      method: "POST",
      headers: { "x-slack-request-timestamp": timestamp, "x-slack-signature": slackSignature(SECRET, timestamp, body) },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
  test("a wrong signature, a wrong secret, a tampered body or missing headers are 401", async () => {
    const body = form("help");
    const timestamp = Math.floor(Date.now() / 1000);
    expect((await slack(server.url, body, { signature: `v0=${"0".repeat(64)}` })).status).toBe(401);
    expect((await slack(server.url, body, { secret: "another-secret" })).status).toBe(401);
    expect((await slack(server.url, body, { signature: "v0=short" })).status).toBe(401);
    const signedForOther = slackSignature(SECRET, String(timestamp), form("help"));
    const tampered = await slack(server.url, form(`why ${world.sigs.failed}`), {
      timestamp,
      signature: signedForOther,
    });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe("unauthorized");
    const bare = await fetch(`${server.url}/chat/slack`, { method: "POST", body });
    expect(bare.status).toBe(401);
  });
  test("a replayed (older than 5 minutes) or far-future timestamp is refused even when correctly signed", async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = await slack(server.url, form("help"), { timestamp: now - 6 * 60 });
    expect(old.status).toBe(401);
    expect(old.body.error.message).toContain("5 minutes");
    expect((await slack(server.url, form("help"), { timestamp: now + 6 * 60 })).status).toBe(401);
    expect((await slack(server.url, form("help"), { timestamp: now - 4 * 60 })).status).toBe(200);
  });
});

describe("commands", () => {
  test("each command answers in Block Kit with the route's numbers", async () => {
    const { program, wallet, sigs } = world;
    const route = async (path: string) => (await server.get(path)).body;
    const baseline = await route(`/v1/baseline/${program}`);
    const top = await route(`/v1/top-issues/${program}`);
    const cu = await route(`/v1/cu-headroom/${program}`);
    const providers = await route(`/v1/provider-report/${program}`);
    const walletAnswer = await route(`/v1/wallet/${program}/${wallet}?window=30d`);
    const release = await route(`/v1/release-diff/${program}?window=30d`);
    const issue = await route(`/v1/issue/${world.fingerprint}?window=30d`);
    const cases: [string, string[]][] = [
      [`issue ${world.fingerprint} 30d`, [issue.title, `${issue.counts["30d"].toLocaleString("en-US")} in 30 days`]],
      [`why ${sigs.failed}`, ["SlippageToleranceExceeded", "6001", "104,305"]],
      [`drop ${sigs.dropped}`, ["rpc_not_forwarding", "public dropped 30 of 60"]],
      [`baseline ${program}`, [`${baseline.rates.attempts.toLocaleString("en-US")} attempts`, "Ecosystem"]],
      [
        `top ${program}`,
        [
          `${top.segments.human[0].count.toLocaleString("en-US")}× ${top.segments.human[0].title}`,
          top.segments.human[0].fingerprint,
        ],
      ],
      [`cu ${program}`, [cu.instructions[0].instruction, cu.instructions[0].cuUsed.p95.toLocaleString("en-US")]],
      [
        `providers ${program}`,
        [providers.providers[0].rpcLabel, `of ${providers.providers[0].attempts.toLocaleString("en-US")}`],
      ],
      [
        `wallet ${program} ${wallet} 30d`,
        [`${walletAnswer.summary.attempts.toLocaleString("en-US")} attempts`, "(30d)"],
      ],
      [`release ${program} 30d`, [`slot ${release.deploy.slot}`]],
    ];
    for (const [text, expected] of cases) {
      const { status, body } = await slack(server.url, form(text));
      expect({ text, status }).toEqual({ text, status: 200 });
      expect(body.response_type).toBe("in_channel");
      expect(body.blocks[0].type).toBe("header");
      expect({ text, problems: blockKitProblems(body) }).toEqual({ text, problems: [] });
      for (const fragment of expected)
        expect({ text, contains: allText(body).includes(fragment) }).toEqual({ text, contains: true });
    }
  });
  test("help lists every command; an unknown command answers with the help text", async () => {
    const help = await slack(server.url, form("help"));
    for (const command of ["why", "drop", "top", "baseline", "cu", "providers", "wallet", "release", "help"])
      expect(allText(help.body)).toContain(`/txray ${command}`);
    const unknown = await slack(server.url, form("explain everything"));
    expect(unknown.status).toBe(200);
    expect(unknown.body.response_type).toBe("ephemeral");
    expect(allText(unknown.body)).toContain("Unknown command `explain`");
    expect(allText(unknown.body)).toContain("/txray why &lt;signature&gt;");
    expect(blockKitProblems(help.body)).toEqual([]);
    expect(blockKitProblems(unknown.body)).toEqual([]);
    const empty = await slack(server.url, form(""));
    expect(allText(empty.body)).toContain("/txray baseline &lt;program&gt;");
  });
  test("a missing argument shows the usage; bad input and unknown signatures answer with the route's error", async () => {
    const missing = await slack(server.url, form("wallet onlyone"));
    // Escaped for mrkdwn, where a bare `<program>` would be read as a link; Slack shows `<program>`.
    expect(allText(missing.body)).toContain("Usage: `wallet &lt;program&gt; &lt;wallet&gt; [1d|7d|30d]`");
    const bad = await slack(server.url, form("baseline not-a-program"));
    expect(bad.body.response_type).toBe("ephemeral");
    expect(bad.body.text).toContain("bad_request");
    const unknown = await slack(server.url, form(`why ${world.sigs.unknown}`));
    expect(unknown.body.text).toContain("not_found");
    const pending = await slack(server.url, form(`drop ${world.sigs.pending}`));
    expect(pending.body.text).toContain("pending");
  });
});

describe("slow answers", () => {
  test("acknowledged at once, answered later through response_url", async () => {
    receiver.received.length = 0;
    const { status, body } = await slack(slow.url, form(`baseline ${world.program}`, `${receiver.url}/hooks/slow`));
    expect(status).toBe(200);
    expect(body.response_type).toBe("ephemeral");
    expect(body.text).toContain("Working on");
    const received = (await receiver.waitFor(1, 10_000)).map((r) => ({ path: r.path, body: JSON.parse(r.body) }));
    expect(received.length).toBe(1);
    expect(received[0].path).toBe("/hooks/slow");
    expect(received[0].body.response_type).toBe("in_channel");
    expect(received[0].body.replace_original).toBe(true);
    const baseline = (await server.get(`/v1/baseline/${world.program}`)).body;
    expect(allText(received[0].body)).toContain(`${baseline.rates.attempts.toLocaleString("en-US")} attempts`);
  });
  test("the production poster only posts to hooks.slack.com", async () => {
    await expect(
      responsePoster()(`${receiver.url}/hooks/x`, { response_type: "in_channel", text: "x" }),
    ).rejects.toThrow("not allowed");
  });
});

test("without SLACK_SIGNING_SECRET the route is off (404)", async () => {
  const off = await serveWorld(world);
  try {
    const response = await fetch(`${off.url}/chat/slack`, { method: "POST", body: form("help") });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe("not_found");
  } finally {
    await off.stop();
  }
});
