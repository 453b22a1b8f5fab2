// What one refresh takes in when more arrived than it holds (limitIntake): a prefix of the parts in
// publish order (read resolutions first), never half of a compacted (replaced) envelope partition, and a record of taken
// parts that makes the next refresh read exactly what was left: deferred parts of a fresh partition
// as new, a deferred replaced partition as replaced again (minus the segments taken before).

import { expect, test } from "bun:test";
import { type LakePart, limitIntake, planIntake, type TakenPart } from "../../../src/analytics/tables/intake";

const part = (
  dataset: "envelopes" | "resolutions",
  program: string,
  name: string,
  publishedMs: number,
  bytes = 100,
): LakePart => ({
  dataset,
  program,
  day: "2025-11-21",
  name,
  path: `/lake/${dataset}/program=${program}/day=2025-11-21/${name}`,
  bytes,
  publishedMs,
});
const taken = (p: LakePart, rows: number, segments: string[]): TakenPart => ({ ...p, rows, segments });
const rowsOf = (rows: Record<string, number>) => async (files: string[]) =>
  new Map(files.map((f) => [f, rows[f.split("/").at(-1)!] ?? 0]));

test("a refresh takes the oldest published parts first and records only those as taken", async () => {
  const listed = [
    part("envelopes", "B", "e-b1", 1),
    part("envelopes", "A", "e-a2", 3),
    part("envelopes", "A", "e-a1", 1),
    part("envelopes", "B", "e-b2", 3),
    part("resolutions", "A", "r-a1", 2),
  ];
  const plan = await planIntake(
    listed,
    [],
    rowsOf({ "e-a1": 50, "e-b1": 50, "e-a2": 50, "e-b2": 50, "r-a1": 40 }),
    100,
  );
  // Resolutions are read first (an attempt that arrived and resolved since the last refresh is taken in once, resolved).
  expect(plan.reads.map((r) => r.files.map((f) => f.split("/").at(-1)))).toEqual([
    ["r-a1"],
    ["e-a1", "e-b1"],
    ["e-a2", "e-b2"],
  ]);
  // A refresh that is behind takes parts in publication order, resolutions among them: the
  // dashboards of a job that fell behind show resolved attempts, not only pending ones.
  const behind = limitIntake(plan, 140);
  expect(behind.plan.reads.map((r) => r.files.map((f) => f.split("/").at(-1)))).toEqual([["r-a1"], ["e-a1", "e-b1"]]);
  expect(behind.deferredRows).toBe(100);
  // What compaction may merge (src/lake/compact.ts): parts published before the first one left.
  expect(behind.deferredFrom).toBe(3);
  const first = limitIntake(plan, 100);
  expect(first.plan.reads).toHaveLength(1);
  expect(first.deferredRows).toBe(140);
  expect(first.deferredFrom).toBe(2);
  expect(first.plan.parts.map((p) => p.name).sort()).toEqual(["e-a1", "e-b1"]);
  // The next refresh (the first one's parts taken) plans the rest as new.
  const next = await planIntake(
    listed,
    first.plan.parts.map((p) => taken(p, 50, [])),
    rowsOf({ "e-a2": 50, "e-b2": 50, "r-a1": 40 }),
    100,
  );
  expect(next.reads.flatMap((r) => r.files).map((f) => f.split("/").at(-1))).toEqual(["r-a1", "e-a2", "e-b2"]);
  // Everything fits: the plan as it was.
  expect(limitIntake(plan, 1_000)).toEqual({ plan, deferredRows: 0 });
  // At least one read, however large.
  expect(limitIntake(plan, 10).plan.reads).toHaveLength(1);
});

test("a publish batch is taken in whole: a flush's parts of every program in the same refresh", async () => {
  // Two flush batches, each a part per program (written one after another), and a resolve run's batch between them.
  const listed = [
    part("envelopes", "A", "part-f1-0.parquet", 1),
    part("envelopes", "B", "part-f1-1.parquet", 4),
    part("resolutions", "A", "part-r-x-0.parquet", 2),
    part("envelopes", "A", "part-f2-0.parquet", 5),
    part("envelopes", "B", "part-f2-1.parquet", 6),
  ];
  const rows = {
    "part-f1-0.parquet": 50,
    "part-f1-1.parquet": 50,
    "part-r-x-0.parquet": 30,
    "part-f2-0.parquet": 50,
    "part-f2-1.parquet": 50,
  };
  const plan = await planIntake(listed, [], rowsOf(rows), 1_000);
  const names = (p: typeof plan) => p.reads.map((r) => r.files.map((f) => f.split("/").at(-1)));
  // The first flush's parts stay together although the resolve run's part was written between them.
  expect(plan.items.map((item) => item.part.name)).toEqual([
    "part-f1-0.parquet",
    "part-f1-1.parquet",
    "part-r-x-0.parquet",
    "part-f2-0.parquet",
    "part-f2-1.parquet",
  ]);
  // A limit inside the second flush defers it whole; a limit inside the first (the oldest) takes it whole.
  expect(names(limitIntake(plan, 150).plan)).toEqual([
    ["part-r-x-0.parquet"],
    ["part-f1-0.parquet", "part-f1-1.parquet"],
  ]);
  expect(names(limitIntake(plan, 60).plan)).toEqual([["part-f1-0.parquet", "part-f1-1.parquet"]]);
});

