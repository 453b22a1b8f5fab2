// The envelope's field table (src/shared/envelope-fields.ts) is its one definition: every output
// derived from it carries every field, and the two C fast paths, which stay hand-written, agree with
// it. encode.c: its field names, their order and the required ones (read from the source), every
// limit (the native encoder takes exactly what the table allows, at and past each bound) and the
// spool line of an envelope with every field set (byte for byte what JavaScript writes, compared
// column by column). pages.c: its spool field count and fixed positions (read from the source) and
// the Parquet columns of that envelope (value for value). The source checks need no compiler; the
// rest skips without one, as the fast paths' own tests do.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNativeEncoder, loadNativeEncoder, type NativeEncoder } from "../../src/ingest/native";
import { fastEnvelope } from "../../src/ingest/validate";
import { buildNativeFlushWriter, loadNativeFlushWriter, type NativeFlushWriter } from "../../src/lake/native";
import { ENVELOPE_COLUMNS } from "../../src/lake/schema";
import { type Envelope, envelopeSchema } from "../../src/shared/envelope";
import { ENVELOPE_FIELDS, type EnvelopeField } from "../../src/shared/envelope-fields";
import {
  decodeSpoolLine,
  encodeSpoolBatch,
  OLDEST_SPOOL_LINE_COLUMNS,
  SPOOL_COLUMNS,
  SPOOL_TEXT_COLUMNS,
  spoolLinePrefix,
} from "../../src/spool/line-format";
import { newSegmentName, segmentNameOf } from "../../src/spool/spool";
import { testContext } from "../helpers/context";

const ROOT = join(import.meta.dir, "../..");
const FIELDS: readonly EnvelopeField[] = ENVELOPE_FIELDS;
const NAMES = FIELDS.map((field) => field.name);
/** An envelope with every field of the table set to its example. */
const FULL = Object.fromEntries(FIELDS.map((field) => [field.name, field.example])) as Envelope;
const lakeColumn = (field: EnvelopeField) => field.lake.column;
const isPartition = (field: EnvelopeField) => "partition" in field.lake;

const RECEIVED_AT = Date.UTC(2026, 10, 21, 12);
const BATCH = "01940000-0000-7000-8000-000000000000";

/** What a spool line holds for a field's value, as the spool's header comment defines it. */
function spoolText(field: EnvelopeField, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return field.kind === "lines" ? JSON.stringify(value) : String(value);
}

describe("the table", () => {
  test("names and lake columns are unique; one field is the partition; required fields come first", () => {
    expect(new Set(NAMES).size).toBe(NAMES.length);
    expect(new Set(FIELDS.map(lakeColumn)).size).toBe(FIELDS.length);
    expect(FIELDS.filter(isPartition).map((field) => field.name)).toEqual(["program"]);
    const firstOptional = FIELDS.findIndex((field) => !field.required);
    expect(FIELDS.slice(firstOptional).every((field) => !field.required)).toBe(true);
  });

  test("its examples make a valid envelope, for zod and for the fast check, which keep every field", () => {
    expect(envelopeSchema.parse(FULL)).toEqual(FULL);
    expect(fastEnvelope(FULL)).toEqual(FULL);
    expect(Object.keys(fastEnvelope(FULL)!)).toEqual(NAMES);
  });
});

describe("what is derived from it", () => {
  test("the lake's envelope columns: the server's four, then every field but the partition, with its type", () => {
    const derived = ENVELOPE_COLUMNS.slice(4).map(({ name, type }) => [name, type]);
    expect(derived).toEqual(
      FIELDS.filter((field) => !isPartition(field)).map((field) => [
        lakeColumn(field),
        (field.lake as { type: string }).type,
      ]),
    );
    expect(ENVELOPE_COLUMNS.slice(0, 4).map((column) => column.name)).toEqual([
      "attempt_id",
      "account_id",
      "received_at",
      "spool_segment",
    ]);
  });

  test("the spool's columns: the server's three, the partition, then every other field; text is free text", () => {
    expect<readonly string[]>(SPOOL_COLUMNS).toEqual([
      "account_id",
      "received_at",
      "attempt_id",
      "program",
      ...FIELDS.filter((field) => !isPartition(field)).map(lakeColumn),
    ]);
    expect([...SPOOL_TEXT_COLUMNS].sort()).toEqual(
      ["account_id", ...FIELDS.filter((field) => field.kind === "text").map(lakeColumn)].sort(),
    );
  });

  test("a spool line carries every field, column by column, and absent optional fields as null", () => {
    const absent = Object.fromEntries(
      Object.entries(FULL).filter(([name]) => FIELDS.find((field) => field.name === name)!.required),
    ) as Envelope;
    const [full, partial] = new TextDecoder()
      .decode(encodeSpoolBatch("acc_table", RECEIVED_AT, BATCH, [FULL, absent]))
      .split("\n");
    for (const [line, envelope] of [
      [full, FULL],
      [partial, absent],
    ] as const) {
      const decoded: Record<string, string | null> = decodeSpoolLine(line)!;
      for (const field of FIELDS)
        expect({ field: field.name, spool: decoded[field.lake.column] }).toEqual({
          field: field.name,
          spool: spoolText(field, (envelope as Record<string, unknown>)[field.name]),
        });
    }
  });
});

