// Inputs that become file paths can never leave their directories: program ids, days, node ids and
// IDL program ids are validated before a path is built, and hostile ingest never creates a lake
// directory outside the documented `program=<base58>/day=<YYYY-MM-DD>` shape.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { idlFilePath } from "../../src/chain/idl/idl-files";
import { flushSpool } from "../../src/lake/flush-spool";
import { dataPaths } from "../../src/lake/paths";
import { makeEnvelope } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const HOSTILE = [
  "..",
  "../..",
  "../../etc",
  "..%2F..%2Fetc",
  "%2e%2e",
  "a/b",
  "a\\b",
  "/abs",
  "x\u0000y",
  "",
  " ",
  ".",
  "program=x",
  "~",
  "11111111111111111111111111111111/../..",
  "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4\u0000",
  "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4/..",
];
const HOSTILE_DAYS = [
  "..",
  "../2025-01-01",
  "2025-01-01/..",
  "2025-1-1",
  "2025-01-01\u0000",
  "20250101",
  "2025-01-01 ",
  "../../x",
];
const PROGRAM = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";

test("partition paths: a program id must be base58 of 32 bytes and a day YYYY-MM-DD; valid ones stay inside the dataset", () => {
  const paths = dataPaths("/srv/txray/data");
  for (const program of HOSTILE) expect(() => paths.partition("envelopes", program)).toThrow();
  for (const day of HOSTILE_DAYS) expect(() => paths.partition("envelopes", PROGRAM, day)).toThrow();
  for (const dataset of ["envelopes", "resolutions", "deploys"] as const) {
    const path = resolve(paths.partition(dataset, PROGRAM, "2025-01-01"));
    expect(path.startsWith(`${resolve(paths.dataset(dataset))}/`)).toBe(true);
  }
});

test("spool and IDL paths: node ids and program ids are validated", () => {
  const paths = dataPaths("/srv/txray/data");
  for (const node of [...HOSTILE, "Node1", "a".repeat(33)]) expect(() => paths.spool(node)).toThrow();
  expect(resolve(paths.spool("node-1")).startsWith(`${resolve(paths.spoolRoot)}/`)).toBe(true);
  for (const program of HOSTILE) expect(() => idlFilePath("/srv/txray/data", program)).toThrow();
  expect(resolve(idlFilePath("/srv/txray/data", PROGRAM)).startsWith("/srv/txray/data/idl/")).toBe(true);
});

let t: TestServer;
beforeAll(async () => {
  t = await testServer();
});
afterAll(async () => {
  await t.stop();
});

test("hostile program ids are refused at ingest, and the lake only ever holds program=<base58>/day=<date> directories", async () => {
  const key = t.key("paths");
  for (const program of HOSTILE) {
    const answer = await t.ingest({ apiKey: key, envelopes: [makeEnvelope({ program })] });
    expect([answer.status, answer.body.error.code]).toEqual([400, "schema_violation"]);
  }
  expect(
    (
      await t.ingest({
        apiKey: key,
        envelopes: [makeEnvelope(), makeEnvelope({ program: "11111111111111111111111111111111" })],
      })
    ).status,
  ).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const lake = t.ctx.paths.lake;
  const dirs: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      dirs.push(join(dir, entry.name).slice(lake.length + 1));
      walk(join(dir, entry.name), depth + 1);
    }
  };
  walk(lake, 0);
  expect(dirs.length).toBeGreaterThan(0);
  for (const dir of dirs)
    expect(dir).toMatch(
      /^(envelopes|resolutions|deploys)(\/program=[1-9A-HJ-NP-Za-km-z]{32,44}(\/day=\d{4}-\d{2}-\d{2})?)?$/,
    );
  expect(existsSync(join(lake, "envelopes", `program=${PROGRAM}`))).toBe(true);
});