test("a compacted envelope partition is read whole or deferred whole, and then recorded as it was", async () => {
  // Partition A was taken in as two parts (segments s1, s2); compaction merged them with a part not
  // taken in yet into two new parts. Partition B has a new part published earlier.
  const old1 = taken(part("envelopes", "A", "old-1", 1), 30, ["s1"]);
  const old2 = taken(part("envelopes", "A", "old-2", 1), 30, ["s2"]);
  const listed = [
    part("envelopes", "B", "b-new", 2),
    part("envelopes", "A", "part-c-1-0.parquet", 5),
    part("envelopes", "A", "part-c-2-0.parquet", 6),
  ];
  const plan = await planIntake(
    listed,
    [old1, old2],
    rowsOf({ "b-new": 80, "part-c-1-0.parquet": 60, "part-c-2-0.parquet": 40 }),
    1_000,
  );
  expect(plan.reads.map((r) => [r.files.map((f) => f.split("/").at(-1)), r.skipSegments])).toEqual([
    [["b-new"], null],
    [["part-c-1-0.parquet"], ["s1", "s2"]],
    [["part-c-2-0.parquet"], ["s1", "s2"]],
  ]);

  // Room for B and A.
  const whole = limitIntake(plan, 180);
  expect(whole.plan.reads).toHaveLength(3);
  expect(whole.deferredRows).toBe(0);

  // Room for B and part of A: A's parts are not split, A waits whole.
  expect(limitIntake(plan, 150).plan.reads.map((r) => r.files.map((f) => f.split("/").at(-1)))).toEqual([["b-new"]]);

  // Room for B only: A is deferred and recorded with its old parts, so the next refresh sees it replaced again.
  const deferred = limitIntake(plan, 80);
  expect(deferred.plan.reads).toHaveLength(1);
  expect(deferred.deferredRows).toBe(100);
  expect(deferred.plan.parts.map((p) => p.name).sort()).toEqual(["b-new", "old-1", "old-2"]);
  const next = await planIntake(
    listed,
    [old1, old2, taken(part("envelopes", "B", "b-new", 2), 80, [])],
    rowsOf({ "part-c-1-0.parquet": 60, "part-c-2-0.parquet": 40 }),
    1_000,
  );
  expect(next.reads.map((r) => r.skipSegments)).toEqual([
    ["s1", "s2"],
    ["s1", "s2"],
  ]);
});

test("a partition compacted while new parts arrived: the compacted part needs nothing, the new parts are new data", async () => {
  // A's parts f1 and f2 were taken in (segments s1, s2); compaction merged them into part-c-m (as
  // many rows), and flushes f3 and f4 added parts meanwhile.
  const f1 = taken(part("envelopes", "A", "part-f1-0.parquet", 1), 30, ["s1"]);
  const f2 = taken(part("envelopes", "A", "part-f2-0.parquet", 2), 30, ["s2"]);
  const listed = [
    part("envelopes", "A", "part-c-m-0.parquet", 9),
    part("envelopes", "A", "part-f3-0.parquet", 3),
    part("envelopes", "A", "part-f4-0.parquet", 4),
  ];
  const rows = rowsOf({ "part-c-m-0.parquet": 60, "part-f3-0.parquet": 40, "part-f4-0.parquet": 40 });
  const plan = await planIntake(listed, [f1, f2], rows, 1_000);
  // Before, the compacted part was read again with the new ones (minus s1, s2), at every compaction.
  expect(plan.reads.map((r) => [r.files.map((f) => f.split("/").at(-1)), r.skipSegments])).toEqual([
    [["part-f3-0.parquet", "part-f4-0.parquet"], null],
  ]);
  expect(plan.parts.map((p) => p.name).sort()).toEqual([
    "part-c-m-0.parquet",
    "part-f3-0.parquet",
    "part-f4-0.parquet",
  ]);
  // The new parts can be cut like any other (f4 deferred), the compacted part recorded as taken.
  const cut = limitIntake(plan, 40);
  expect(cut.plan.reads.map((r) => r.files.map((f) => f.split("/").at(-1)))).toEqual([["part-f3-0.parquet"]]);
  expect(cut.plan.parts.map((p) => p.name).sort()).toEqual(["part-c-m-0.parquet", "part-f3-0.parquet"]);

  // Compacted over a part not taken in yet (more rows than it replaced): read again minus s1, s2;
  // deferred, it stays recorded as it was, with the new parts this refresh read.
  const more = await planIntake(
    listed,
    [f1, f2],
    rowsOf({ "part-c-m-0.parquet": 75, "part-f3-0.parquet": 40, "part-f4-0.parquet": 40 }),
    1_000,
  );
  expect(more.items.map((item) => [item.part.name, item.skipSegments])).toEqual([
    ["part-f3-0.parquet", null],
    ["part-f4-0.parquet", null],
    ["part-c-m-0.parquet", ["s1", "s2"]],
  ]);
  const deferred = limitIntake(more, 80);
  expect(deferred.deferredRows).toBe(75);
  expect(deferred.plan.parts.map((p) => p.name).sort()).toEqual([
    "part-f1-0.parquet",
    "part-f2-0.parquet",
    "part-f3-0.parquet",
    "part-f4-0.parquet",
  ]);
});
