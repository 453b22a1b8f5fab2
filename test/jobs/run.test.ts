// A run's end as the operator reads it (src/jobs/run.ts): a shutdown that aborts a job mid-await is
// a stop logged as information, whatever error the aborted await threw; a real failure is an error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { type Job, runJob } from "../../src/jobs";
import type { Logger } from "../../src/shared/logger";
import { testContext } from "../helpers/context";

const lines: { level: string; message: string }[] = [];
const logger: Logger = {
  debug: () => {},
  info: (message) => lines.push({ level: "info", message }),
  warn: (message) => lines.push({ level: "warn", message }),
  error: (message) => lines.push({ level: "error", message }),
};
let base: Awaited<ReturnType<typeof testContext>>;
let ctx: Context;

beforeAll(async () => {
  base = await testContext();
  ctx = await createContext(
    loadConfig({ TXRAY_DATA_DIR: base.config.dataDir, TXRAY_LOG_LEVEL: "silent", TXRAY_SCHEDULER: "off" }),
    { logger },
  );
});
afterAll(() => {
  ctx.close();
  base.dispose();
});

/** A job that awaits something the shutdown's abort rejects with an error of its own. */
const abortedFetch: Job = {
  name: "aborted-fetch",
  run: (_ctx, runtime) =>
    new Promise((_, reject) =>
      runtime.signal?.addEventListener("abort", () => reject(new Error("The operation was aborted."))),
    ),
};

test("a run aborted by a shutdown mid-await is stopped and logs no error", async () => {
  lines.length = 0;
  const stop = new AbortController();
  const run = runJob(ctx, abortedFetch, { signal: stop.signal });
  await Bun.sleep(5);
  stop.abort();
  expect(await run).toMatchObject({ ok: false, stopped: true });
  expect(lines.filter((line) => line.level === "error")).toEqual([]);
  expect(lines).toContainEqual({ level: "info", message: "job stopped at a safe point" });
});

test("a run that fails on its own is a failure logged as an error", async () => {
  lines.length = 0;
  const failing: Job = { name: "failing", run: async () => Promise.reject(new Error("disk on fire")) };
  expect(await runJob(ctx, failing)).toMatchObject({ ok: false, error: "disk on fire" });
  expect(lines).toContainEqual({ level: "error", message: "job failed" });
});
