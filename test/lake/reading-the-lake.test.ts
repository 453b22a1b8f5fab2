// docs/reading-the-lake.md's recipes, run as written (read out of the page) on a small lake holding
// parts of both writers (DuckDB's: the generator, as flush's fallback, the resolver and the deploys
// job write; the native flush writer's): every instant column is a timestamp to DuckDB and a Date to
// hyparquet, a UTC Timestamp to Apache Arrow through parquet-wasm (a third, independent Parquet
// reader: Rust's parquet crate in WebAssembly), with the numbers txray itself reads. And a lake of layout version 4 (bare INT64
// instants) is upgraded in place when a context opens it: same rows, same order, timestamps.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { type Duck, openDuck, sqlString } from "../../src/lake/duckdb";
import { buildNativeFlushWriter, loadNativeFlushWriter } from "../../src/lake/native";
import { DATASETS, type DatasetName, instantColumns, LAKE_VERSION, readLakeSql } from "../../src/lake/schema";
import { lakeVersionFile } from "../../src/lake/upgrade";
import { encodeSpoolBatch } from "../../src/spool/line-format";
import { newSegmentName, segmentNameOf } from "../../src/spool/spool";
import { testContext } from "../helpers/context";
import { readDirectory } from "../helpers/directory-files";
import { makeEnvelope, PROGRAMS } from "../helpers/envelopes";

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "reading-the-lake.md"), "utf8");
const DATASET_NAMES = Object.keys(DATASETS) as DatasetName[];
const HOOK_MS = 30_000;

/** The fenced blocks of a language under a heading of the page. */
function blocks(heading: string, language: string): string[] {
  const section = doc.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]);
}

let work: string;
let lake: string;
let duck: Duck;
let nativeWritten = false;
/** The native writer's part, when it is built. */
let nativePart: string | null = null;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "txray-reading-"));
  const dataDir = join(work, "data");
  await generateLake({ dataDir, envelopes: 200, programs: 1, days: 2, endMs: END_MS, threads: 1 });
  lake = join(dataDir, "lake");
  // A flush part of the native writer beside the generator's (DuckDB's) parts.
  const native = buildNativeFlushWriter() === null ? loadNativeFlushWriter() : null;
  if (native) {
    mkdirSync(join(work, "spool"));
    const file = join(work, "spool", `${newSegmentName("node1", END_MS)}.sealed`);
    const envelopes = Array.from({ length: 20 }, (_, i) =>
      makeEnvelope({ program: PROGRAMS.token, sentAt: END_MS - 5_000 + i }),
    );
    writeFileSync(file, encodeSpoolBatch("acc_native", END_MS - 1_000, Bun.randomUUIDv7(), envelopes));
    const written = await native.write([{ file, name: segmentNameOf(file) }], join(lake, "envelopes"), "native1");
    nativeWritten = written !== null;
    nativePart = written?.parts[0]?.path ?? null;
  }
  duck = await openDuck();
}, HOOK_MS);

