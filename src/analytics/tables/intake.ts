// What arrived in the lake since the last refresh: the parts of envelopes and resolutions the state
// has not taken in yet (state.ts `lake_parts`), grouped into chunks of bounded size. The lake is
// listed under the lake lease (flush, compaction and retention change it under that lease), so a
// listing never sees half of a publish. Resolutions are listed before envelopes: a resolution is
// written after its envelope, so every resolution seen has its envelope in the listing too.
//
// Parts are immutable; compaction replaces a partition's small parts by one. A replaced partition
// whose new parts hold exactly the rows of the parts taken in needs nothing; otherwise its new
// parts are read again, keeping the envelopes of spool segments not taken in yet and the
// resolutions of attempts still waiting for one (applying those is idempotent).

import { statSync } from "node:fs";
import { basename } from "node:path";
import { isCompactedPart } from "../../lake/compact";
import { sqlString } from "../../lake/duckdb";
import { listPartitions } from "../../lake/partitions";
import type { DataPaths } from "../../lake/paths";
import { batchOfPart } from "../../lake/publish";
import { readLakeSql } from "../../lake/schema";
import type { StateDb } from "./state";

export type Dataset = "envelopes" | "resolutions";
/** `publishedMs`: the file's modification time (a part is written, then renamed into place: when it was published). */
export type LakePart = {
  dataset: Dataset;
  program: string;
  day: string;
  name: string;
  path: string;
  bytes: number;
  publishedMs: number;
};
export type TakenPart = {
  dataset: Dataset;
  program: string;
  day: string;
  name: string;
  path: string;
  bytes: number;
  rows: number;
  segments: string[];
};

/** Files to read and how: all rows, or (a replaced partition) only what was not taken in. */
export type ReadPlan = { dataset: Dataset; files: string[]; rows: number; skipSegments: string[] | null };

/**
 * One part to read. Parts of a `group` are taken in by the same refresh (limitIntake never splits
 * one): a publish batch (a flush's or a resolve run's parts, `part-<batch>-<i>.parquet`), so a
 * payer's sends flushed together are merged into its units at once, or a replaced partition's new parts.
 */
type ReadItem = { part: LakePart; rows: number; skipSegments: string[] | null; group: string };

/** The publish batch of a part (a part of another name is a group of its own). */
const batchOf = (part: LakePart) => `${part.dataset}/${batchOfPart(part.name) ?? part.name}`;

export type IntakePlan = {
  /** What this refresh reads, in chunks: resolutions first, then envelopes (chunked). */
  reads: ReadPlan[];
  /** The same parts one by one in publication order (what limitIntake takes a prefix of). */
  items: ReadItem[];
  chunkRows: number;
  /** The state's parts after this refresh (replacing those of the listed partitions). */
  parts: LakePart[];
  /** Partitions that left the lake (retention). */
  gone: { dataset: Dataset; program: string; day: string }[];
  /**
   * The parts the state holds of each replaced partition read (what it stays recorded as when limitIntake defers it).
   */
  takenOfReplaced: Map<string, LakePart[]>;
  /** Rows of the files read (and of replaced partitions' new parts), from their footers. */
  rows: Map<string, number>;
};

/** Every part of envelopes and resolutions, resolutions first. */
export function listLakeParts(paths: DataPaths): LakePart[] {
  const out: LakePart[] = [];
  for (const dataset of ["resolutions", "envelopes"] as Dataset[]) {
    for (const [program, byDay] of listPartitions(paths.dataset(dataset))) {
      for (const [day, files] of byDay) {
        for (const path of files) {
          let stat: { size: number; mtimeMs: number };
          try {
            stat = statSync(path);
          } catch {
            continue; // removed meanwhile (listing is under the lake lease, so only by something outside txray)
          }
          out.push({ dataset, program, day, name: basename(path), path, bytes: stat.size, publishedMs: stat.mtimeMs });
        }
      }
    }
  }
  return out;
}

const partitionKey = (p: { dataset: string; program: string; day: string }) => `${p.dataset}/${p.program}/${p.day}`;

