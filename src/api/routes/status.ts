// GET /v1/status (public): service version, lake size and backlog, each job's last run and the data
// freshness, so an operator (or a monitor) sees at a glance whether txray is keeping up.

import { lakeRowCount, lastJobRuns } from "../../control";
import type { Context } from "../../context";
import type { Spool } from "../../ingest/spool";
import { VERSION } from "../../version";
import { diskUsage } from "../../ops/disk-usage";

/** `spool`: this process's spool (or anything that measures the backlog); null: not known here. */
export function serviceStatus(ctx: Context, spool: Pick<Spool, "backlogBytes"> | null) {
  const jobs = lastJobRuns(ctx.control);
  const lastFlush = ctx.control
    .query<{ at: number | null }, []>("SELECT max(committed_at) AS at FROM lake_segments")
    .get()?.at ?? null;
  const envelopes = lakeRowCount(ctx.control);
  return {
    version: VERSION,
    lake: {
      envelopes,
      spoolBacklog: spool ? spool.backlogBytes() : null,
      lastFlushAt: lastFlush,
    },
    freshness: { lastFlushAt: lastFlush, lastResolveAt: jobs.resolve?.lastRunAt ?? null, lastTablesAt: jobs.tables?.lastRunAt ?? null },
    jobs,
    // Additive (docs/api.md): bytes on disk by part and per attempt in the lake.
    disk: diskUsage(ctx.paths, envelopes, ctx.clock()),
  };
}
