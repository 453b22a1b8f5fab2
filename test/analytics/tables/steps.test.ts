// Steps of a refresh alone (steps.ts), on a real state in a temporary directory: what the state
// says it is, a fresh state carrying issues' first seen over, the bookkeeping of parts taken, the
// state's retention, and publishing a version. The steps that read the lake are covered together,
// against a rebuild, by refresh.test.ts.

import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPointer, servingFile, writePointer } from "../../../src/analytics/serving/pointer";
import type { LakePart } from "../../../src/analytics/tables/intake";
import { RETENTION_DAYS } from "../../../src/analytics/tables/plan";
import { ROLLUPS, unitTable } from "../../../src/analytics/tables/rollups";
import { openState, type StateDb } from "../../../src/analytics/tables/state";
import {
  forgetExpired,
  publishVersion,
  readDeploys,
  readStateFacts,
  recordParts,
  startFresh,
  takenParts,
  writeDeploys,
} from "../../../src/analytics/tables/steps";
import { SERVING_SCHEMA, STATE_SCHEMA } from "../../../src/analytics/tables/versions";
import { openDuck } from "../../../src/lake/duckdb";
import { testContext } from "../../helpers/context";

const DAY = 86_400_000;
const NOW = 1_763_700_000_000;
const TODAY = Math.floor(NOW / DAY);

let ctx: Awaited<ReturnType<typeof testContext>>;
let state: StateDb;

beforeEach(async () => {
  ctx = await testContext();
  state = await openState(ctx.paths.tables, ctx.duckOptions("tables"));
});
afterEach(() => {
  state.close();
  ctx.dispose();
});