/** Compares the listing with what the state took in; `rowsOf` counts rows of files (Parquet footers). */
export async function planIntake(
  listed: LakePart[],
  taken: TakenPart[],
  rowsOf: (files: string[]) => Promise<Map<string, number>>,
  chunkRows: number,
): Promise<IntakePlan> {
  return intakePlanOf(listed, taken, await rowsOf(partsToCount(listed, taken)), chunkRows);
}

/** The listed files whose rows an intake plan needs: every part the state does not hold by that name and size. */
export function partsToCount(listed: LakePart[], taken: TakenPart[]): string[] {
  const held = new Set(taken.map((p) => `${partitionKey(p)}/${p.name}\t${p.bytes}`));
  return listed.filter((p) => !held.has(`${partitionKey(p)}/${p.name}\t${p.bytes}`)).map((p) => p.path);
}

/** Partitions the state took in that are no longer in the lake (retention removed them). */
export function gonePartitions(
  listed: LakePart[],
  taken: TakenPart[],
): { dataset: Dataset; program: string; day: string }[] {
  const listedPartitions = new Set(listed.map(partitionKey));
  return [...new Set(taken.map(partitionKey))]
    .filter((key) => !listedPartitions.has(key))
    .map((key) => {
      const [dataset, program, day] = key.split("/");
      return { dataset: dataset as Dataset, program, day };
    });
}

/** Why a partition's current parts do not hold exactly what the state took in of it. */
export type LakeDisagreement =
  | "merged-with-parts-not-taken-in" // compaction merged parts the state took in with parts it had not
  | "parts-missing"; // parts the state took in are gone, and what replaced them holds fewer rows

/**
 * The lake's current parts holding what the state took in of one partition. Compaction retires the
 * names the state recorded, so a read of what the state holds (a day read back for hour units or
 * edge rows) goes by these, never by the recorded names.
 */
export type TakenInLake = {
  dataset: Dataset;
  program: string;
  day: string;
  files: string[];
  /**
   * Null: the files hold exactly the rows the state took in. Otherwise they hold others too (or fewer), and a
   * read keeps of them what the state holds: envelopes of `segments`, resolutions of attempts it is not waiting for.
   */
  disagreement: LakeDisagreement | null;
  /** Envelopes: the spool segments of the parts the state took in. */
  segments: string[];
};

/**
 * Maps the state's record of each partition (`taken`) onto the listing: parts still there by name
 * and size, and the compacted parts that replaced the others; `rows`: footer rows of the listed
 * parts the state does not hold by name and size (partsToCount). Partitions gone from the lake are
 * left out (retention: the plan forgets or rebuilds them). No I/O.
 */
export function takenInLake(listed: LakePart[], taken: TakenPart[], rows: Map<string, number>): TakenInLake[] {
  const listedByPartition = new Map<string, LakePart[]>();
  for (const part of listed)
    listedByPartition.set(partitionKey(part), [...(listedByPartition.get(partitionKey(part)) ?? []), part]);
  const takenByPartition = new Map<string, TakenPart[]>();
  for (const part of taken)
    takenByPartition.set(partitionKey(part), [...(takenByPartition.get(partitionKey(part)) ?? []), part]);
  const out: TakenInLake[] = [];
  for (const [key, held] of takenByPartition) {
    const current = listedByPartition.get(key);
    if (!current) continue;
    const { dataset, program, day } = held[0];
    const heldNames = new Map(held.map((p) => [p.name, p.bytes]));
    const present = current.filter((p) => heldNames.get(p.name) === p.bytes);
    const removed = held.filter((p) => !present.some((q) => q.name === p.name));
    const segments = [...new Set(held.flatMap((p) => p.segments))];
    if (removed.length === 0) {
      out.push({ dataset, program, day, files: present.map((p) => p.path), disagreement: null, segments });
      continue;
    }
    // Compacted parts the state does not hold replaced the removed ones (compaction merges only
    // parts taken in, unless the tables job's mark is over an hour old); other new parts are arrivals.
    const replacing = current.filter((p) => isCompactedPart(p.name) && heldNames.get(p.name) !== p.bytes);
    const removedRows = removed.reduce((n, p) => n + p.rows, 0);
    const replacingRows = replacing.reduce((n, p) => n + (rows.get(p.path) ?? 0), 0);
    const disagreement: LakeDisagreement | null =
      replacingRows === removedRows
        ? null
        : replacingRows > removedRows
          ? "merged-with-parts-not-taken-in"
          : "parts-missing";
    out.push({ dataset, program, day, files: [...present, ...replacing].map((p) => p.path), disagreement, segments });
  }
  return out;
}

