// Parquet's file structure for the lake's flat schemas (https://parquet.apache.org/docs/file-format/):
// "PAR1", column chunks of v1 data pages (RLE levels, PLAIN values, zstd), the Thrift footer, its
// length, "PAR1". The compressed page bodies come from src/lake/native/pages.c; this module writes
// the page headers and the footer, shaped like DuckDB's own files: the same schema tree, converted types and
// statistics, so DuckDB reads either writer's files the same way.

import { type Column, INSTANT } from "../schema";
import { CompactWriter } from "./thrift";

const PhysicalType = { BOOLEAN: 0, INT32: 1, INT64: 2, BYTE_ARRAY: 6 } as const;
const ConvertedType = { UTF8: 0, LIST: 3, TIMESTAMP_MILLIS: 9, INT_32: 17, INT_64: 18 } as const;
/** LogicalType's union member TIMESTAMP, and TimeUnit's MILLIS. */
const LOGICAL_TIMESTAMP = 8;
const TIME_UNIT_MILLIS = 1;
const Repetition = { REQUIRED: 0, OPTIONAL: 1, REPEATED: 2 } as const;
const Encoding = { PLAIN: 0, RLE: 3 } as const;
const ZSTD = 6;
const DATA_PAGE = 0;

export const PARQUET_MAGIC = new TextEncoder().encode("PAR1");

/**
 * One leaf column of a lake dataset: every column is optional; VARCHAR[] is a three-level LIST; an
 * instant is an INT64 of Unix milliseconds with the TIMESTAMP logical type (MILLIS, adjusted to UTC).
 */
export type LeafColumn = { name: string; physical: keyof typeof PhysicalType; list: boolean; instant: boolean };

const PHYSICAL: Record<string, LeafColumn["physical"]> = {
  VARCHAR: "BYTE_ARRAY",
  "VARCHAR[]": "BYTE_ARRAY",
  BIGINT: "INT64",
  [INSTANT]: "INT64",
  INTEGER: "INT32",
  BOOLEAN: "BOOLEAN",
};

export function leafColumns(columns: readonly Column[]): LeafColumn[] {
  return columns.map((column) => {
    const physical = PHYSICAL[column.type];
    if (!physical) throw new Error(`parquet: no physical type for ${column.name} ${column.type}`);
    return { name: column.name, physical, list: column.type.endsWith("[]"), instant: column.type === INSTANT };
  });
}

/** A column chunk as written: where its first page starts, its sizes with the headers, its statistics. */
export type ChunkMeta = {
  offset: number;
  uncompressedBytes: number;
  compressedBytes: number;
  values: number;
  /** Leaf-level nulls: null values, and for a list its null and empty lists. */
  nulls: number;
  min: Uint8Array | null;
  max: Uint8Array | null;
};
export type RowGroupMeta = { rows: number; chunks: ChunkMeta[] };

/** The header of a v1 data page whose body is PLAIN values after RLE levels, zstd-compressed. */
export function dataPageHeader(uncompressedBytes: number, compressedBytes: number, values: number): Uint8Array {
  return new CompactWriter()
    .i32(1, DATA_PAGE)
    .i32(2, uncompressedBytes)
    .i32(3, compressedBytes)
    .struct(5, (page) => page.i32(1, values).i32(2, Encoding.PLAIN).i32(3, Encoding.RLE).i32(4, Encoding.RLE))
    .stop()
    .finish();
}

/** The footer (FileMetaData) of a file with these row groups. */
export function fileFooter(
  leaves: readonly LeafColumn[],
  rowGroups: readonly RowGroupMeta[],
  createdBy: string,
): Uint8Array {
  const writer = new CompactWriter();
  writer.i32(1, 1);
  writer.structs(2, schemaElements(leaves), (w, element) => {
    if (element.type !== undefined) w.i32(1, element.type);
    w.i32(3, element.repetition).binary(4, element.name);
    if (element.children !== undefined) w.i32(5, element.children);
    if (element.converted !== undefined) w.i32(6, element.converted);
    if (element.instant)
      w.struct(10, (logical) =>
        logical.struct(LOGICAL_TIMESTAMP, (timestamp) =>
          timestamp.bool(1, true).struct(2, (unit) => unit.struct(TIME_UNIT_MILLIS, () => {})),
        ),
      );
  });
  writer.i64(
    3,
    rowGroups.reduce((sum, group) => sum + group.rows, 0),
  );
  writer.structs(4, rowGroups, (w, group) => {
    w.structs(
      1,
      group.chunks.map((chunk, i) => ({ chunk, leaf: leaves[i] })),
      (c, { chunk, leaf }) => {
        c.i64(2, chunk.offset).struct(3, (m) => {
          m.i32(1, PhysicalType[leaf.physical])
            .i32s(2, [Encoding.PLAIN, Encoding.RLE])
            .binaries(3, leaf.list ? [leaf.name, "list", "element"] : [leaf.name])
            .i32(4, ZSTD)
            .i64(5, chunk.values)
            .i64(6, chunk.uncompressedBytes)
            .i64(7, chunk.compressedBytes)
            .i64(9, chunk.offset);
          // Statistics: the legacy max/min (fields 1, 2) that older readers (parquet-mr before 1.10,
          // Hive, older Spark) read, null_count, and max_value/min_value, with the same bounds in
          // both. As in DuckDB's files, an empty legacy bound is left out.
          m.struct(12, (s) => {
            if (chunk.max !== null && chunk.max.length > 0) s.binary(1, chunk.max);
            if (chunk.min !== null && chunk.min.length > 0) s.binary(2, chunk.min);
            s.i64(3, chunk.nulls);
            if (chunk.max !== null && chunk.min !== null) s.binary(5, chunk.max).binary(6, chunk.min);
          });
        });
      },
    );
    const uncompressed = group.chunks.reduce((sum, chunk) => sum + chunk.uncompressedBytes, 0);
    const compressed = group.chunks.reduce((sum, chunk) => sum + chunk.compressedBytes, 0);
    w.i64(2, uncompressed).i64(3, group.rows).i64(5, group.chunks[0].offset).i64(6, compressed);
  });
  writer.binary(6, createdBy);
  // TYPE_ORDER for every leaf: readers may then trust min_value/max_value.
  writer.structs(7, leaves, (w) => w.struct(1, () => {}));
  return writer.stop().finish();
}

type SchemaElement = {
  name: string;
  repetition: number;
  type?: number;
  children?: number;
  converted?: number;
  instant?: boolean;
};

function schemaElements(leaves: readonly LeafColumn[]): SchemaElement[] {
  const elements: SchemaElement[] = [
    { name: "duckdb_schema", repetition: Repetition.REQUIRED, children: leaves.length },
  ];
  for (const leaf of leaves) {
    const type = PhysicalType[leaf.physical];
    const converted = leaf.instant
      ? ConvertedType.TIMESTAMP_MILLIS
      : leaf.physical === "BYTE_ARRAY"
        ? ConvertedType.UTF8
        : leaf.physical === "INT32"
          ? ConvertedType.INT_32
          : leaf.physical === "INT64"
            ? ConvertedType.INT_64
            : undefined;
    if (leaf.list) {
      elements.push({ name: leaf.name, repetition: Repetition.OPTIONAL, children: 1, converted: ConvertedType.LIST });
      elements.push({ name: "list", repetition: Repetition.REPEATED, children: 1 });
      elements.push({ name: "element", repetition: Repetition.OPTIONAL, type, converted });
    } else {
      elements.push({ name: leaf.name, repetition: Repetition.OPTIONAL, type, converted, instant: leaf.instant });
    }
  }
  return elements;
}