const isoDay = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
function lakePart(dataset: "envelopes" | "resolutions", program: string, day: number, name: string, bytes = 100) {
  const path = join(ctx.paths.dataset(dataset), `program=${program}`, `day=${isoDay(day)}`, name);
  return { dataset, program, day: isoDay(day), name, path, bytes, publishedMs: 1 } satisfies LakePart;
}
const count = async (sql: string) => Number((await state.all<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`))[0].n);

test("the state says what it is: nothing yet, then its schema and clock", async () => {
  expect(await readStateFacts(state)).toEqual({ upgraded: true, schema: null, clock: null });
  await state.setMeta({ schema: STATE_SCHEMA, clock: NOW });
  expect(await readStateFacts(state)).toEqual({ upgraded: true, schema: STATE_SCHEMA, clock: NOW });
});

test("a fresh state is empty but keeps the issues' first and last seen of the current version", async () => {
  await state.setMeta({ schema: STATE_SCHEMA, clock: NOW });
  const file = servingFile(ctx.paths, 4);
  mkdirSync(ctx.paths.tables, { recursive: true });
  const version = await openDuck(file);
  await version.run(`CREATE TABLE issue_lifetimes (program VARCHAR, scope VARCHAR, fingerprint VARCHAR, first_seen BIGINT, last_seen BIGINT);
    INSERT INTO issue_lifetimes VALUES ('P', 'acct-1', 'v1:aa', 10, 20), ('P', '*', 'v1:aa', 10, 20)`);
  version.close();
  writePointer(ctx.paths, { version: 4, file: "serving-4.duckdb", builtAt: NOW, clock: NOW, schema: SERVING_SCHEMA });

  state = await startFresh(state, ctx);
  expect(await state.meta("clock")).toBeNull();
  expect(await state.all("SELECT * FROM issue_lifetimes")).toEqual([
    { program: "P", account_id: "acct-1", fingerprint: "v1:aa", first_seen: 10, last_seen: 20 },
  ]);
});

test("bookkeeping records the listing; an unchanged partition is kept, a changed one rewritten, a gone one removed", async () => {
  const a = lakePart("envelopes", "A", TODAY, "part-a-0.parquet");
  const b = lakePart("envelopes", "B", TODAY, "part-b-0.parquet");
  const r = lakePart("resolutions", "A", TODAY, "part-r-0.parquet");
  const rows = new Map([
    [a.path, 5],
    [b.path, 7],
    [r.path, 3],
  ]);
  await recordParts(state, [a, b, r], rows, new Map([[a.path, ["seg-1"]]]));
  expect((await takenParts(state, ctx.paths)).sort((x, y) => x.path.localeCompare(y.path))).toEqual(
    [
      { ...a, rows: 5, segments: ["seg-1"] },
      { ...b, rows: 7, segments: [] },
      { ...r, rows: 3, segments: [] },
    ]
      .map(({ publishedMs: _, ...part }) => part)
      .sort((x, y) => x.path.localeCompare(y.path)),
  );

  // A's partition compacted (its part replaced by one not read: it holds the replaced part's segments), B's gone.
  const compacted = lakePart("envelopes", "A", TODAY, "part-c-1-0.parquet", 90);
  await recordParts(state, [compacted, r], new Map([[compacted.path, 5]]), new Map());
  const after = await takenParts(state, ctx.paths);
  expect(after.map((p) => [p.name, p.rows, p.segments]).sort()).toEqual([
    ["part-c-1-0.parquet", 5, ["seg-1"]],
    ["part-r-0.parquet", 3, []],
  ]);
});

test("retention of the state: units and rows older than the kept days, those of removed days, minutes older than a day", async () => {
  const dayTable = unitTable(ROLLUPS[0], "d");
  const hourTable = unitTable(ROLLUPS[0], "h");
  const cutoff = TODAY - RETENTION_DAYS;
  const removed = TODAY - 40;
  for (const day of [cutoff - 1, cutoff, removed, TODAY]) {
    await state.run(`INSERT INTO ${dayTable} (program, day) VALUES ('A', ${day})`);
    await state.run(`INSERT INTO ${hourTable} (program, hour) VALUES ('A', ${day * 24 + 5})`);
    await state.run(`INSERT INTO unresolved (attempt_key, received_at) VALUES (${day}, ${day * DAY + 1000})`);
  }
  const minute = Math.floor(NOW / 60_000);
  await state.run(`INSERT INTO u_recent_m (program, minute) VALUES ('A', ${minute - 2 * 1440}), ('A', ${minute - 10})`);
  await forgetExpired(state, { today: TODAY, removedDays: [removed], clock: NOW });
  const days = async (sql: string) => (await state.all<{ d: number }>(sql)).map((row) => Number(row.d)).sort();
  expect(await days(`SELECT day AS d FROM ${dayTable}`)).toEqual([cutoff, TODAY].sort());
  expect(await days(`SELECT hour // 24 AS d FROM ${hourTable}`)).toEqual([cutoff, TODAY].sort());
  expect(await days("SELECT attempt_key AS d FROM unresolved")).toEqual([cutoff, TODAY].sort());
  // Minute units: the last day's only.
  expect(await days("SELECT minute AS d FROM u_recent_m")).toEqual([minute - 10]);
});

test("without deploys, the deploy step leaves no programs and no release periods", async () => {
  await writeDeploys(state, [], NOW);
  expect(await readDeploys(state)).toEqual({ programs: [], periods: [] });
  expect(await count("windows_def")).toBe(3);
});

test("publishing switches the pointer, keeps the previous version for readers, removes older ones", () => {
  mkdirSync(join(ctx.paths.tables, "wallets"), { recursive: true });
  for (const version of [1, 2, 3]) writeFileSync(servingFile(ctx.paths, version), "");
  writeFileSync(join(ctx.paths.tables, "serving-1.answers"), "");
  writePointer(ctx.paths, { version: 2, file: "serving-2.duckdb", builtAt: 0, clock: 0, schema: SERVING_SCHEMA });

  publishVersion(ctx.paths, { version: 3, clock: NOW, builtAt: NOW + 1 });
  expect(readPointer(ctx.paths)).toEqual({
    version: 3,
    file: "serving-3.duckdb",
    builtAt: NOW + 1,
    clock: NOW,
    schema: SERVING_SCHEMA,
  });
  expect([1, 2, 3].map((v) => existsSync(servingFile(ctx.paths, v)))).toEqual([false, true, true]);
  expect(existsSync(join(ctx.paths.tables, "serving-1.answers"))).toBe(false);
  expect(existsSync(join(ctx.paths.tables, "wallets"))).toBe(false);
});