/** planIntake with the rows of `partsToCount`'s files known (no I/O). */
export function intakePlanOf(
  listed: LakePart[],
  taken: TakenPart[],
  rows: Map<string, number>,
  chunkRows: number,
): IntakePlan {
  const takenByPartition = new Map<string, TakenPart[]>();
  for (const part of taken)
    takenByPartition.set(partitionKey(part), [...(takenByPartition.get(partitionKey(part)) ?? []), part]);
  const listedByPartition = new Map<string, LakePart[]>();
  for (const part of listed)
    listedByPartition.set(partitionKey(part), [...(listedByPartition.get(partitionKey(part)) ?? []), part]);

  const fresh: LakePart[] = [];
  const replacedPartitions: { parts: LakePart[]; skipSegments: string[] }[] = [];
  for (const [key, parts] of listedByPartition) {
    const before = new Map((takenByPartition.get(key) ?? []).map((p) => [p.name, p]));
    const added = parts.filter((p) => before.get(p.name)?.bytes !== p.bytes);
    const removed = [...before.values()].filter((p) => !parts.some((q) => q.name === p.name && q.bytes === p.bytes));
    if (removed.length === 0) {
      fresh.push(...added);
      continue;
    }
    // Compaction's parts replace the removed ones; any other new part is new data, as in a
    // partition nothing replaced (reading the whole partition again, compacted part included, would
    // repeat that work after every compaction of a partition that keeps receiving parts).
    const compacted = added.filter((p) => isCompactedPart(p.name));
    fresh.push(...added.filter((p) => !isCompactedPart(p.name)));
    if (compacted.length > 0)
      replacedPartitions.push({
        parts: compacted,
        skipSegments: [...new Set([...before.values()].flatMap((p) => p.segments))],
      });
  }
  const gone = gonePartitions(listed, taken);

  // A replaced partition whose compacted parts hold as many rows as the parts they replaced has nothing new.
  const takenOfReplaced = new Map<string, LakePart[]>();
  const items: ReadItem[] = fresh.map((part) => ({
    part,
    rows: rows.get(part.path) ?? 0,
    skipSegments: null,
    group: batchOf(part),
  }));
  for (const partition of replacedPartitions) {
    const key = partitionKey(partition.parts[0]);
    const takenRows = (takenByPartition.get(key) ?? [])
      .filter((p) => !listedByPartition.get(key)!.some((q) => q.name === p.name && q.bytes === p.bytes))
      .reduce((n, p) => n + p.rows, 0);
    const addedRows = partition.parts.reduce((n, p) => n + (rows.get(p.path) ?? 0), 0);
    if (addedRows === takenRows) continue;
    takenOfReplaced.set(
      key,
      (takenByPartition.get(key) ?? []).map(({ dataset, program, day, name, path, bytes }) => ({
        dataset,
        program,
        day,
        name,
        path,
        bytes,
        publishedMs: 0,
      })),
    );
    for (const part of partition.parts)
      items.push({
        part,
        rows: rows.get(part.path) ?? 0,
        skipSegments: part.dataset === "envelopes" ? partition.skipSegments : null,
        group: key,
      });
  }
  // A group stays together, at the place of the first of its parts (parts are written one by one).
  const groupPublished = new Map<string, number>();
  for (const { part, group } of items)
    groupPublished.set(group, Math.min(groupPublished.get(group) ?? Infinity, part.publishedMs));
  // Publication order (then by partition and name): a refresh that takes in only the first parts
  // (limitIntake) takes the older sends of every payer and program, and the resolutions published
  // meanwhile, not one program's or one dataset's. A resolution may so come before its envelope
  // (or a compacted partition's newer time put an envelope after its resolution): the state holds
  // it until the envelope comes (apply.ts, early_resolutions).
  const order = (item: ReadItem) => `${item.group}//${partitionKey(item.part)}/${item.part.name}`;
  items.sort(
    (a, b) =>
      groupPublished.get(a.group)! - groupPublished.get(b.group)! ||
      (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0),
  );
  return { reads: chunked(items, chunkRows), items, chunkRows, parts: listed, gone, takenOfReplaced, rows };
}

