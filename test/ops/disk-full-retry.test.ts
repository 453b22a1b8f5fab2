// A full disk: flush fails for want of space (ENOSPC) run after run; once space is freed, the next
// run comes within DISK_FULL_RETRY_CAP_MS, not after the minute-long backoff of other failures, so
// the spool drains within seconds. The clock and timers are a manualTime() and the failing write is
// injected: no disk is filled.
import { afterEach, expect, test } from "bun:test";
import { lastJobRuns } from "../../src/control";
import { DISK_FULL_RETRY_CAP_MS, type Job, retryDelayMs, startScheduler } from "../../src/jobs/scheduler";
import { manualTime } from "../helpers/clock";
import { testContext } from "../helpers/context";

let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

const noSpace = () =>
  Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });

test("after disk-full failures the next run comes within a few seconds of the space being freed", async () => {
  const time = manualTime();
  const ctx = await testContext({}, time);
  dispose = ctx.dispose;
  let diskFull = true;
  let failures = 0;
  let succeededAt: number | null = null;
  const flush: Job = {
    name: "flush",
    async run() {
      if (diskFull) {
        failures++;
        throw noSpace();
      }
      succeededAt ??= time.clock();
      return { segments: 1 };
    },
  };
  const scheduler = startScheduler(ctx, [{ job: flush, intervalMs: 2_000 }], {});
  try {
    // Three minutes of a full disk: other failures would by now wait a minute between runs.
    await time.advance(3 * 60_000);
    expect(failures).toBeGreaterThan(30);
    expect(lastJobRuns(ctx.control).flush).toMatchObject({ ok: false, error: expect.stringContaining("ENOSPC") });
    diskFull = false;
    const freedAt = time.clock();
    await time.advance(DISK_FULL_RETRY_CAP_MS);
    expect(succeededAt).not.toBeNull();
    expect(succeededAt! - freedAt).toBeLessThanOrEqual(DISK_FULL_RETRY_CAP_MS);
  } finally {
    await scheduler.stop();
  }
});

test("the cap applies to disk-full failures only, and never shortens a longer interval", () => {
  expect(DISK_FULL_RETRY_CAP_MS).toBeLessThanOrEqual(10_000);
  expect([1, 2, 3, 10].map((n) => retryDelayMs(2_000, n, "ENOSPC: no space left on device, write"))).toEqual([
    4_000, 5_000, 5_000, 5_000,
  ]);
  expect(retryDelayMs(2_000, 10, "SQLiteError: database or disk is full")).toBe(5_000);
  expect(retryDelayMs(2_000, 10, "IO Error: Could not write file: No space left on device")).toBe(5_000);
  expect(retryDelayMs(2_000, 10, "rpc down")).toBe(60_000);
  expect(retryDelayMs(3_600_000, 3, "ENOSPC: no space left on device")).toBe(3_600_000);
});
