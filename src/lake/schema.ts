// The lake's public contract: datasets, their Hive partitioning and every column with its DuckDB
// type. Data teams read these files directly (docs/lake.md renders this file); jobs build their SQL
// from it so a column is named in exactly one place. The envelope fields' columns come from the
// envelope's field table (src/shared/envelope-fields.ts). Bump LAKE_VERSION on any incompatible change.

import { ENVELOPE_FIELDS } from "../shared/envelope-fields";

export const LAKE_VERSION = 5;

/**
 * The type of a column holding an instant (version 5): a Parquet TIMESTAMP adjusted to UTC, which
 * DuckDB reads as TIMESTAMP WITH TIME ZONE and other readers as a time. Writers take such a column's
 * input as Unix milliseconds (BIGINT) and txray's own readers get Unix milliseconds back
 * (readLakeSql), so the numbers inside txray are those of version 4.
 */
export const INSTANT = "TIMESTAMPTZ";

export type Column = { name: string; type: string; doc: string };

/** The envelope fields' columns, in the table's order (src/shared/envelope-fields.ts); `program` is the partition. */
const envelopeFieldColumns: Column[] = ENVELOPE_FIELDS.flatMap(({ lake }) =>
  "partition" in lake ? [] : [{ name: lake.column, type: lake.type, doc: lake.doc }],
);

/** data/lake/envelopes/program=<base58>/day=<YYYY-MM-DD>/part-*.parquet — one row per accepted envelope. */
export const ENVELOPE_COLUMNS: Column[] = [
  {
    name: "attempt_id",
    type: "VARCHAR",
    doc: "Server-assigned id of the attempt (UUIDv7); unique, stable across re-flushes.",
  },
  { name: "account_id", type: "VARCHAR", doc: "Account whose key ingested the envelope." },
  { name: "received_at", type: INSTANT, doc: "Server receive time (UTC). `day` is its UTC date." },
  {
    name: "spool_segment",
    type: "VARCHAR",
    doc: "Spool segment the row came from (`<node>-<sequence>`); flush is idempotent per segment.",
  },
  ...envelopeFieldColumns,
];

/**
 * data/lake/resolutions/program=<base58>/day=<YYYY-MM-DD>/part-*.parquet — one row per resolved attempt (day = UTC date
 * of resolved_at). No signature since version 3: it is the envelope's (join on attempt_id); a second copy of 64 random
 * bytes was a third of a resolution row.
 */
export const RESOLUTION_COLUMNS: Column[] = [
  { name: "attempt_id", type: "VARCHAR", doc: "Joins envelopes.attempt_id." },
  { name: "account_id", type: "VARCHAR", doc: "Account of the attempt." },
  { name: "outcome", type: "VARCHAR", doc: "`landed`, `failed_onchain`, `dropped` or `preflight`." },
  { name: "resolved_at", type: INSTANT, doc: "When the outcome was decided (UTC)." },
  {
    name: "slot",
    type: "BIGINT",
    doc: "Slot the transaction landed in (landed, failed_onchain): from its signature status.",
  },
  {
    name: "block_time",
    type: INSTANT,
    doc: "Block time of that slot (UTC, second precision): `getBlockTime` of the slot, or the fetched transaction's.",
  },
  { name: "err", type: "VARCHAR", doc: "`meta.err` as JSON, or the preflight error's TransactionError as JSON." },
  {
    name: "instruction",
    type: "VARCHAR",
    doc: "Name of the targeted program's instruction: on a failure, that of its frame enclosing the failure (else the failing top-level instruction's); otherwise the main instruction's (landed outside the sample: named from `ix_prefix`).",
  },
  { name: "ix_path", type: "VARCHAR", doc: "Instruction path: `2` top-level index, `2.1` an inner instruction." },
  {
    name: "cpi_depth",
    type: "INTEGER",
    doc: "Invoke depth − 1 of the failing frame (null for transaction-level errors).",
  },
  { name: "err_code", type: "BIGINT", doc: "Custom program error code." },
  { name: "err_name", type: "VARCHAR", doc: "Error name (IDL, Anchor log, built-in table or error variant)." },
  { name: "failing_program", type: "VARCHAR", doc: "Innermost program whose frame failed." },
  { name: "failing_instruction", type: "VARCHAR", doc: "Instruction name of that innermost failing frame." },
  { name: "cu_used", type: "BIGINT", doc: "Compute units consumed (landed: only on sampled rows)." },
  {
    name: "cu_requested",
    type: "BIGINT",
    doc: "Compute-unit limit requested (SetComputeUnitLimit, else the runtime default; landed outside the sample: the envelope's `cu_limit`).",
  },
  { name: "compute_exceeded", type: "BOOLEAN", doc: "The failure was compute-budget exhaustion." },
  { name: "drop_class", type: "VARCHAR", doc: "Drop class (outcome = dropped)." },
  { name: "drop_confidence", type: "DOUBLE", doc: "Confidence of the drop class in [0,1]." },
  { name: "drop_evidence", type: "VARCHAR", doc: "JSON array of `{kind, detail, value}` rows that decided the class." },
  { name: "error_key", type: "VARCHAR", doc: "Normalised, value-free error key used in the fingerprint." },
  { name: "fingerprint", type: "VARCHAR", doc: "Issue fingerprint (`v1:` + 16 hex); null for landed." },
  {
    name: "log_messages",
    type: "VARCHAR[]",
    doc: "Program logs (failed_onchain: the transaction's; preflight: the simulation's; dropped: empty); null on landed rows.",
  },
  {
    name: "ix_prefix",
    type: "VARCHAR",
    doc: "First ≤ 8 data bytes (hex) of the targeted top-level instruction: the envelope's, else the fetched transaction's.",
  },
  {
    name: "sampled",
    type: "BOOLEAN",
    doc: "A landed success whose transaction was fetched because its attempt is in the success sample.",
  },
  {
    name: "sample_weight",
    type: "DOUBLE",
    doc: "Attempts this row's transaction-derived figures stand for: 1 / sample rate (sampled), 1 (failed_onchain), else null.",
  },
  {
    name: "payer_bucket",
    type: "USMALLINT",
    doc: "The envelope's `payer` hashed to 16 bits, `(md5_number_lower(payer) >> 48)::USMALLINT` (version 4); compacted parts are sorted by it. Null in files of versions 1–3.",
  },
];

