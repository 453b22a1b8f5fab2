// Texts that come from data (a label an SDK sent, an error or IDL name, a title) never become a
// Slack link, mention or broadcast: every question's answer, an error and the help text, with the
// security review's payloads in every string of the answer, reach Slack with `<`, `>` and `&`
// escaped; so does an alert's fallback text.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { slackAlertMessage } from "../../src/alerts";
import { answerMessage, errorMessage, helpMessage } from "../../src/chat/blocks";
import { QUESTIONS } from "../../src/contract";
import { TxrayError } from "../../src/shared/errors";
import { type AnswersWorld, makeAnswersWorld, serveWorld, type WorldServer } from "../helpers/answers-world";

const HOSTILE = ["<!channel>", "<https://evil.example/x|Click to fix>", "<@U0123>", "&lt;b&gt;"];
const HOSTILE_TEXT = HOSTILE.join(" ");

/** Every string of `value` (deeply) replaced by the hostile text; numbers and nulls kept. */
function poisoned(value: unknown): unknown {
  if (typeof value === "string") return HOSTILE_TEXT;
  if (Array.isArray(value)) return value.map(poisoned);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, poisoned(inner)]));
  return value;
}

/** Every text Slack reads as mrkdwn: the fallback `text` and each mrkdwn object in the blocks. */
function mrkdwnTexts(message: { text: string; blocks?: unknown[] }): string[] {
  const texts = [message.text];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (record.type === "mrkdwn" && typeof record.text === "string") texts.push(record.text);
      for (const inner of Object.values(record)) visit(inner);
    }
  };
  visit(message.blocks ?? []);
  return texts;
}

function expectNoMarkup(texts: string[]) {
  for (const text of texts) {
    expect(text).not.toMatch(/<[!@#]/);
    expect(text).not.toMatch(/<https?:/);
    expect(text).not.toContain("&lt;b&gt;"); // an entity in the data shows as typed: its & is escaped too
  }
}

let world: AnswersWorld;
let server: WorldServer;
beforeAll(async () => {
  world = await makeAnswersWorld(2_000);
  server = await serveWorld(world);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  world?.dispose();
});

describe("Slack texts from data are escaped", () => {
  /** A real answer of each question, as its HTTP route gives it over the generated world. */
  const routes = (): Record<string, string> => ({
    why: `/v1/why/${world.sigs.failed}`,
    diagnose_drop: `/v1/diagnose-drop/${world.sigs.dropped}`,
    top_issues: `/v1/top-issues/${world.program}`,
    issue: `/v1/issue/${world.fingerprint}`,
    baseline: `/v1/baseline/${world.program}`,
    cu_headroom: `/v1/cu-headroom/${world.program}`,
    provider_report: `/v1/provider-report/${world.program}`,
    wallet_history: `/v1/wallet/${world.program}/${world.wallet}`,
    release_diff: `/v1/release-diff/${world.program}`,
  });

  test("every question the Slack command asks is covered", () => {
    const asked = QUESTIONS.map((question) => question.name).filter((name) => name in routes());
    expect(asked.sort()).toEqual(Object.keys(routes()).sort());
  });

  for (const name of [
    "why",
    "diagnose_drop",
    "top_issues",
    "issue",
    "baseline",
    "cu_headroom",
    "provider_report",
    "wallet_history",
    "release_diff",
  ]) {
    test(`${name}: the answer's strings reach Slack escaped`, async () => {
      const { status, body } = await server.get(routes()[name]);
      expect(status).toBe(200);
      let message: ReturnType<typeof answerMessage>;
      try {
        message = answerMessage(name, poisoned(body));
      } catch {
        // A summary that needs a real enum or date in a string field cannot render poisoned data;
        // poison only the free-text fields it prints then: labels, names, messages, titles.
        message = answerMessage(name, poisonedText(body));
      }
      const texts = mrkdwnTexts(message);
      expectNoMarkup(texts);
      expect(texts.join("\n")).toContain("&lt;!ch");
    });
  }

  test("an error message and the help text", () => {
    const error = errorMessage(new TxrayError("bad_request", `sig: not base58: ${HOSTILE_TEXT}`), "why <signature>");
    expectNoMarkup(mrkdwnTexts(error));
    expect(JSON.stringify(error)).toContain("&lt;!channel&gt;");
    const help = helpMessage(`Unknown command \`${HOSTILE_TEXT}\`.`, "/txray", ["why <signature>"]);
    expectNoMarkup(mrkdwnTexts(help).slice(0, 2));
  });

  test("an alert's fallback text and its sections", () => {
    const message = slackAlertMessage({
      version: 1,
      id: "dlv_0123456789abcdef01234567",
      kind: "alert",
      alertId: "alr_0123456789abcdef",
      rule: "new_issue",
      program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      subject: "issue:v1:00000000000000aa",
      state: "firing",
      title: `New issue: ${HOSTILE_TEXT} in Route`,
      text: [`Error: ${HOSTILE_TEXT}`],
      data: {},
      links: { program: "http://127.0.0.1:8790/p/JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4" },
      firingSince: 1_763_700_000_000,
      changedAt: 1_763_700_000_000,
      sentAt: 1_763_700_001_000,
      attempt: 1,
    });
    // The message's own markup (its links and Slack's date token) is not data.
    const texts = mrkdwnTexts(message).filter(
      (text) => !text.includes("|Program page>") && !text.startsWith("*Since*"),
    );
    expectNoMarkup(texts);
    expect(message.text).toContain("&lt;!channel&gt;");
  });
});

const FREE_TEXT = /label|name|message|title|instruction|error|advice|detail|adapter/i;

/** Like poisoned, but only in fields whose names say they hold free text. */
function poisonedText(value: unknown, key = ""): unknown {
  if (typeof value === "string") return FREE_TEXT.test(key) ? HOSTILE_TEXT : value;
  if (Array.isArray(value)) return value.map((inner) => poisonedText(inner, key));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, inner]) => [k, poisonedText(inner, k)]));
  return value;
}
