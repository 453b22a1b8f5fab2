// The Landing Score's files as a publisher relies on them: byte-identical on a re-run (no wall
// clock anywhere, Parquet included), valid against docs/landing-score.schema.json (which must equal
// the schema generated from the zod schema of record), the Parquet copy holding the JSON's rows,
// display names from programs.json, and `txray jobs run landing-score [--date]` on the CLI.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { generateLake } from "../../devkit/generate";
import {
  accountCeiling,
  computeLandingScore,
  readProgramNames,
  runLandingScore,
  type Snapshot,
} from "../../src/analytics/landing-score";
import { SCHEMA_DOC, snapshotJsonSchema } from "../../src/analytics/landing-score/schema-json";
import { run } from "../../src/cli/commands";
import { sqlString } from "../../src/lake/duckdb";
import { readJson, type ScoreContext, scoreContext } from "./landing-score-support";
import { END_MS } from "./support";

const DATE = "2025-11-20";
let ctx: ScoreContext;
let programs: string[];

beforeAll(async () => {
  ctx = await scoreContext(END_MS);
  programs = (
    await generateLake({
      dataDir: ctx.config.dataDir,
      envelopes: 8_000,
      programs: 3,
      days: 10,
      seed: 5,
      endMs: END_MS,
      threads: 2,
    })
  ).programs;
  writeFileSync(join(ctx.snapshotsDir, "programs.json"), JSON.stringify({ [programs[0]]: "Alpha <Swap> & Co" }));
}, 60_000);
afterAll(() => ctx.dispose());

const filesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );

describe("files", () => {
  test("a re-run for the same date gives byte-identical files, whatever the time now", async () => {
    const first = await runLandingScore(ctx, { date: DATE });
    expect(first.files).toEqual([`${DATE}.json`, `${DATE}.parquet`, "latest.json", "index.html"]);
    const before = filesOf(ctx.dir);
    expect(Object.keys(before)).toEqual([`${DATE}.json`, `${DATE}.parquet`, "index.html", "latest.json"]);
    await Bun.sleep(1100); // a later second, in case anything wrote the time
    (ctx as { clock: () => number }).clock = () => END_MS + 40 * 86_400_000;
    await runLandingScore(ctx, { date: DATE });
    const after = filesOf(ctx.dir);
    for (const name of Object.keys(before)) expect(Buffer.compare(after[name], before[name])).toBe(0);
    (ctx as { clock: () => number }).clock = () => END_MS;
    expect(readFileSync(join(ctx.dir, "latest.json"), "utf8")).toBe(
      readFileSync(join(ctx.dir, `${DATE}.json`), "utf8"),
    );
    // No temporary file is left behind.
    expect(readdirSync(ctx.dir).filter((name) => name.startsWith("."))).toEqual([]);
  });

  test("the JSON validates against docs/landing-score.schema.json, which is the generated schema", () => {
    expect(readFileSync(SCHEMA_DOC, "utf8")).toBe(snapshotJsonSchema());
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(readJson(SCHEMA_DOC));
    const snapshot = readJson(join(ctx.dir, `${DATE}.json`));
    expect(snapshot.programs.length).toBe(3);
    expect(validate(snapshot)).toBe(true);
    // The schema does reject what breaks the contract.
    const broken = [
      { ...snapshot, sample: false },
      { ...snapshot, programs: [{ ...snapshot.programs[0], sends: "12" }] },
      { ...snapshot, programs: [{ ...snapshot.programs[0], ci95: [0.1] }] },
      { ...snapshot, programs: [{ ...snapshot.programs[0], sampleRate: 0 }] },
    ];
    for (const value of broken) expect(validate(value)).toBe(false);
    // And accepts what a later file may add: readers ignore fields they do not know.
    expect(validate({ ...snapshot, extra: 1, programs: [{ ...snapshot.programs[0], extra: 1 }] })).toBe(true);
    const { sends, ...withoutSends } = snapshot.programs[0];
    expect(validate({ ...snapshot, programs: [withoutSends] })).toBe(false); // required fields stay required
  });

  test("the Parquet copy holds the JSON's rows, in rank order", async () => {
    const snapshot: Snapshot = readJson(join(ctx.dir, `${DATE}.json`));
    const rows = await ctx.duck.all<Record<string, unknown>>(
      `SELECT * FROM read_parquet('${join(ctx.dir, `${DATE}.parquet`)}')`,
    );
    expect(rows).toEqual(snapshot.programs.map((row) => ({ date: DATE, ...row })));
    const meta = await ctx.duck.all<{ created_by: string }>(
      `SELECT created_by FROM parquet_file_metadata('${join(ctx.dir, `${DATE}.parquet`)}')`,
    );
    expect(meta[0].created_by).toStartWith("DuckDB version");
  });

  test("display names come from programs.json; a malformed file stops the run with its path", async () => {
    const snapshot: Snapshot = readJson(join(ctx.dir, `${DATE}.json`));
    expect(snapshot.programs.find((r) => r.program === programs[0])!.name).toBe("Alpha <Swap> & Co");
    expect(snapshot.programs.filter((r) => r.name === null).length).toBe(2);
    const page = readFileSync(join(ctx.dir, "index.html"), "utf8");
    expect(page).toContain("Alpha &lt;Swap&gt; &amp; Co");
    expect(page).not.toContain("<Swap>");
    const file = join(ctx.snapshotsDir, "programs.json");
    const good = readFileSync(file, "utf8");
    writeFileSync(file, JSON.stringify({ "not a program": "x" }));
    await expect(runLandingScore(ctx, { date: DATE })).rejects.toThrow("programs.json");
    writeFileSync(file, good);
  });

  test("the page loads nothing: no external reference, a policy that forbids fetching", () => {
    const page = readFileSync(join(ctx.dir, "index.html"), "utf8");
    expect(page).toContain(`default-src 'none'`);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/<link|<img|<iframe|fetch\(|XMLHttpRequest|import\(/);
    expect(page).toContain("This is a sample.");
    expect(page).toContain("Methodology");
  });
});

describe("account ceiling", () => {
  test("is the largest whole cap that keeps every account within the share (brute force)", () => {
    const cases: [number[], number][] = [
      [[10], 1],
      [[10], 0.5],
      [[100, 10], 0.5],
      [[1000, 120, 130], 0.5],
      [[5, 5, 5, 5], 0.25],
      [[50, 40, 30, 20, 10], 0.3],
      [[7, 3], 0.7],
      [[120, 130, 1000], 0.3],
    ];
    for (const [counts, share] of cases) {
      let best = 0;
      for (let t = 0; t <= Math.max(...counts); t++)
        if (t <= share * counts.reduce((sum, n) => sum + Math.min(n, t), 0) + 1e-9) best = t;
      expect(accountCeiling(counts, share)).toBe(best);
      const kept = counts.map((n) => Math.min(n, best));
      const total = kept.reduce((a, b) => a + b, 0);
      if (total > 0) expect(Math.max(...kept) / total).toBeLessThanOrEqual(share + 1e-12);
    }
  });
});

describe("txray jobs run landing-score", () => {
  async function cli(...argv: string[]) {
    let stdout = "";
    let stderr = "";
    // No chain in these tests: a closed local port, so `all` can never reach mainnet.
    const env = {
      TXRAY_DATA_DIR: ctx.config.dataDir,
      TXRAY_SNAPSHOTS_DIR: ctx.snapshotsDir,
      TXRAY_LOG_LEVEL: "silent",
      SOLANA_RPC_URL: "http://127.0.0.1:9",
      TXRAY_RETENTION_DAYS: "off", // the world is dated 2025-11: `all` must not prune it
    };
    const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
    return { code, stdout, stderr };
  }

  test("--date publishes that date's snapshot and prints the outcome", async () => {
    rmSync(join(ctx.dir, "2025-11-19.json"), { force: true });
    const result = await cli("jobs", "run", "landing-score", "--date", "2025-11-19");
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({
      job: "landing-score",
      ok: true,
      details: { date: "2025-11-19", listed: 3, latest: false },
    });
    expect(existsSync(join(ctx.dir, "2025-11-19.json"))).toBe(true);
    expect(readJson(join(ctx.dir, "latest.json")).date).toBe(DATE);
  });

  test("bad dates and --date on another job are usage errors; `all` does not publish", async () => {
    for (const argv of [
      ["jobs", "run", "landing-score", "--date", "2025-11-31"],
      ["jobs", "run", "landing-score", "--date", "yesterday"],
      ["jobs", "run", "landing-score", "--date", "2999-01-01"],
      ["jobs", "run", "flush", "--date", "2025-11-19"],
    ]) {
      const result = await cli(...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toStartWith("txray: ");
    }
    const all = await cli("jobs", "run", "all");
    const jobs = all.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).job);
    expect(jobs).not.toContain("landing-score");
    expect(jobs).toContain("tables");
  }, 60_000);
});

