// The backup manifest `backup.json` (format 2, docs/operations.md "The backup manifest"): what a
// backup holds and the SHA-256 of every file in it. `txray backup` writes it last, so a directory
// without it is an incomplete backup; `txray backup verify` and `txray restore` check every file
// against it. Also the one way to copy a file while hashing it, used by backup and restore alike.

import { createHash } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";

export const MANIFEST_FILE = "backup.json";
/** Written first into the target and removed after the manifest: an interrupted backup's signature. */
export const INCOMPLETE_FILE = "backup.incomplete";
export const MANIFEST_FORMAT = 2;

const count = z.number().int().nonnegative();

/** A path inside the backup: relative, under data/ or snapshots/, without `.`/`..` segments. */
const BackupPath = z
  .string()
  .regex(/^(data|snapshots)\/[^\0]+$/, "a relative path under data/ or snapshots/")
  .refine(
    (path) => path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."),
    "no empty, . or .. segments",
  );

export const BackupFileSchema = z.object({
  path: BackupPath,
  bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const BackupManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
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

export type BackupFile = z.infer<typeof BackupFileSchema>;
export type BackupManifest = z.infer<typeof BackupManifestSchema>;

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
  const parsed = BackupManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      problem: `does not match format ${MANIFEST_FORMAT}: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    };
  }
  return { manifest: parsed.data };
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
