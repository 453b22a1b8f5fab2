// The pure parts of alerts against worked examples: rule validation and its messages, the state
// machine (fires once, resolves after the condition stayed false, fires again), the flood plan, the
// retry backoff and give-up, URL redaction, the Slack message's Block Kit shape, and the signature:
// txray's own verifier and the snippets docs/alerts.md gives receivers (run as written).

import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AlertPayload,
  AlertPayloadSchema,
  AlertRuleInputSchema,
  backoffMs,
  nextAttemptAt,
  planFlood,
  RETRY_CAP_MS,
  redactUrl,
  signatureHeader,
  slackAlertMessage,
  transitions,
  verifySignature,
} from "../../src/alerts";
import type { AlertSubjectState } from "../../src/control";
import { describeIssues } from "../../src/shared/errors";
import { blockKitProblems } from "../helpers/block-kit";

const PROGRAM = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const docs = readFileSync(join(import.meta.dir, "..", "..", "docs", "alerts.md"), "utf8");

describe("rule input", () => {
  const valid = {
    program: PROGRAM,
    rule: "new_issue",
    destination: { type: "webhook", url: "https://example.com/hook" },
  };
  const problem = (input: unknown) => {
    const parsed = AlertRuleInputSchema.safeParse(input);
    return parsed.success ? null : describeIssues(parsed.error.issues, 5);
  };
  test("a minimal rule is valid; loopback http:// is allowed, any other http:// is not", () => {
    expect(problem(valid)).toBeNull();
    for (const url of ["http://127.0.0.1:9000/x", "http://localhost/x", "http://[::1]:8080/x"])
      expect(problem({ ...valid, destination: { type: "webhook", url } })).toBeNull();
    for (const url of [
      "http://example.com/x",
      "http://10.0.0.1/x",
      "ftp://example.com/x",
      "hooks.slack.com/services/x",
      "https://",
    ]) {
      expect(problem({ ...valid, destination: { type: "slack", url } })).toStartWith("destination.url: ");
    }
  });
  test("each bad field is named: program, rule, parameters out of range or unknown, destination type, secret", () => {
    expect(problem({ ...valid, program: "nope" })).toBe("program: expected a base58 program id (32 bytes)");
    expect(problem({ ...valid, rule: "everything" })).toStartWith("rule: expected one of new_issue, regression");
    expect(problem({ ...valid, params: { minCount: 0 } })).toStartWith("params.minCount: ");
    expect(problem({ ...valid, params: { minCount: "3" } })).toBe("params.minCount: expected a number");
    expect(problem({ ...valid, params: { surprise: 1 } })).toContain("params: Unrecognized key");
    expect(problem({ ...valid, rule: "landing_rate", params: { threshold: 1.5 } })).toStartWith("params.threshold: ");
    expect(problem({ ...valid, rule: "regression", params: { alpha: 0.9 } })).toStartWith("params.alpha: ");
    expect(problem({ ...valid, rule: "cu_headroom", params: { withinPercent: 0 } })).toStartWith(
      "params.withinPercent: ",
    );
    expect(problem({ ...valid, destination: { type: "email", url: "https://example.com" } })).toStartWith(
      "destination.type: ",
    );
    expect(
      problem({ ...valid, destination: { type: "webhook", url: "https://example.com", secret: "short" } }),
    ).toStartWith("destination.secret: ");
    expect(
      problem({ ...valid, destination: { type: "slack", url: "https://hooks.slack.com/x", secret: "a".repeat(20) } }),
    ).toContain("Unrecognized key");
    expect(problem({ ...valid, extra: true })).toContain("Unrecognized key");
  });
});

