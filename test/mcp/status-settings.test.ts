// The refresh interval /v1/status and the MCP status tool report is the deployment's: the scheduler
// records its job intervals in the control database when it starts, and a process that runs none
// (`bun run mcp`, a read node) reads them there, or says it does not know them.

import { afterEach, expect, test } from "bun:test";
import { serviceStatus } from "../../src/contract/status";
import { recordedSchedule } from "../../src/control";
import { type Job, startScheduler } from "../../src/jobs/scheduler";
import { testContext } from "../helpers/context";

let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

test("the scheduler records its intervals when it starts, and status reports them", async () => {
  const ctx = await testContext({ TABLES_INTERVAL_MS: "30000" });
  dispose = ctx.dispose;
  const idle: Job = { name: "tables", run: async () => ({}) };
  const scheduler = startScheduler(ctx, [{ job: idle, intervalMs: 900_000 }], {});
  await scheduler.stop();
  expect(recordedSchedule(ctx.control)?.intervalsMs).toEqual({ tables: 900_000 });
  expect(serviceStatus(ctx, null).freshness.serving).toMatchObject({
    refreshEveryMs: 900_000,
    refreshEverySource: "scheduler",
  });
});

test("with no scheduler recorded, status says the interval is unknown and gives its own", async () => {
  const ctx = await testContext({ TABLES_INTERVAL_MS: "45000" });
  dispose = ctx.dispose;
  expect(recordedSchedule(ctx.control)).toBeNull();
  expect(serviceStatus(ctx, null).freshness.serving).toMatchObject({
    refreshEveryMs: 45_000,
    refreshEverySource: "unknown",
  });
});
