// The tables builder: one per context, refreshes run one at a time in the order asked, and a
// stopped builder takes no new refresh.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildServingTables, TablesBuilder, tablesBuilderOf } from "../../../src/analytics/tables/build";
import { testContext } from "../../helpers/context";

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(() => ctx.dispose());

test("each context has its own builder, and buildServingTables uses it", async () => {
  const other = await testContext();
  try {
    expect(tablesBuilderOf(ctx)).toBe(tablesBuilderOf(ctx));
    expect(tablesBuilderOf(other)).not.toBe(tablesBuilderOf(ctx));
  } finally {
    other.dispose();
  }
});

test("refreshes asked at once run one after the other, in order", async () => {
  const finished: number[] = [];
  const runs = [1, 2, 3].map((n) =>
    buildServingTables(ctx).then((result) => {
      finished.push(n);
      return result;
    }),
  );
  const results = await Promise.all(runs);
  expect(finished).toEqual([1, 2, 3]);
  expect(results.map((r) => r.version)).toEqual([results[0].version, results[0].version + 1, results[0].version + 2]);
  expect(results[0].full).toBe(true); // a first run: no state yet
  expect(results.slice(1).map((r) => r.full)).toEqual([false, false]);
});

test("a stopped builder waits for its refresh and takes no new one", async () => {
  const builder = new TablesBuilder(ctx);
  const running = builder.build();
  await builder.stop();
  expect((await running).version).toBeGreaterThan(0);
  await expect(builder.build()).rejects.toThrow("stopped");
});
