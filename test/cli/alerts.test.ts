// `txray alerts …` in-process, as a user sees it: add (account from --account or the config file
// `keys create` wrote; validation messages naming the field; the secret shown once), list (redacted),
// test (to a real receiver on loopback; exit 1 when refused), log, remove, and `jobs run alerts`.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/commands";
import { accountIdByName, addProgramCounts, openControlDb } from "../../src/control";
import { dataPaths } from "../../src/lake/paths";
import { randomAddress } from "../helpers/envelopes";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

const root = mkdtempSync(join(tmpdir(), "txray-cli-alerts-"));
const env = {
  TXRAY_DATA_DIR: join(root, "data"),
  XDG_CONFIG_HOME: join(root, "config"),
  HOME: root,
  TXRAY_LOG_LEVEL: "silent",
  ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
};
const program = randomAddress();
let receiver: Receiver;

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  receiver = startReceiver((request) =>
    request.path === "/refuse" ? new Response("invalid_token", { status: 403 }) : new Response("ok"),
  );
  expect((await cli("keys", "create", "--account", "acme")).code).toBe(0); // saves account "acme" to the config file
  const control = openControlDb(dataPaths(env.TXRAY_DATA_DIR).controlDb);
  addProgramCounts(control, [
    { accountId: accountIdByName(control, "acme")!, program, attempts: 1, lastSeen: Date.now() },
  ]);
  control.close();
});
afterAll(() => {
  receiver?.stop();
  rmSync(root, { recursive: true, force: true });
});

test("add: usage errors exit 2, bad input names the field, an unreported program is refused; a rule prints its id and the secret once", async () => {
  expect((await cli("alerts", "add", "--program", program)).code).toBe(2);
  const both = await cli(
    "alerts",
    "add",
    "--program",
    program,
    "--rule",
    "new_issue",
    "--webhook",
    "https://a.example/x",
    "--slack",
    "https://b.example/y",
  );
  expect(both.code).toBe(2);
  expect(both.stderr).toContain("one destination");
  const bad = await cli(
    "alerts",
    "add",
    "--program",
    program,
    "--rule",
    "new_issue",
    "--webhook",
    "http://example.com/x",
    "--param",
    "minCount=0",
  );
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("destination.url: must be https://");
  expect(bad.stderr).toContain("params.minCount");
  const unknown = await cli(
    "alerts",
    "add",
    "--program",
    randomAddress(),
    "--rule",
    "new_issue",
    "--webhook",
    `${receiver.url}/x`,
  );
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("no telemetry");
  expect(
    (
      await cli(
        "alerts",
        "add",
        "--program",
        program,
        "--rule",
        "new_issue",
        "--webhook",
        `${receiver.url}/x`,
        "--account",
        "nobody",
      )
    ).stderr,
  ).toContain("no account named nobody");

  const added = await cli(
    "alerts",
    "add",
    "--program",
    program,
    "--rule",
    "landing_rate",
    "--webhook",
    `${receiver.url}/hook`,
    "--param",
    "threshold=0.9",
    "--param",
    "baseline=false",
  );
  expect(added.code).toBe(0);
  expect(added.stdout).toMatch(/^alr_[0-9a-f]{16}\n$/);
  expect(added.stderr).toMatch(/Webhook secret \(shown once\): whsec_/);
  const json = await cli(
    "alerts",
    "add",
    "--program",
    program,
    "--rule",
    "cu_headroom",
    "--slack",
    `${receiver.url}/refuse`,
    "--json",
  );
  expect(JSON.parse(json.stdout)).toMatchObject({
    rule: "cu_headroom",
    params: { withinPercent: 10, window: "1d" },
    destination: { type: "slack" },
  });
});

test("list shows every rule redacted; test sends a sample (exit 1 when refused); log shows the deliveries; remove; jobs run alerts", async () => {
  const listed = await cli("alerts", "list", "--json");
  const rules = JSON.parse(listed.stdout) as any[];
  expect(rules.map((r) => r.rule).sort()).toEqual(["cu_headroom", "landing_rate"]);
  expect(listed.stdout).not.toContain("whsec_");
  expect(listed.stdout).not.toContain("/refuse");
  const text = await cli("alerts", "list", "--account", "acme");
  expect(text.stdout.split("\n").filter(Boolean)).toHaveLength(2);

  const landing = rules.find((r) => r.rule === "landing_rate")!;
  const slack = rules.find((r) => r.rule === "cu_headroom")!;
  const sent = await cli("alerts", "test", landing.id);
  expect(sent.code).toBe(0);
  expect(JSON.parse(sent.stdout)).toMatchObject({ delivered: true, result: "2xx" });
  expect(receiver.received.filter((r) => r.path === "/hook")).toHaveLength(1);
  const refused = await cli("alerts", "test", slack.id);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("HTTP 403: invalid_token");

  const log = await cli("alerts", "log");
  expect(log.stdout).toContain("test\tfiring\tsent");
  expect(log.stdout).toContain("HTTP 403: invalid_token");
  expect(JSON.parse((await cli("alerts", "log", landing.id, "--json")).stdout)).toHaveLength(1);

  const jobs = await cli("jobs", "run", "alerts");
  expect(jobs.code).toBe(0);
  expect(JSON.parse(jobs.stdout.trim())).toMatchObject({ job: "alerts", ok: true, details: { rules: 2 } });

  expect((await cli("alerts", "remove", slack.id)).stdout).toBe(`removed ${slack.id}\n`);
  const again = await cli("alerts", "remove", slack.id);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("no such rule");
  expect((await cli("alerts", "nope")).code).toBe(2);
});