/**
 * A payer's bucket (RESOLUTION_COLUMNS.payer_bucket) as a DuckDB expression over a payer expression.
 * Compaction sorts resolutions by it, so a wallet page (queries/wallet-history.ts) reads only the row
 * groups that can hold its payer's resolutions instead of every resolution of its window.
 */
export const payerBucketSql = (payer: string) => `(md5_number_lower(${payer}) >> 48)::USMALLINT`;

/**
 * data/lake/deploys/program=<base58>/day=<YYYY-MM-DD>/part-<slot>.parquet — one row per observed deploy (day = UTC date
 * of detected_at, since version 5: every dataset has the same two partition levels).
 */
export const DEPLOY_COLUMNS: Column[] = [
  { name: "slot", type: "BIGINT", doc: "ProgramData's last-modified slot." },
  {
    name: "deployed_at",
    type: INSTANT,
    doc: "Block time of that slot (UTC; null when the chain has no time for it).",
  },
  { name: "detected_at", type: INSTANT, doc: "When txray first saw this slot (UTC)." },
  { name: "authority", type: "VARCHAR", doc: "Upgrade authority at detection, null if immutable." },
];

export const DATASETS = {
  envelopes: { columns: ENVELOPE_COLUMNS, partitions: ["program", "day"] },
  resolutions: { columns: RESOLUTION_COLUMNS, partitions: ["program", "day"] },
  deploys: { columns: DEPLOY_COLUMNS, partitions: ["program", "day"] },
} as const;

export type DatasetName = keyof typeof DATASETS;

/** `{a:'VARCHAR', b:'BIGINT'}`: the `columns=` argument of DuckDB's read_json, in writers' input types. */
export function duckdbColumnsStruct(columns: Column[]): string {
  return `{${columns.map((c) => `${c.name}: '${inputType(c)}'`).join(", ")}}`;
}

/** The type a writer takes a column's values in: an instant as Unix milliseconds. */
export const inputType = (column: Column) => (column.type === INSTANT ? "BIGINT" : column.type);

/**
 * Unix milliseconds (a BIGINT expression) as the instant the lake stores. Exact and independent of
 * DuckDB's TimeZone setting (a cast from TIMESTAMP to TIMESTAMPTZ would read it in that zone).
 */
export const instantSql = (milliseconds: string) =>
  `(TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_milliseconds(${milliseconds}))`;

/** A column's stored value from its input expression (instantSql for an instant, else the input). */
export const storedSql = (column: Column, input: string) => (column.type === INSTANT ? instantSql(input) : input);

/** The instant columns of a dataset. */
export const instantColumns = (dataset: DatasetName) =>
  DATASETS[dataset].columns.filter((c) => c.type === INSTANT).map((c) => c.name);

/** Rows of a dataset's columns (`selectSql`, instants in Unix ms) with the instants as the lake stores them. */
export function storedRowsSql(dataset: DatasetName, selectSql: string): string {
  const stored = instantColumns(dataset).map((name) => `${instantSql(name)} AS ${name}`);
  return `SELECT * REPLACE (${stored.join(", ")}) FROM (${selectSql})`;
}

/**
 * A dataset's Parquet parts as txray reads them: read_parquet(`source`, `options`) with every instant
 * column turned back into Unix milliseconds (BIGINT), as every version before 5 stored it. Every read
 * of the lake inside txray goes through here, so the numbers it computes with do not depend on the
 * stored type. `source` is SQL: a quoted glob or a list of quoted files.
 */
export function readLakeSql(dataset: DatasetName, source: string, options = ""): string {
  // COLUMNS, not REPLACE: files without some instant column (read with union_by_name, or a test's
  // partial part) still read; each instant keeps its name, after the other columns.
  const instants = `[${instantColumns(dataset)
    .map((name) => `'${name}'`)
    .join(", ")}]`;
  return `(SELECT COLUMNS(c -> NOT list_contains(${instants}, c)), epoch_ms(COLUMNS(c -> list_contains(${instants}, c)))
    FROM read_parquet(${source}${options ? `, ${options}` : ""}))`;
}
