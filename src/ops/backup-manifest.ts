// The backup manifest `backup.json` (format 3, docs/operations.md "The backup manifest"): what a
// backup holds, the SHA-256 of every file in it, and the SHA-256 of its own fields
// (`manifestSha256`), so that a manifest edited by hand or damaged is refused like a damaged file.
// `txray backup` writes it last, so a directory without it is an incomplete backup; `txray backup
// verify` and `txray restore` check every file against it. Format 2 (no control plane field, no
// checksum of its own, always a SQLite control plane) is still read. Also the one way to copy a file
// while hashing it, used by backup and restore alike.

import { createHash } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";

export const MANIFEST_FILE = "backup.json";
/** Written first into the target and removed after the manifest: an interrupted backup's signature. */
export const INCOMPLETE_FILE = "backup.incomplete";
export const MANIFEST_FORMAT = 3;
/** Where a PostgreSQL control plane's pg_dump (custom format) lies in a backup; restore leaves it for pg_restore. */
export const CONTROL_DUMP_FILE = "control/control.pgdump";

const count = z.number().int().nonnegative();

/** A path inside the backup: relative, under data/, snapshots/ or control/, without `.`/`..` segments. */
const BackupPath = z
  .string()
  .regex(/^(data|snapshots|control)\/[^\0]+$/, "a relative path under data/, snapshots/ or control/")
  .refine(
    (path) => path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."),
    "no empty, . or .. segments",
  );

export const BackupFileSchema = z.object({
  path: BackupPath,
  bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const ManifestFields = z.object({
  txrayVersion: z.string(),
  createdAt: count,
  /** The data directory backed up (absolute). */
  source: z.string(),
  /** Envelopes the copied lake holds, as its control database counts them; spool segments add to it once flushed. */
  envelopes: count,
  lakeFiles: count,
  /** Spool segments (sealed, and the acknowledged part of active ones) not yet in the lake. */
  spoolSegments: count,
  /** Segments flush had set aside (quarantine), copied for inspection; never flushed. */
  quarantinedSegments: count,
  /**
   * The serving tables version copied; null: none built yet, or replaced during the copy (run the tables job after a
   * restore).
   */
  servingVersion: count.nullable(),
  idlFiles: count,
  snapshots: z.boolean(),
  /** Sum of the files' bytes. */
  bytes: count,
  seconds: z.number().nonnegative(),
  /** Every file of the backup but the manifest, sorted by path. */
  files: z.array(BackupFileSchema),
});

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const BackupManifestSchema = ManifestFields.extend({
  format: z.literal(MANIFEST_FORMAT),
  /** sqlite: data/control.sqlite holds it; postgres: control/control.pgdump (pg_dump, custom format). */
  controlPlane: z.enum(["sqlite", "postgres"]),
  /** SHA-256 of the manifest's other fields (manifestChecksum). */
  manifestSha256: sha256Hex,
});
const LegacyManifestSchema = ManifestFields.extend({ format: z.literal(2) });

export type BackupFile = z.infer<typeof BackupFileSchema>;
/** A format 3 manifest, or a format 2 one read as such (a SQLite control plane, no checksum of its own). */
export type BackupManifest = Omit<z.infer<typeof BackupManifestSchema>, "format" | "manifestSha256"> & {
  format: 2 | 3;
  manifestSha256?: string;
};

/**
 * SHA-256 of a manifest's fields but `manifestSha256`, as JSON with every object's keys sorted: the
 * same fields give the same checksum however the file is indented.
 */
export function manifestChecksum(manifest: object): string {
  const { manifestSha256: _own, ...fields } = manifest as Record<string, unknown>;
  return createHash("sha256").update(canonicalJson(fields)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The manifest of a backup directory's backup.json text, or why it is not one. */
export function parseManifest(text: string): { manifest: BackupManifest } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: "not valid JSON" };
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (format === 1)
    return { problem: "format 1 (written before backups kept checksums): it cannot be verified; take a new backup" };
  if (format === 2) {
    const legacy = LegacyManifestSchema.safeParse(json);
    if (!legacy.success) return { problem: schemaProblem(2, legacy.error) };
    if (legacy.data.files.some((file) => !file.path.startsWith("data/") && !file.path.startsWith("snapshots/")))
      return { problem: "format 2 lists a file outside data/ and snapshots/" };
    return { manifest: { ...legacy.data, controlPlane: "sqlite" } };
  }
  const parsed = BackupManifestSchema.safeParse(json);
  if (!parsed.success) return { problem: schemaProblem(MANIFEST_FORMAT, parsed.error) };
  if (manifestChecksum(json as object) !== parsed.data.manifestSha256)
    return { problem: "its fields do not match its manifestSha256 (the manifest was changed or damaged)" };
  return { manifest: parsed.data };
}

function schemaProblem(format: number, error: z.ZodError): string {
  const issue = error.issues[0];
  return `does not match format ${format}: ${issue.path.join(".") || "(root)"}: ${issue.message}`;
}

const CHUNK_BYTES = 4 * 1024 * 1024;
/** Files copied or hashed at once by backup, verify and restore (src/shared/each-concurrently.ts). */
export const FILES_AT_ONCE = 4;

/**
 * Reads `from` once, hashing it, and (with `copyTo`) writes the same bytes there, synced to disk.
 * Asynchronous on purpose: a long copy leaves the event loop free to renew the backup's lease.
 */
export async function hashFile(from: string, copyTo?: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  const input = await open(from, "r");
  if (copyTo) await mkdir(dirname(copyTo), { recursive: true });
  const output = copyTo ? await open(copyTo, "wx") : null;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await input.read(chunk, 0, CHUNK_BYTES, bytes);
      if (bytesRead === 0) break;
      const piece = chunk.subarray(0, bytesRead);
      hash.update(piece);
      if (output) await output.write(piece, 0, bytesRead, bytes);
      bytes += bytesRead;
    }
    if (output) await output.sync();
    return { bytes, sha256: hash.digest("hex") };
  } finally {
    await input.close();
    await output?.close();
  }
}