test("the repository's snapshots/programs.json is a valid names file", () => {
  const names = readProgramNames(join(import.meta.dir, "..", "..", "snapshots"));
  expect(Object.keys(names).length).toBeGreaterThan(0);
  expect(names.JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4).toBeString();
});

describe("compaction during the read", () => {
  test("a part swapped away between the listing and the read: the read is made again, the same snapshot", async () => {
    const options = {
      date: DATE,
      minimumAccounts: ctx.config.LANDING_SCORE_MIN_ACCOUNTS,
      maxAccountShare: ctx.config.LANDING_SCORE_MAX_ACCOUNT_SHARE,
      names: {},
    };
    const expected = await computeLandingScore(ctx.paths, () => ctx.duck.connect(), options);
    expect(expected.snapshot.programs.length).toBe(3);
    // What compaction does to every envelope partition, done right after the parts were listed:
    // the partition's parts become one part of the same rows under a new name.
    let connects = 0;
    const swapped: string[] = [];
    const connect = async () => {
      if (connects++ === 0) {
        const root = ctx.paths.dataset("envelopes");
        for (const program of readdirSync(root)) {
          for (const day of readdirSync(join(root, program))) {
            const dir = join(root, program, day);
            const parts = readdirSync(dir).filter((name) => name.endsWith(".parquet"));
            const merged = join(dir, `part-c-${Bun.randomUUIDv7()}-0.parquet`);
            await ctx.duck.run(
              `COPY (SELECT * FROM read_parquet([${parts.map((name) => sqlString(join(dir, name))).join(", ")}], hive_partitioning = false)) TO ${sqlString(merged)} (FORMAT parquet)`,
            );
            for (const name of parts) rmSync(join(dir, name));
            swapped.push(...parts);
          }
        }
      }
      return await ctx.duck.connect();
    };
    const raced = await computeLandingScore(ctx.paths, connect, options);
    expect(swapped.length).toBeGreaterThan(0);
    expect(connects).toBe(2); // the first read failed on a listed part that was gone, the second listed again
    expect(raced).toEqual(expected);
  });
});
