// Found by `bun run chaos`: processes killed mid-job left their staging files behind (1.5 GB after
// 200 kills). Each job now removes its own kind of leftovers when it starts, and nothing else.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discardUncommittedBatches } from "../../src/chain/resolve/record";
import { compactLake } from "../../src/lake/compact";
import { flushSpool } from "../../src/lake/flush-spool";
import { testContext } from "../helpers/context";

let ctx: Awaited<ReturnType<typeof testContext>> | null = null;
afterEach(() => {
  ctx?.dispose();
  ctx = null;
});

test("flush, resolve and compact each sweep their own staging leftovers and leave the rest", async () => {
  ctx = await testContext();
  const leftovers = {
    flush: ["node1-1763700000000-a1b2c3", "verified-node1-1763700000001-d4e5f6"],
    resolve: ["r-01a20a2c-a39e-71b7-ae2b-ada4bdfe8a1e", "r-01a20a2c-a39e-71b7-ae2b-ada4bdfe8a1e.ndjson"],
    compact: ["compact-01a20a2c-ce4a-7232-863e-46ee3fd3010a"],
    other: ["backup-in-progress"],
  };
  for (const name of Object.values(leftovers).flat()) {
    if (name.endsWith(".ndjson")) writeFileSync(join(ctx.paths.staging, name), "{}\n");
    else {
      mkdirSync(join(ctx.paths.staging, name, "program=x"), { recursive: true });
      writeFileSync(join(ctx.paths.staging, name, "program=x", "part-0.parquet"), "x");
    }
  }
  const present = () => readdirSync(ctx!.paths.staging).sort();
  await flushSpool(ctx);
  expect(present()).toEqual([...leftovers.compact, ...leftovers.other, ...leftovers.resolve].sort());
  discardUncommittedBatches(ctx);
  expect(present()).toEqual([...leftovers.compact, ...leftovers.other].sort());
  await compactLake(ctx);
  expect(present()).toEqual(leftovers.other);
  expect(existsSync(join(ctx.paths.staging, "backup-in-progress", "program=x", "part-0.parquet"))).toBe(true);
});
