// Where things live under TXRAY_DATA_DIR. Every path built from user input goes through here, and
// only after the input was validated (a program id is base58, a node id is [a-z0-9-]).

import { join } from "node:path";
import { isBase58Address } from "../shared/base58";
import type { DatasetName } from "./schema";

export type DataPaths = ReturnType<typeof dataPaths>;

export function dataPaths(dataDir: string) {
  const lake = join(dataDir, "lake");
  return {
    root: dataDir,
    lake,
    controlDb: join(dataDir, "control.sqlite"),
    spool: (nodeId: string) => join(dataDir, "spool", safeSegment(nodeId, /^[a-z0-9][a-z0-9-]{0,31}$/)),
    spoolRoot: join(dataDir, "spool"),
    staging: join(dataDir, "staging"),
    tables: join(dataDir, "tables"),
    idl: join(dataDir, "idl"),
    cache: join(dataDir, "cache"),
    /** The resolver's checkpoint of its open attempts (src/chain/resolve/checkpoint.ts). */
    resolver: join(dataDir, "resolver"),
    /** The signature index why and diagnose-drop read (src/signature-index). */
    signatureIndex: join(dataDir, "index", "signatures"),
    /** Where DuckDB spills what does not fit under DUCKDB_MEMORY_LIMIT. */
    duckTemp: join(dataDir, "tmp", "duckdb"),
    dataset: (name: DatasetName) => join(lake, name),
    /** Glob over one dataset's Parquet parts, for DuckDB's read_parquet. */
    datasetGlob: (name: DatasetName) => join(lake, name, "**", "*.parquet"),
    partition: (name: DatasetName, program: string, day?: string) => {
      if (!isBase58Address(program)) throw new Error(`not a program id: ${program}`);
      const parts = [lake, name, `program=${program}`];
      if (day !== undefined) parts.push(`day=${safeSegment(day, /^\d{4}-\d{2}-\d{2}$/)}`);
      return join(...parts);
    },
  };
}

function safeSegment(value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new Error(`unsafe path segment: ${JSON.stringify(value)}`);
  return value;
}

/** UTC calendar day of a Unix-ms time, as used by `day=` partitions. */
export function utcDay(unixMilliseconds: number): string {
  return new Date(unixMilliseconds).toISOString().slice(0, 10);
}
