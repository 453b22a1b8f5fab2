// servingFreshness: when /v1/status calls the analytical answers stale, and the reason it gives.
import { expect, test } from "bun:test";
import { age, servingFreshness, staleAfterMs } from "../../src/contract/freshness";

const NOW = 1_763_700_000_000;
const ok = { lastRunAt: NOW - 10_000, ok: true, durationMs: 900, error: null, details: null, lastFinished: null };
const facts = {
  pointer: { version: 7, clock: NOW - 20_000 },
  lastRun: ok,
  consecutiveFailures: 0,
  deferredRows: 0,
  lakeEnvelopes: 100,
  refreshEveryMs: 30_000,
  now: NOW,
};

test("fresh: recent version, last run ok", () => {
  expect(servingFreshness(facts)).toEqual({
    version: 7,
    dataUntil: NOW - 20_000,
    refreshEveryMs: 30_000,
    stale: false,
    reason: null,
  });
});

test("a failed run makes it stale at once, with the job's error; a running retry is said", () => {
  const failed = servingFreshness({
    ...facts,
    lastRun: { ...ok, ok: false, error: "tables step attempts: Out of Memory Error" },
    consecutiveFailures: 3,
  });
  expect(failed.stale).toBe(true);
  expect(failed.reason).toBe(
    "the tables job is failing (its last 3 runs failed; the answers are the last good version's): tables step attempts: Out of Memory Error",
  );
  const retrying = servingFreshness({
    ...facts,
    lastRun: { ...ok, ok: null, durationMs: null },
    consecutiveFailures: 1,
  });
  expect(retrying.reason).toBe(
    "the tables job is failing (its last run failed; the answers are the last good version's); a retry is running",
  );
});

test("too old without a failure: not running, or a run stuck", () => {
  const old = NOW - staleAfterMs(30_000) - 1;
  expect(servingFreshness({ ...facts, pointer: { version: 7, clock: old } }).reason).toBe(
    "the answers are older than three refreshes (every 30 s): the tables job has not run since",
  );
  expect(servingFreshness({ ...facts, pointer: { version: 7, clock: NOW - 150_000 } }).stale).toBe(false);
  const stuck = servingFreshness({
    ...facts,
    pointer: { version: 7, clock: NOW - 3_600_000 },
    lastRun: { ...ok, lastRunAt: NOW - 3_000_000, ok: null },
  });
  expect(stuck).toMatchObject({
    stale: true,
    reason: `the answers are older than three refreshes (every 30 s): a run started at ${new Date(NOW - 3_000_000).toISOString()} has not finished`,
  });
});

test("behind: a refresh that left new rows for later makes the answers stale, with how many", () => {
  // Its clock is recent (each refresh moves it), but the version leaves rows out: a busy machine (TABLES_PROCESS) or a catch-up.
  expect(servingFreshness({ ...facts, deferredRows: 1_234_567 })).toMatchObject({
    stale: true,
    reason:
      "the tables job is behind: its last refresh left 1,234,567 new rows for the next ones (more arrives than it takes in; the answers leave them out until then)",
  });
  // A failure says the failure first.
  expect(
    servingFreshness({
      ...facts,
      deferredRows: 10,
      lastRun: { ...ok, ok: false, error: "boom" },
      consecutiveFailures: 1,
    }).reason,
  ).toMatch(/^the tables job is failing/);
});

test("no version yet: stale only when the lake has data", () => {
  expect(servingFreshness({ ...facts, pointer: null, lastRun: undefined, lakeEnvelopes: 0 })).toMatchObject({
    stale: false,
    version: null,
    dataUntil: null,
  });
  expect(servingFreshness({ ...facts, pointer: null, lastRun: undefined })).toMatchObject({
    stale: true,
    reason: "the lake has data but the tables job has not built the serving tables yet",
  });
});

test("durations in words", () => {
  expect([age(45_000), age(12 * 60_000), age(185 * 60_000), age(52 * 3_600_000)]).toEqual([
    "45 s",
    "12 min",
    "3 h 5 min",
    "2 d 4 h",
  ]);
});
