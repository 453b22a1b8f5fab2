// Job: apply TXRAY_RETENTION_DAYS (src/ops/retention.ts): expired lake partitions leave the lake
// and their control-plane rows go; when anything was removed, the serving tables are rebuilt at
// once so the answers forget those days too. Unset, it keeps everything (and only purges what an
// earlier run retired). Whatever the setting, it prunes the control database's bookkeeping by each
// table's rule (pruneControlPlane). It also does the data directory's housekeeping: the staging directories of
// backups that died (src/ops/backup.ts) go, unless a backup is running. Runs hourly in the
// scheduler; `txray jobs run retention` runs it now.

import { sweepDeadBackupStages } from "../ops/backup";
import { applyRetention, pruneControlPlane } from "../ops/retention";
import type { Job } from "./run";
import { runJob } from "./run";
import { tablesJob } from "./tables";

export const RETENTION_INTERVAL_MS = 3_600_000;

export const retentionJob: Job = {
  name: "retention",
  async run(ctx) {
    const deadBackupStagesRemoved = await sweepDeadBackupStages(ctx);
    const result = {
      ...(await applyRetention(ctx, { days: ctx.config.TXRAY_RETENTION_DAYS })),
      deadBackupStagesRemoved,
      controlRowsPruned: pruneControlPlane(ctx),
    };
    if (!("partitionsRemoved" in result) || result.partitionsRemoved === 0) return result;
    const tables = await runJob(ctx, tablesJob);
    return { ...result, tablesRebuilt: tables.ok && !tables.skipped };
  },
};