describe("state machine", () => {
  const finding = (subject: string, n = 1) => ({
    subject,
    title: `t ${subject}`,
    lines: [`n=${n}`],
    data: { n },
    links: { program: "/p/x" },
  });
  const apply = (states: AlertSubjectState[], next: AlertSubjectState[]) => {
    const map = new Map(states.map((s) => [s.subject, s]));
    for (const s of next) map.set(s.subject, s);
    return [...map.values()];
  };
  test("fires once, stays quiet while it holds, resolves after resolveAfter of being false, fires again when it returns", () => {
    let states: AlertSubjectState[] = [];
    const step = (findings: ReturnType<typeof finding>[], now: number) => {
      const result = transitions("alr_1", states, findings, now, 60_000);
      states = apply(states, result.states);
      return result.changes.map((c) => `${c.state}:${c.subject}`);
    };
    expect(step([finding("a")], 0)).toEqual(["firing:a"]);
    expect(step([finding("a", 2)], 10_000)).toEqual([]);
    expect(step([finding("a", 3), finding("b")], 20_000)).toEqual(["firing:b"]);
    expect(step([finding("b")], 30_000)).toEqual([]); // a is false since 30 s
    expect(step([finding("b")], 80_000)).toEqual([]); // 50 s < 60 s
    expect(step([], 90_000)).toEqual(["resolved:a"]); // a: 60 s; b false since 90 s
    expect(step([finding("b")], 100_000)).toEqual([]); // b back before resolving: still firing, its clock reset
    expect(step([], 120_000)).toEqual([]);
    expect(step([], 180_000)).toEqual(["resolved:b"]);
    expect(step([finding("a")], 190_000)).toEqual(["firing:a"]);
    const resolved = transitions("alr_1", states, [], 400_000, 60_000);
    expect(resolved.changes).toEqual([]); // a became false at 400 s: not yet
    expect(states.find((s) => s.subject === "b")).toMatchObject({ state: "resolved", changedAt: 180_000 });
  });
  test("a resolved message carries the last evidence and when the subject started firing", () => {
    const fired = transitions("alr_1", [], [finding("a", 7)], 1000, 0);
    const result = transitions("alr_1", fired.states, [], 5000, 0);
    expect(result.changes).toHaveLength(1);
    expect(result.changes[0]).toMatchObject({
      state: "resolved",
      title: "Resolved: t a",
      data: { n: 7 },
      firingSince: 1000,
    });
    expect(result.changes[0].lines.at(-1)).toBe("n=7");
  });
});

describe("flood cap", () => {
  const c = (id: string, ruleId: string, destinationKey = "d1") => ({ id, ruleId, destinationKey });
  test("within the budget everything goes as is; over it each rule's alerts fold into one summary; beyond that they are held", () => {
    const few = planFlood([c("1", "r1"), c("2", "r1")], () => 5);
    expect(few).toEqual({ individual: [c("1", "r1"), c("2", "r1")], summaries: [], held: [] });
    const many = Array.from({ length: 30 }, (_, i) => c(`n${i}`, i % 2 === 0 ? "r1" : "r2"));
    const folded = planFlood(many, () => 5);
    expect(folded.individual).toEqual([]);
    expect(folded.summaries.map((group) => [group[0].ruleId, group.length])).toEqual([
      ["r1", 15],
      ["r2", 15],
    ]);
    const tight = planFlood(many, () => 1);
    expect(tight.summaries).toHaveLength(1);
    expect(tight.held).toHaveLength(15);
    expect(planFlood(many, () => 0).held).toHaveLength(30);
    // A lone alert of a rule is itself, not a summary of one; destinations have their own budgets.
    const mixed = planFlood([c("a", "r1"), c("b", "r2"), c("c", "r2"), c("x", "r1", "d2")], (key) =>
      key === "d1" ? 2 : 10,
    );
    expect(mixed.individual.map((x) => x.id).sort()).toEqual(["a", "x"]);
    expect(mixed.summaries.map((g) => g.map((x) => x.id))).toEqual([["b", "c"]]);
  });
});