/**
 * Chunks of at most `chunkRows` rows (a single larger part is a chunk of its own): resolutions
 * first, then envelopes, so that an attempt that arrived and resolved since the last refresh is
 * taken in once, resolved (its resolution waits in early_resolutions for its envelope), instead of
 * pending and then resolved. A replaced partition's envelope parts are chunks of their own (read
 * minus the segments taken before).
 */
function chunked(items: ReadItem[], chunkRows: number): ReadPlan[] {
  const reads: ReadPlan[] = [];
  for (const dataset of ["resolutions", "envelopes"] as Dataset[]) {
    for (const { part, rows: n, skipSegments } of items) {
      if (part.dataset !== dataset) continue;
      const last = reads[reads.length - 1];
      if (
        last &&
        last.dataset === dataset &&
        last.skipSegments === null &&
        skipSegments === null &&
        last.rows + n <= chunkRows
      ) {
        last.files.push(part.path);
        last.rows += n;
      } else reads.push({ dataset, files: [part.path], rows: n, skipSegments });
    }
  }
  return reads;
}

/**
 * The first parts of a plan, in publication order, up to about `maxRows` rows (at least one part):
 * what one refresh takes in when a burst or a job that fell behind left more than its transaction
 * holds under the memory ceiling. Any prefix is consistent: a resolution taken in before its
 * envelope waits for it in the state (apply.ts). A group (publish batch, replaced partition) is never split.
 * `parts` then records as taken only what was read: a fresh partition without its deferred parts,
 * a replaced one with a deferred read as it was (`takenOfReplaced`: its new parts are read again
 * next time; resolutions apply idempotently).
 */
export function limitIntake(
  plan: IntakePlan,
  maxRows: number,
): {
  plan: IntakePlan;
  deferredRows: number /** The earliest publish time of the parts left for later (every part published before it is taken in). */;
  deferredFrom?: number;
} {
  let keep = 0;
  let rows = 0;
  while (keep < plan.items.length && (keep === 0 || rows + plan.items[keep].rows <= maxRows))
    rows += plan.items[keep++].rows;
  // Whole groups only: back to the start of a group the limit cut (unless it is the first one, then to its end).
  const cut = (at: number) => at > 0 && at < plan.items.length && plan.items[at].group === plan.items[at - 1].group;
  while (cut(keep) && plan.items[keep].group !== plan.items[0].group) rows -= plan.items[--keep].rows;
  while (cut(keep)) rows += plan.items[keep++].rows;
  if (keep === plan.items.length) return { plan, deferredRows: 0 };

  const deferred = plan.items.slice(keep);
  const deferredFiles = new Set(deferred.map((item) => item.part.path));
  const keptAsTaken = new Set(deferred.map((item) => item.group).filter((key) => plan.takenOfReplaced.has(key)));
  // A deferred replaced partition stays recorded as it was, plus the new parts of it this refresh read.
  const read = new Set(plan.items.slice(0, keep).map((item) => item.part.path));
  const parts: LakePart[] = [
    ...plan.parts.filter(
      (part) => !deferredFiles.has(part.path) && (!keptAsTaken.has(partitionKey(part)) || read.has(part.path)),
    ),
    ...[...keptAsTaken].flatMap((key) => plan.takenOfReplaced.get(key)!),
  ];
  const items = plan.items.slice(0, keep);
  return {
    plan: { ...plan, items, reads: chunked(items, plan.chunkRows), parts },
    deferredRows: deferred.reduce((n, item) => n + item.rows, 0),
    deferredFrom: Math.min(...deferred.map((item) => item.part.publishedMs)),
  };
}

/** Row counts of Parquet files from their footers (no data read). */
export async function parquetRows(state: StateDb, files: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let at = 0; at < files.length; at += 500) {
    const slice = files.slice(at, at + 500);
    const rows = await state.all<{ file_name: string; num_rows: number }>(
      `SELECT file_name, num_rows FROM parquet_file_metadata([${slice.map(sqlString).join(", ")}])`,
    );
    for (const row of rows) out.set(row.file_name, Number(row.num_rows));
  }
  return out;
}

