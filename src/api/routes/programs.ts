// GET /v1/programs (docs/api.md): the programs the key's account has sent telemetry for, with
// attempt counts and last-seen times, keyset-paginated by program id.

import type { Context } from "../../context";
import { requireReader } from "../../contract";
import { listAccountPrograms } from "../../control";
import { type Page, parseLimit } from "../../shared/pagination";

export type ProgramItem = { program: string; attempts: number; lastSeen: number };

const isPosition = (value: unknown): value is { after: string } =>
  typeof value === "object" && value !== null && typeof (value as { after?: unknown }).after === "string";

export function listPrograms(ctx: Context, request: Request, url: URL): Page<ProgramItem> {
  const principal = requireReader(ctx.control, request);
  const limit = parseLimit(url.searchParams.get("limit"));
  const position = ctx.cursors.decode(url.searchParams.get("cursor"), isPosition);
  const rows = listAccountPrograms(ctx.control, principal.accountId, position?.after ?? null, limit + 1);
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? ctx.cursors.encode({ after: items[items.length - 1].program }) : null;
  return { items, nextCursor };
}
