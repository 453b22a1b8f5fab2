// Which Parquet parts hold a column with a value in every row. A lake version can add a column
// (resolutions.payer_bucket in version 4): files written before have none, and a compacted part
// that merged old and new files has it null in the old rows. A reader that filters on the column
// (a wallet page) filters only the parts where it is complete and reads the others as before.
// Read from the parts' footers (row groups' null counts); a part is never rewritten under its name,
// so what a name answered once is kept for the process's life (bounded). Also whether any part of
// a list has a column at all (compaction's order, the tables job's compute-unit weights).

import { type Duck, sqlString } from "./duckdb";

const MAX_REMEMBERED = 200_000;
/** Footers read per query (a long window of a busy program lists thousands of parts). */
const FILES_PER_QUERY = 500;
const remembered = new Map<string, boolean>();

/** The files of `files` whose `column` exists and has no null in any row group. */
export async function filesWithCompleteColumn(
  duck: Pick<Duck, "all">,
  files: string[],
  column: string,
): Promise<Set<string>> {
  const key = (file: string) => `${column}\u0000${file}`;
  const unknown = files.filter((file) => !remembered.has(key(file)));
  const complete = new Set<string>();
  for (let at = 0; at < unknown.length; at += FILES_PER_QUERY) {
    const rows = await duck.all<{ file_name: string; complete: boolean }>(
      `SELECT file_name, bool_and(coalesce(stats_null_count, 1) = 0) AS complete
       FROM parquet_metadata([${unknown
         .slice(at, at + FILES_PER_QUERY)
         .map(sqlString)
         .join(", ")}])
       WHERE path_in_schema = ${sqlString(column)}
       GROUP BY file_name`,
    );
    for (const row of rows) if (row.complete) complete.add(row.file_name);
  }
  if (remembered.size + unknown.length > MAX_REMEMBERED) remembered.clear();
  for (const file of unknown) remembered.set(key(file), complete.has(file));
  return new Set(files.filter((file) => remembered.get(key(file))));
}

/**
 * Whether any of `files` has `column` at all (footers only): a merge of files that all lack it must
 * not name it, and the tables job weights compute units by `sample_weight` only where files have it.
 */
export async function anyFileHasColumn(duck: Pick<Duck, "all">, files: string[], column: string): Promise<boolean> {
  for (let at = 0; at < files.length; at += FILES_PER_QUERY) {
    const slice = files.slice(at, at + FILES_PER_QUERY);
    const [row] = await duck.all<{ n: number }>(
      `SELECT count(*) AS n FROM parquet_schema([${slice.map(sqlString).join(", ")}]) WHERE name = ${sqlString(column)}`,
    );
    if (Number(row?.n ?? 0) > 0) return true;
  }
  return false;
}