/** The newest received_at in envelope files, from their footers' statistics (Unix ms, or a timestamp since lake version 5; null when none). */
export async function newestReceivedAt(state: StateDb, files: string[]): Promise<number | null> {
  let newest: number | null = null;
  for (let at = 0; at < files.length; at += 500) {
    const slice = files.slice(at, at + 500);
    const [row] = await state.all<{ newest: number | null }>(
      `SELECT max(coalesce(TRY_CAST(stats_max AS BIGINT), epoch_ms(TRY_CAST(stats_max AS TIMESTAMPTZ)))) AS newest FROM parquet_metadata([${slice.map(sqlString).join(", ")}]) WHERE path_in_schema = 'received_at'`,
    );
    if (row?.newest !== null && row?.newest !== undefined) newest = Math.max(newest ?? 0, Number(row.newest));
  }
  return newest;
}

const HIVE = "hive_partitioning = true, hive_types = {'program': 'VARCHAR', 'day': 'VARCHAR'}";

/**
 * A read of envelope files as a subquery with every column the tables job takes from them, those appended to the
 * contract after the first files were written (sent_slot) null where a file predates them: union_by_name fills them
 * in a list that mixes old and new files, the empty union in a list of old files only.
 */
export function envelopesReadSql(files: string[], options = HIVE): string {
  return `(SELECT * FROM ${readLakeSql("envelopes", `[${files.map(sqlString).join(", ")}]`, `${options}, union_by_name = true`)}
    UNION ALL BY NAME SELECT NULL::BIGINT AS sent_slot WHERE false)`;
}

/** Envelope rows of files as attempt rows (not resolved yet), into `target`. */
export function envelopeRowsSql(target: string, files: string[], skipSegments: string[] | null): string {
  const skip =
    skipSegments && skipSegments.length > 0
      ? `WHERE spool_segment NOT IN (${skipSegments.map(sqlString).join(", ")})`
      : "";
  return `CREATE OR REPLACE TEMP TABLE ${target} AS
    SELECT hash(attempt_id) AS attempt_key, program::VARCHAR AS program, account_id, received_at, sent_at, sig, payer, rpc_label, rpc_hash,
      wallet_adapter, kind, CASE WHEN kind = 'preflight' THEN 'preflight' END AS outcome, NULL::VARCHAR AS drop_class,
      NULL::VARCHAR AS instruction, NULL::BIGINT AS err_code, NULL::VARCHAR AS err_name, NULL::VARCHAR AS failing_program,
      NULL::VARCHAR AS fingerprint, NULL::BIGINT AS cu_used, NULL::BIGINT AS cu_requested, NULL::BOOLEAN AS compute_exceeded,
      NULL::BIGINT AS block_time, NULL::DOUBLE AS cu_weight, NULL::BIGINT AS resolved_at, sent_slot, NULL::BIGINT AS slot,
      spool_segment, filename
    FROM ${envelopesReadSql(files, `${HIVE}, filename = true`)} ${skip}`;
}

/**
 * Resolution rows of files, into `target`. `weighted`: the files have the success sample's sample_weight
 * (compute-unit figures weight each row by it; a row without it counts once when it has compute units).
 */
export function resolutionRowsSql(target: string, files: string[], weighted: boolean): string {
  const weight = `${weighted ? "coalesce(sample_weight, " : "("}CASE WHEN cu_used IS NOT NULL THEN 1.0 END)`;
  // At most one resolution per attempt (docs/lake.md); DISTINCT ON guards the one chunk against a repeat.
  return `CREATE OR REPLACE TEMP TABLE ${target} AS
    SELECT DISTINCT ON (attempt_key) * FROM (
      SELECT hash(attempt_id) AS attempt_key, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint,
        cu_used, cu_requested, compute_exceeded, block_time, ${weight}::DOUBLE AS cu_weight, resolved_at, slot
      FROM ${readLakeSql("resolutions", `[${files.map(sqlString).join(", ")}]`, `${HIVE}, union_by_name = true`)})`;
}

/**
 * The resolution files holding a resolution of an attempt in `attempts` (a table with attempt_key); only attempt ids
 * are read.
 */