describe("encode.c agrees with the table", () => {
  const source = readFileSync(join(ROOT, "src/ingest/native/encode.c"), "utf8");
  /** The F_ enum, in order, without F_COUNT. */
  const fieldEnum = /enum\s*\{([^}]*?),\s*F_COUNT\s*\}/
    .exec(source)![1]
    .split(",")
    .map((name) => name.trim());

  test("its field names, in the table's order", () => {
    const names = /FIELD_NAMES\[F_COUNT\]\s*=\s*\{([^;]*)\};/.exec(source)![1];
    expect([...names.matchAll(/NAME\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(NAMES);
    expect(fieldEnum.length).toBe(NAMES.length);
  });

  test("its required fields are the table's", () => {
    const required = /#define REQUIRED\s*\(((?:[^\n]*\\\n)*[^\n]*)/.exec(source)![1];
    const indexes = [...required.matchAll(/1u << (F_\w+)/g)].map((m) => fieldEnum.indexOf(m[1]));
    expect(indexes.map((i) => NAMES[i]).sort()).toEqual(
      FIELDS.filter((field) => field.required)
        .map((field) => field.name)
        .sort(),
    );
  });

  const built = buildNativeEncoder();
  const native: NativeEncoder | null = built === null ? loadNativeEncoder() : null;
  const prefix = new TextEncoder().encode(spoolLinePrefix("acc_table", RECEIVED_AT, BATCH));
  const encodeNatively = (envelope: unknown) =>
    native!.encode(new TextEncoder().encode(JSON.stringify({ envelopes: [envelope] })), prefix, 50);

  test.skipIf(built !== null)("writes the spool line of an envelope with every field, as JavaScript does", () => {
    const encoded = encodeNatively(FULL);
    expect(encoded === null ? "declined the table's envelope" : "took it").toBe("took it");
    const line = new TextDecoder().decode(encoded!.lines).split("\t");
    const expected = new TextDecoder().decode(encodeSpoolBatch("acc_table", RECEIVED_AT, BATCH, [FULL])).split("\t");
    expect(line.length).toBe(SPOOL_COLUMNS.length);
    for (const [i, column] of SPOOL_COLUMNS.entries())
      expect(`${column}: ${line[i]}`).toBe(`${column}: ${expected[i]}`);
  });

  test.skipIf(built !== null)("takes exactly what the table allows, at and past every limit of every field", () => {
    const disagreements: string[] = [];
    let taken = 0;
    for (const field of FIELDS)
      for (const value of boundaryValues(field)) {
        const envelope: Record<string, unknown> = { ...FULL };
        if (value === ABSENT) delete envelope[field.name];
        else envelope[field.name] = value;
        if (envelope.kind === "send") envelope.preflightError = null; // the rule across fields
        const javascript = fastEnvelope(envelope);
        const encoded = encodeNatively(envelope);
        const shown = value === ABSENT ? "absent" : JSON.stringify(value).slice(0, 40);
        if ((javascript === null) !== (encoded === null))
          disagreements.push(
            `${field.name} = ${shown}: table ${javascript ? "allows" : "refuses"} it, encode.c ${encoded ? "takes" : "declines"} it`,
          );
        else if (javascript !== null) {
          taken++;
          const lines = new TextDecoder().decode(encodeSpoolBatch("acc_table", RECEIVED_AT, BATCH, [javascript]));
          if (new TextDecoder().decode(encoded!.lines) !== lines)
            disagreements.push(`${field.name} = ${shown}: other bytes`);
        }
      }
    expect(disagreements).toEqual([]);
    expect(taken).toBeGreaterThan(FIELDS.length);
  });
});

describe("pages.c agrees with the table", () => {
  const source = readFileSync(join(ROOT, "src/lake/native/pages.c"), "utf8");
  const define = (name: string) => Number(new RegExp(`#define ${name} (\\d+)`).exec(source)![1]);

  test("its spool field count and the positions it reads itself", () => {
    expect(define("SPOOL_FIELDS")).toBe(SPOOL_COLUMNS.length);
    expect(define("FIELD_ACCOUNT")).toBe(SPOOL_COLUMNS.indexOf("account_id"));
    expect(define("FIELD_RECEIVED_AT")).toBe(SPOOL_COLUMNS.indexOf("received_at"));
    expect(define("FIELD_PROGRAM")).toBe(SPOOL_COLUMNS.indexOf("program"));
  });

  const built = buildNativeFlushWriter();
  const writer: NativeFlushWriter | null = built === null ? loadNativeFlushWriter() : null;

  describe.skipIf(writer === null)("the native flush writer", () => {
    let ctx: Awaited<ReturnType<typeof testContext>>;
    let work: string;
    beforeAll(async () => {
      ctx = await testContext();
      work = mkdtempSync(join(tmpdir(), "txray-envelope-fields-"));
    }, 30_000);
    afterAll(() => {
      ctx?.dispose();
      rmSync(work, { recursive: true, force: true });
    });

    test("writes every field of the table's envelope into its lake column, value for value", async () => {
      const file = join(work, `${newSegmentName("node1", RECEIVED_AT)}.sealed`);
      writeFileSync(file, encodeSpoolBatch("acc_table", RECEIVED_AT, BATCH, [FULL]));
      const written = await writer!.write([{ file, name: segmentNameOf(file) }], join(work, "staged"), "b1");
      expect(written === null ? "declined the table's envelope" : "wrote it").toBe("wrote it");
      const rows = await ctx.duck.all<Record<string, unknown>>(
        `SELECT * FROM read_parquet('${join(work, "staged", "**", "*.parquet")}', hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})`,
      );
      expect(rows.length).toBe(1);
      for (const field of FIELDS)
        expect({ field: field.name, lake: rows[0][lakeColumn(field)] }).toEqual({
          field: field.name,
          lake: field.example,
        });
    });

    test("reads lines written before the table's last fields, down to the oldest, with those fields null", async () => {
      const line = new TextDecoder().decode(encodeSpoolBatch("acc_table", RECEIVED_AT, BATCH, [FULL])).split("\n")[0];
      const columns = line.split("\t");
      const shortest = OLDEST_SPOOL_LINE_COLUMNS;
      const file = join(work, `${newSegmentName("node2", RECEIVED_AT)}.sealed`);
      writeFileSync(
        file,
        Array.from({ length: SPOOL_COLUMNS.length - shortest }, (_, i) =>
          [...columns.slice(0, 2), `${BATCH}-short${i}`, ...columns.slice(3, shortest + i)].join("\t"),
        )
          .map((written) => `${written}\n`)
          .join(""),
      );
      const written = await writer!.write([{ file, name: segmentNameOf(file) }], join(work, "short"), "b2");
      expect(written === null ? "declined the older lines" : "wrote them").toBe("wrote them");
      const rows = await ctx.duck.all<Record<string, unknown>>(
        `SELECT * FROM read_parquet('${join(work, "short", "**", "*.parquet")}', hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}) ORDER BY attempt_id`,
      );
      expect(rows.length).toBe(SPOOL_COLUMNS.length - shortest);
      rows.forEach((row, i) => {
        for (const [at, column] of SPOOL_COLUMNS.entries()) {
          if (at < 4) continue;
          const field = FIELDS.find((f) => lakeColumn(f) === column)!;
          expect({ column, lake: row[column] }).toEqual({ column, lake: at < shortest + i ? field.example : null });
        }
      });
    });
  });
});

const ABSENT = Symbol("absent");

/** Values at and just past each of a field's limits, valid or not, and null or absence where they apply. */
function boundaryValues(field: EnvelopeField): unknown[] {
  const values: unknown[] = [field.example, null, ABSENT];
  switch (field.kind) {
    case "text":
      values.push("x".repeat(field.maxLength), "x".repeat(field.maxLength + 1), "", 7);
      break;
    case "integer":
      values.push(field.min, field.max, field.min - 1, field.max + 1, "1", true);
      break;
    case "boolean":
      values.push(true, false, "true", 0);
      break;
    case "enum":
      values.push(...field.values, `${field.values[0]}x`, "");
      break;
    case "hex":
      for (const digits of [field.digits.min, field.digits.max, field.digits.min - 1, field.digits.max + 1])
        if (digits >= 0) values.push("a".repeat(digits), "A".repeat(digits), "0g".repeat(digits).slice(0, digits));
      values.push("ab".repeat(field.digits.max / 2 + 1));
      break;
    case "base58":
      values.push(
        "1".repeat(field.maxLength + 1),
        `${field.example}1`,
        String(field.example).slice(1),
        "0".repeat(field.maxLength),
        "",
      );
      break;
    case "base58-or-hex":
      for (const digits of [field.hexDigits.min, field.hexDigits.max, field.hexDigits.min - 1, field.hexDigits.max + 1])
        values.push("f".repeat(digits), "F".repeat(digits));
      values.push(`${field.example}1`, "");
      break;
    case "lines":
      values.push(
        Array.from({ length: field.maxLines }, () => "l"),
        Array.from({ length: field.maxLines + 1 }, () => "l"),
        ["x".repeat(field.maxLineLength)],
        ["x".repeat(field.maxLineLength + 1)],
        [],
        [1],
        "[]",
      );
      break;
  }
  return values;
}
