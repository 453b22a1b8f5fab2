// Leftovers in data/staging. Every writer stages its files there before renaming them into place;
// a process killed mid-job leaves its staging files behind (harmless, never read, but they add up:
// `bun run chaos` left 1.5 GB after 200 kills). Each job removes its own kind of leftovers when it
// starts, holding the job's lease, so no other run of that job can be using them:
//   flush    `<segment>` pass directories and `verified-<segment>` copies
//   resolve  `r-<uuid>` batch directories and their `.ndjson` inputs
//   compact  `compact-<uuid>` work directories
//   backup   `backup-<uuid>` hard-link stages of `txray backup` (src/ops/backup.ts): swept by the next
//            backup, or by the retention job's housekeeping, while holding the "backup" lease

import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DataPaths } from "./paths";

export type StagingOwner = "flush" | "resolve" | "compact" | "backup";

const SEGMENT = /^(verified-)?[a-z0-9][a-z0-9-]{0,31}-\d{13}-[0-9a-f]{6}$/;

/** Whose leftover a staging entry is; null: not one of these (left alone). */
function ownerOf(name: string): StagingOwner | null {
  if (name.startsWith("compact-")) return "compact";
  if (/^backup-[0-9a-f-]{36}$/.test(name)) return "backup";
  if (/^r-[0-9a-f-]{36}(\.ndjson)?$/.test(name)) return "resolve";
  return SEGMENT.test(name) ? "flush" : null;
}

/** Removes the staging leftovers of one job; returns how many entries went. */
export function sweepStaging(paths: DataPaths, owner: StagingOwner): number {
  if (!existsSync(paths.staging)) return 0;
  let removed = 0;
  for (const name of readdirSync(paths.staging)) {
    if (ownerOf(name) !== owner) continue;
    rmSync(join(paths.staging, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