export async function filesResolving(state: StateDb, files: string[], attempts: string): Promise<string[]> {
  const out: string[] = [];
  for (let at = 0; at < files.length; at += 500) {
    const slice = files.slice(at, at + 500);
    const rows = await state.all<{ filename: string }>(
      `SELECT DISTINCT filename FROM read_parquet([${slice.map(sqlString).join(", ")}], filename = true, hive_partitioning = false)
       WHERE hash(attempt_id) IN (SELECT attempt_key FROM ${attempts})`,
    );
    out.push(...rows.map((row) => row.filename));
  }
  return out.sort();
}

/**
 * A full rebuild's day: the envelopes received that day joined with the resolutions stored that day
 * and the three after (most attempts resolve within minutes; later ones are applied afterwards
 * from every resolution part, against what is still unresolved), into `day_rows`.
 */
export function fullDayRowsSql(envelopeFiles: string[], resolutionFiles: string[], weighted: boolean): string {
  const weight = `${weighted ? "coalesce(sample_weight, " : "("}CASE WHEN cu_used IS NOT NULL THEN 1.0 END)`;
  const resolutions =
    resolutionFiles.length === 0
      ? `SELECT NULL::UBIGINT AS attempt_key, NULL::VARCHAR AS outcome, NULL::VARCHAR AS drop_class, NULL::VARCHAR AS instruction, NULL::BIGINT AS err_code,
        NULL::VARCHAR AS err_name, NULL::VARCHAR AS failing_program, NULL::VARCHAR AS fingerprint, NULL::BIGINT AS cu_used, NULL::BIGINT AS cu_requested,
        NULL::BOOLEAN AS compute_exceeded, NULL::BIGINT AS block_time, NULL::DOUBLE AS cu_weight, NULL::BIGINT AS resolved_at,
        NULL::BIGINT AS slot WHERE false`
      : `SELECT hash(attempt_id) AS attempt_key, outcome, drop_class, instruction, err_code, err_name, failing_program, fingerprint, cu_used,
        cu_requested, compute_exceeded, block_time, ${weight}::DOUBLE AS cu_weight, resolved_at, slot
      FROM ${readLakeSql("resolutions", `[${resolutionFiles.map(sqlString).join(", ")}]`, `${HIVE}, union_by_name = true`)}`;
  return `CREATE OR REPLACE TEMP TABLE day_rows AS
    WITH e AS (
      SELECT hash(attempt_id) AS attempt_key, program::VARCHAR AS program, account_id, received_at, sent_at, sig, payer, rpc_label, rpc_hash, wallet_adapter, kind,
        sent_slot
      FROM ${envelopesReadSql(envelopeFiles)}
    ), r AS (SELECT DISTINCT ON (attempt_key) * FROM (${resolutions}) WHERE attempt_key IN (SELECT attempt_key FROM e))
    SELECT e.attempt_key, e.program, e.account_id, e.received_at, e.sent_at, e.sig, e.payer, e.rpc_label, e.rpc_hash, e.wallet_adapter, e.kind,
      coalesce(r.outcome, CASE WHEN e.kind = 'preflight' THEN 'preflight' END) AS outcome, r.drop_class, r.instruction, r.err_code, r.err_name,
      r.failing_program, r.fingerprint, r.cu_used, r.cu_requested, r.compute_exceeded, r.block_time, r.cu_weight, r.resolved_at,
      e.sent_slot, r.slot
    FROM e LEFT JOIN r USING (attempt_key)`;
}

/** The spool segments each envelope file holds (a replaced partition's new parts are read minus these). */
export async function envelopeSegments(state: StateDb, files: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let at = 0; at < files.length; at += 500) {
    const slice = files.slice(at, at + 500);
    const rows = await state.all<{ filename: string; segments: string[] }>(
      `SELECT filename, list(DISTINCT spool_segment) AS segments FROM read_parquet([${slice.map(sqlString).join(", ")}], filename = true, hive_partitioning = false) GROUP BY filename`,
    );
    for (const row of rows)
      out.set(
        row.filename,
        row.segments.filter((s) => s !== null),
      );
  }
  return out;
}

/** Every deploy part file (data/lake/deploys/program=<p>/day=<d>/part-*.parquet). */
export function deployFiles(paths: DataPaths): string[] {
  return [...listPartitions(paths.dataset("deploys")).values()].flatMap((days) => [...days.values()].flat()).sort();
}
