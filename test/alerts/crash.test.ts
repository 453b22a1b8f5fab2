// kill -9 of the job runner (`txray jobs run alerts`, a real child process) at the named moments
// between an alert being due and being recorded as sent (TXRAY_FAULT_POINT, src/shared/fault.ts):
// after a restart the alert is delivered exactly once. Killed before the request went out: the
// receiver gets one request. Killed after the receiver accepted it but before it was recorded: the
// restart sends it again with the same id (the idempotency key), so a receiver that processes each
// id once processes it once; the state machine raised it once either way.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "bun";
import { createRule } from "../../src/alerts";
import { loadConfig } from "../../src/config";
import { authenticate, type ControlDb, deliveryLog, openControlDb, removeAlertRule } from "../../src/control";
import { dataPaths } from "../../src/lake/paths";
import { type AnswersWorld, makeAnswersWorld } from "../helpers/answers-world";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver";

let world: AnswersWorld;
let receiver: Receiver;
let control: ControlDb;
let accountId: string;
const root = new URL("../..", import.meta.url).pathname;
/** The receiver is on loopback, which alerts reach only when the operator allows it. */
const LOOPBACK_ALLOWED = { ALERTS_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" };

beforeAll(async () => {
  world = await makeAnswersWorld();
  receiver = startReceiver();
  control = openControlDb(dataPaths(loadConfig(world.env).dataDir).controlDb);
  accountId = authenticate(control, world.keys.a)!.accountId;
}, 120_000);

afterAll(() => {
  control?.close();
  receiver?.stop();
  world?.dispose();
});

/** `txray jobs run alerts` as a child process; with a fault point, killed with SIGKILL when it reaches it. */
async function jobsRunAlerts(faultPoint?: string): Promise<{ code: number | null; killed: boolean; stderr: string }> {
  const child = spawn(["bun", "run", "src/bin/cli.ts", "jobs", "run", "alerts"], {
    cwd: root,
    env: {
      ...process.env,
      ...world.env,
      ...LOOPBACK_ALLOWED,
      TXRAY_LOG_LEVEL: "warn",
      ...(faultPoint ? { TXRAY_FAULT_POINT: `${faultPoint}:pause` } : {}),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  let killed = false;
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr += decoder.decode(value);
    if (faultPoint && stderr.includes('"fault point reached"')) {
      child.kill("SIGKILL");
      killed = true;
      break;
    }
  }
  await child.exited;
  return { code: child.exitCode, killed, stderr };
}

/** A provider_drops rule (it fires on this lake: the "public" provider drops far more) to its own path. */
function rule(path: string) {
  return createRule(
    control,
    accountId,
    {
      program: world.program,
      rule: "provider_drops",
      params: { window: "30d" },
      destination: { type: "webhook", url: `${receiver.url}${path}`, secret: "s3cr3t-0123456789abcdef" },
    },
    Date.now(),
    LOOPBACK_ALLOWED,
  );
}
const at = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

test("killed between due and the request: after a restart the receiver gets the alert exactly once", async () => {
  const created = rule("/before-send");
  const killed = await jobsRunAlerts("alerts:before-send");
  expect(killed.killed).toBe(true);
  // The alert was raised and stored (due) before the kill, and nothing reached the receiver.
  const due = deliveryLog(control, { accountId, ruleId: created.id, limit: 10 });
  expect(due.map((d) => [d.kind, d.status, d.attempts])).toEqual([["alert", "pending", 1]]);
  expect(at("/before-send")).toEqual([]);

  const restarted = await jobsRunAlerts();
  expect(restarted.code).toBe(0);
  const bodies = at("/before-send");
  expect(bodies).toHaveLength(1);
  expect(bodies[0]).toMatchObject({ id: due[0].id, alertId: created.id, state: "firing", attempt: 2 });
  expect(
    deliveryLog(control, { accountId, ruleId: created.id, limit: 10 }).map((d) => [d.id, d.status, d.attempts]),
  ).toEqual([[due[0].id, "sent", 2]]);

  // And a third run sends nothing more.
  expect((await jobsRunAlerts()).code).toBe(0);
  expect(at("/before-send")).toHaveLength(1);
  removeAlertRule(control, null, created.id, Date.now());
}, 120_000);

test("killed after the receiver accepted but before it was recorded: resent once, with the same id", async () => {
  const created = rule("/after-send");
  const killed = await jobsRunAlerts("alerts:after-send");
  expect(killed.killed).toBe(true);
  expect(at("/after-send")).toHaveLength(1);
  expect((await jobsRunAlerts()).code).toBe(0);
  expect((await jobsRunAlerts()).code).toBe(0);
  const bodies = at("/after-send");
  expect(bodies).toHaveLength(2);
  expect(bodies[1].id).toBe(bodies[0].id);
  expect(new Set(bodies.map((b) => b.id)).size).toBe(1); // one alert, once per idempotency key
  const log = deliveryLog(control, { accountId, ruleId: created.id, limit: 10 });
  expect(log.map((d) => [d.id, d.status])).toEqual([[bodies[0].id, "sent"]]);
}, 120_000);