describe("retries", () => {
  test("backoff doubles from the base with jitter in [half, whole] of the step, capped", () => {
    expect(backoffMs(1, 5000, () => 0)).toBe(2500);
    expect(backoffMs(1, 5000, () => 1)).toBe(5000);
    expect(backoffMs(3, 5000, () => 1)).toBe(20_000);
    expect(backoffMs(40, 5000, () => 1)).toBe(RETRY_CAP_MS);
    expect(backoffMs(40, 5000, () => 0)).toBe(RETRY_CAP_MS / 2);
  });
  test("Retry-After wins over the backoff; past the give-up time there is no next attempt", () => {
    expect(nextAttemptAt({ retryAfterMs: 7000 }, 1, 1000, 100_000, 5000, () => 1)).toBe(8000);
    expect(nextAttemptAt({ retryAfterMs: null }, 2, 1000, 100_000, 5000, () => 1)).toBe(11_000);
    expect(nextAttemptAt({ retryAfterMs: 200_000 }, 1, 1000, 100_000, 5000, () => 1)).toBeNull();
    expect(nextAttemptAt({ retryAfterMs: null }, 20, 1000, 100_000, 5000, () => 1)).toBeNull();
  });
});

test("destination URLs are redacted to scheme, host and a few last characters", () => {
  expect(redactUrl("https://hooks.slack.com/services/T000/B000/XXXXXXXXabcd")).toBe("https://hooks.slack.com/…abcd");
  expect(redactUrl("https://user:pass@example.com:8443/h")).toBe("https://example.com:8443/…");
  expect(redactUrl("http://127.0.0.1:9/hook?token=secret1234")).toBe("http://127.0.0.1:9/…1234");
});

const payload = (over: Partial<AlertPayload> = {}): AlertPayload => ({
  version: 1,
  id: "dlv_0123456789abcdef01234567",
  kind: "alert",
  alertId: "alr_0123456789abcdef",
  rule: "regression",
  program: PROGRAM,
  subject: "deploy:42:issue:v1:00000000000000aa",
  state: "firing",
  title: "Regression after deploy at slot 42: error 12 in Memo (failed_onchain) 0.0% → 87.5%",
  text: [
    "New since the deploy at slot 42: 0 of 80 attempts before, 35 of 40 after",
    "0.0% → 87.5% (p < 0.0001; alert level 0.05 / 5 tests)",
  ],
  data: { pValue: 1e-12 },
  links: {
    program: `http://127.0.0.1:8790/p/${PROGRAM}`,
    issue: "http://127.0.0.1:8790/i/v1:00000000000000aa",
    example: "http://127.0.0.1:8790/tx/5x",
  },
  firingSince: 1_763_700_000_000,
  changedAt: 1_763_700_000_000,
  sentAt: 1_763_700_001_000,
  attempt: 1,
  ...over,
});

describe("Slack message", () => {
  test("is valid Block Kit with the numbers, the state and links to the web app's pages; text is escaped", () => {
    for (const p of [
      payload(),
      payload({ state: "resolved", title: "Resolved: <b>&", kind: "alert" }),
      payload({ kind: "test" }),
      payload({ title: "x".repeat(400), text: Array.from({ length: 400 }, () => "y".repeat(40)) }),
    ]) {
      const message = slackAlertMessage(p);
      expect(blockKitProblems(message)).toEqual([]);
    }
    const message = slackAlertMessage(payload());
    const all = JSON.stringify(message);
    expect(all).toContain("35 of 40 after");
    expect(all).toContain(`<http://127.0.0.1:8790/p/${PROGRAM}|Program page>`);
    expect(all).toContain("<http://127.0.0.1:8790/i/v1:00000000000000aa|Issue>");
    expect(all).toContain("|Example transaction>");
    expect(JSON.stringify(slackAlertMessage(payload({ text: ["a <b> & c"] })))).toContain("a &lt;b&gt; &amp; c");
  });
  test("a flood summary lists the folded alerts, at most 20, and how many more", () => {
    const alerts = Array.from({ length: 30 }, (_, i) => ({ state: "firing", title: `issue ${i}` }));
    const message = slackAlertMessage(
      payload({ kind: "summary", subject: null, data: { count: 30, alerts }, text: ["30 firing"] }),
    );
    expect(blockKitProblems(message)).toEqual([]);
    const text = JSON.stringify(message);
    expect(text).toContain("issue 19");
    expect(text).not.toContain("issue 20");
    expect(text).toContain("and 10 more");
  });
});