afterAll(() => {
  duck?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The page's DuckDB recipe on `lakeDir` in a fresh DuckDB: its views and the rows of each query. */
async function runDuckRecipe(lakeDir: string): Promise<{ duck: Duck; results: Record<string, unknown>[][] }> {
  const [sql] = blocks("DuckDB", "sql");
  const recipe = await openDuck();
  const results: Record<string, unknown>[][] = [];
  const statements = sql
    .replaceAll("'data/lake/", `'${lakeDir}/`)
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.replace(/--.*$/gm, "").trim() !== "");
  for (const statement of statements) results.push(await recipe.all(statement));
  return { duck: recipe, results };
}

/** Each dataset's instant columns as txray reads them (Unix ms), keyed by a row's identity. */
async function txrayInstants(lakeDir: string, dataset: DatasetName): Promise<Map<string, (number | null)[]>> {
  const key = dataset === "deploys" ? "program || '/' || slot" : "attempt_id";
  const rows = await duck.all<{ key: string; instants: (number | null)[] }>(
    `SELECT ${key} AS key, [${instantColumns(dataset).join(", ")}] AS instants
     FROM ${readLakeSql(dataset, sqlString(`${lakeDir}/${dataset}/**/*.parquet`), "hive_partitioning = true, hive_types = {'program': VARCHAR}, union_by_name = true")}`,
  );
  return new Map(rows.map((row) => [row.key, row.instants]));
}

test("the DuckDB recipe reads every instant as TIMESTAMP WITH TIME ZONE, with txray's numbers", async () => {
  expect(nativeWritten || buildNativeFlushWriter() !== null).toBe(true); // the native part is there where it can be built
  const { duck: recipe, results } = await runDuckRecipe(lake);
  try {
    const [parts, perDataset, outcomes] = results.filter((rows) => rows.length > 0 && !("Count" in rows[0]));
    const files = readdirSync(lake, { recursive: true }).filter((name) => String(name).endsWith(".parquet"));
    expect(parts.length).toBe(files.length); // the whole lake's footers, every dataset
    // The glob over the whole lake reads every dataset's rows (every dataset has a day level).
    const total = (
      await duck.all<{ n: number }>(
        `SELECT sum(num_rows) AS n FROM parquet_file_metadata(${sqlString(`${lake}/**/*.parquet`)})`,
      )
    )[0].n;
    expect(new Set(perDataset.map((row) => row.dataset))).toEqual(new Set(DATASET_NAMES));
    expect(perDataset.reduce((sum, row) => sum + Number(row.rows), 0)).toBe(total);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.every((row) => typeof row.median_time_to_outcome === "object")).toBe(true); // an interval
    for (const dataset of DATASET_NAMES) {
      const types = await recipe.all<{ column_name: string; column_type: string }>(`DESCRIBE ${dataset}`);
      const instants = types
        .filter((t) => instantColumns(dataset).includes(t.column_name))
        .map(({ column_name, column_type }) => ({ column_name, column_type }));
      expect({ dataset, instants }).toEqual({
        dataset,
        instants: instantColumns(dataset).map((name) => ({
          column_name: name,
          column_type: "TIMESTAMP WITH TIME ZONE",
        })),
      });
      const key = dataset === "deploys" ? "program || '/' || slot" : "attempt_id";
      const rows = await recipe.all<{ key: string; instants: (number | null)[] }>(
        `SELECT ${key} AS key, [${instantColumns(dataset)
          .map((name) => `epoch_ms(${name})`)
          .join(", ")}] AS instants FROM ${dataset}`,
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(new Map(rows.map((row) => [row.key, row.instants]))).toEqual(await txrayInstants(lake, dataset));
    }
    if (nativeWritten) {
      const native = await recipe.all<{ sent_at: number }>(
        `SELECT epoch_ms(sent_at) AS sent_at FROM envelopes WHERE account_id = 'acc_native' ORDER BY sent_at`,
      );
      expect(native.map((row) => row.sent_at)).toEqual(Array.from({ length: 20 }, (_, i) => END_MS - 5_000 + i));
    }
  } finally {
    recipe.close();
  }
});

test("the hyparquet recipe returns every instant as a Date, with txray's numbers", async () => {
  const [recipe] = blocks("JavaScript (hyparquet)", "js");
  expect(recipe).toContain("export async function readDataset");
  // Written inside the repository, so that its imports resolve to this checkout's packages.
  const module = join(import.meta.dir, `.reading-recipe-${process.pid}.mjs`);
  writeFileSync(module, recipe);
  try {
    const { readDataset } = (await import(module)) as {
      readDataset(lake: string, dataset: string): Promise<Record<string, unknown>[]>;
    };
    for (const dataset of DATASET_NAMES) {
      const rows = await readDataset(lake, dataset);
      const expected = await txrayInstants(lake, dataset);
      expect(rows.length).toBe(expected.size);
      const notDates = rows.flatMap((row) =>
        instantColumns(dataset).filter((name) => row[name] !== null && !(row[name] instanceof Date)),
      );
      expect({ dataset, notDates }).toEqual({ dataset, notDates: [] });
      const read = new Map(
        rows.map((row) => [
          dataset === "deploys" ? `${row.program}/${row.slot}` : String(row.attempt_id),
          instantColumns(dataset).map((name) => (row[name] === null ? null : (row[name] as Date).getTime())),
        ]),
      );
      expect(read).toEqual(expected);
    }
  } finally {
    rmSync(module, { force: true });
  }
});

test("a lake of layout version 4 is rewritten in place when a context opens it: same rows and order", async () => {
  // The same lake as version 4 wrote it: instants as bare INT64 Unix ms, deploys without a day
  // level, no version file.
  const old = join(work, "old");
  for (const part of readdirSync(lake, { recursive: true }).map(String)) {
    if (!part.endsWith(".parquet")) continue;
    const dataset = part.split("/")[0] as DatasetName;
    // Version 4 had no day level for deploys; its parts were named by slot, unique per program.
    const oldPart = dataset === "deploys" ? part.replace(/\/day=([^/]+)\//, "/part-$1-") : part;
    mkdirSync(join(old, "lake", oldPart, ".."), { recursive: true });
    const millis = instantColumns(dataset).map((name) => `epoch_ms(${name}) AS ${name}`);
    await duck.run(
      `COPY (SELECT * REPLACE (${millis.join(", ")}) FROM read_parquet(${sqlString(join(lake, part))}, hive_partitioning = false))
       TO ${sqlString(join(old, "lake", oldPart))} (FORMAT parquet, COMPRESSION zstd)`,
    );
  }
  const flatDeploys = readdirSync(join(old, "lake", "deploys"), { recursive: true })
    .map(String)
    .filter((path) => /^program=[^/]+\/part-[^/]+\.parquet$/.test(path));
  expect(flatDeploys.length).toBeGreaterThan(0);

  const integers = await duck.all(
    `SELECT DISTINCT type, logical_type FROM parquet_schema(${sqlString(join(old, "lake", "**", "*.parquet"))}) WHERE name = 'received_at'`,
  );
  expect(integers).toEqual([{ type: "INT64", logical_type: null }]);
  const order = (dir: string) =>
    duck.all(
      `SELECT regexp_extract(filename, '/lake/(.*)$', 1) AS part, list(attempt_id ORDER BY file_row_number) AS ids
       FROM read_parquet(${sqlString(join(dir, "envelopes", "**", "*.parquet"))}, filename = true, file_row_number = true) GROUP BY ALL ORDER BY ALL`,
    );
  const before = await order(join(old, "lake"));

  const ctx = await testContext({}, { files: readDirectory(old) });
  try {
    expect(readFileSync(lakeVersionFile(ctx.paths), "utf8").trim()).toBe(String(LAKE_VERSION));
    // Deploy parts moved into the day partition of their detection, as this version writes them.
    const deployDays = await duck.all<{ path_day: string; detected_day: string }>(
      `SELECT regexp_extract(filename, '/day=([^/]+)/', 1) AS path_day, strftime(min(detected_at) AT TIME ZONE 'UTC', '%Y-%m-%d') AS detected_day
       FROM read_parquet(${sqlString(join(ctx.paths.lake, "deploys", "**", "*.parquet"))}, filename = true, hive_partitioning = false) GROUP BY filename`,
    );
    expect(deployDays.length).toBe(flatDeploys.length);
    expect(deployDays.every((file) => file.path_day === file.detected_day)).toBe(true);
    expect(await order(ctx.paths.lake)).toEqual(before);
    const { duck: recipe, results } = await runDuckRecipe(ctx.paths.lake);
    recipe.close();
    expect(results.some((rows) => rows.length > 0)).toBe(true);
    for (const dataset of DATASET_NAMES)
      expect(await txrayInstants(ctx.paths.lake, dataset)).toEqual(await txrayInstants(lake, dataset));
    const stillIntegers = await duck.all(
      `SELECT DISTINCT file_name FROM parquet_schema(${sqlString(join(ctx.paths.lake, "**", "*.parquet"))})
       WHERE name IN ('received_at', 'sent_at', 'resolved_at', 'block_time', 'deployed_at', 'detected_at') AND logical_type IS NULL`,
    );
    expect(stillIntegers).toEqual([]);
  } finally {
    ctx.dispose();
  }
});

test("the Arrow recipe (parquet-wasm) reads every instant of both writers' parts as a Timestamp in UTC", async () => {
  const [recipe] = blocks("JavaScript (parquet-wasm and Apache Arrow)", "js");
  expect(recipe).toContain("export function readPart");
  const module = join(import.meta.dir, `.reading-arrow-recipe-${process.pid}.mjs`);
  writeFileSync(module, recipe);
  try {
    const { readPart } = (await import(module)) as {
      readPart(path: string): {
        schema: { fields: { name: string; type: { typeId: number; unit: number; timezone: string | null } }[] };
        getChild(name: string): { toArray(): Iterable<number | bigint> } | null;
      };
    };
    const { TimeUnit, Type } = await import("apache-arrow");
    const instantTypes = (path: string, dataset: DatasetName) =>
      readPart(path)
        .schema.fields.filter((field) => instantColumns(dataset).includes(field.name))
        .map(({ name, type }) => ({ name, type: type.typeId, timezone: type.timezone, unit: TimeUnit[type.unit] }));
    // One part DuckDB's writer wrote (the generator's) of every dataset: microseconds.
    for (const dataset of DATASET_NAMES) {
      const part = readdirSync(join(lake, dataset), { recursive: true })
        .map((name) => join(lake, dataset, String(name)))
        .find((path) => path.endsWith(".parquet") && path !== nativePart);
      expect(part).toBeDefined();
      expect({ dataset, instants: instantTypes(part as string, dataset) }).toEqual({
        dataset,
        instants: instantColumns(dataset).map((name) => ({
          name,
          type: Type.Timestamp,
          timezone: "UTC",
          unit: "MICROSECOND",
        })),
      });
    }
    // The native writer's flush part: milliseconds, and txray's numbers.
    expect(nativePart !== null || buildNativeFlushWriter() !== null).toBe(true);
    if (nativePart) {
      expect(instantTypes(nativePart, "envelopes")).toEqual(
        instantColumns("envelopes").map((name) => ({
          name,
          type: Type.Timestamp,
          timezone: "UTC",
          unit: "MILLISECOND",
        })),
      );
      const sentAt = readPart(nativePart).getChild("sent_at");
      expect([...(sentAt?.toArray() ?? [])].map(Number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => END_MS - 5_000 + i),
      );
    }
  } finally {
    rmSync(module, { force: true });
  }
});