describe("signature", () => {
  const secret = "whsec_test_0123456789abcdef";
  const body = JSON.stringify(payload());
  const now = 1_763_700_001;
  const header = signatureHeader(secret, body, now);
  test("t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>; verifies, and fails on a tampered body, another secret or an old timestamp", () => {
    expect(header).toMatch(/^t=1763700001,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, header, body, now)).toBe(true);
    expect(verifySignature(secret, header, body.replace("87.5", "88.5"), now)).toBe(false);
    expect(verifySignature("whsec_other_0123456789abcd", header, body, now)).toBe(false);
    expect(verifySignature(secret, header, body, now + 301)).toBe(false);
    expect(
      verifySignature(
        secret,
        header.replace(/.$/, (c) => (c === "0" ? "1" : "0")),
        body,
        now,
      ),
    ).toBe(false);
    expect(verifySignature(secret, "v1=abc", body, now)).toBe(false);
    expect(verifySignature(secret, null, body, now)).toBe(false);
  });

  /** A fenced block of docs/alerts.md following the given marker comment. */
  const snippet = (marker: string, language: string) => {
    const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(docs);
    if (!match) throw new Error(`docs/alerts.md has no ${language} block after <!-- ${marker} -->`);
    return match[1];
  };

  test("the JavaScript snippet in docs/alerts.md verifies a real signature and rejects a tampered body", async () => {
    const dir = mkdtempSync(join(tmpdir(), "txray-snippet-"));
    try {
      const file = join(dir, "verify.mjs");
      writeFileSync(file, snippet("verify-js", "js"));
      const { verifyTxraySignature } = await import(file);
      const fresh = signatureHeader(secret, body, Math.floor(Date.now() / 1000));
      expect(verifyTxraySignature(secret, fresh, body)).toBe(true);
      expect(verifyTxraySignature(secret, fresh, `${body} `)).toBe(false);
      expect(verifyTxraySignature(secret, header, body)).toBe(false); // from 2025: too old
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the Python snippet in docs/alerts.md verifies a real signature and rejects a tampered body", () => {
    const python = Bun.which("python3");
    if (!python) {
      console.warn("python3 not found: the Python snippet is not run");
      return;
    }
    const fresh = signatureHeader(secret, body, Math.floor(Date.now() / 1000));
    const program = `${snippet("verify-python", "python")}\nimport sys\nprint(verify_txray_signature(sys.argv[1], sys.argv[2], sys.argv[3].encode()), verify_txray_signature(sys.argv[1], sys.argv[2], (sys.argv[3] + "x").encode()))`;
    const result = Bun.spawnSync([python, "-c", program, secret, fresh, body]);
    expect(result.stderr.toString()).toBe("");
    expect(result.stdout.toString().trim()).toBe("True False");
  });
});

test("the payload schema in docs/alert-payload.schema.json is the generated one", async () => {
  const { payloadJsonSchema, PAYLOAD_SCHEMA_DOC } = await import("../../src/alerts/schema-json");
  expect(readFileSync(PAYLOAD_SCHEMA_DOC, "utf8")).toBe(payloadJsonSchema());
  expect(AlertPayloadSchema.safeParse(payload()).success).toBe(true);
});

test("the published payload schemas accept fields added later and still require the documented ones", async () => {
  const { payloadJsonSchema } = await import("../../src/alerts/schema-json");
  const { openApiDocument } = await import("../../src/contract/openapi");
  const { default: Ajv2020 } = await import("ajv/dist/2020");
  const components = (openApiDocument() as { components: { schemas: Record<string, unknown> } }).components;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: "openapi", components });
  const published = [
    ajv.compile({ $ref: "openapi#/components/schemas/AlertPayload" }),
    ajv.compile(JSON.parse(payloadJsonSchema())),
  ];
  const later = { ...payload(), severity: "high", links: { ...payload().links, dashboard: "https://example.com/d" } };
  const { title, ...withoutTitle } = payload();
  for (const validate of published) {
    expect(validate(later)).toBe(true);
    expect(validate(withoutTitle)).toBe(false);
  }
});
