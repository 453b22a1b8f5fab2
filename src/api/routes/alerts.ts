// /v1/alerts (docs/api.md#alerts, docs/alerts.md): an account's alert rules over HTTP, with an
// account key in x-api-key (never public). A read-only key (txr_read_…) lists; only an admin key
// (txr_live_…) creates, removes or tests; an ingest key (txr_ingest_…) does none of it. Bodies are
// JSON of at most ALERT_BODY_MAX_BYTES; every problem is answered in the error shape by app.ts.

import { type AlertRuleView, createRule, defaultSendEffects, listRules, removeRule, sendTest } from "../../alerts";
import type { Context } from "../../context";
import { requireReader } from "../../contract";
import { type Principal, scopeCanAdmin } from "../../control";
import { readBoundedBody } from "../../shared/bounded-body";
import { badRequest, TxrayError } from "../../shared/errors";
import { type Page, parseLimit } from "../../shared/pagination";
import { json } from "../http";

export const ALERT_BODY_MAX_BYTES = 16 * 1024;
const RULE_ID = /^alr_[0-9a-f]{16}$/;

/** The key's principal, which must be an admin key to change anything. */
function accountKey(ctx: Context, request: Request): Principal {
  const principal = requireReader(ctx.control, request);
  if (!scopeCanAdmin(principal.scope))
    throw new TxrayError("forbidden", "a read-only key cannot change alert rules: use an admin key (txr_live_…)");
  return principal;
}

function ruleId(params: Record<string, string>): string {
  const id = params.id;
  if (typeof id !== "string" || !RULE_ID.test(id))
    throw badRequest("id: expected an alert rule id (alr_ and 16 hex digits)");
  return id;
}

async function jsonBody(request: Request): Promise<unknown> {
  const bytes = await readBoundedBody(request, ALERT_BODY_MAX_BYTES);
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw badRequest("body: expected a JSON object");
  }
}

const isPosition = (value: unknown): value is { after: string } =>
  typeof value === "object" && value !== null && typeof (value as { after?: unknown }).after === "string";

export function alertRoutes(ctx: Context) {
  return {
    async create(request: Request): Promise<Response> {
      const principal = accountKey(ctx, request);
      const body = await jsonBody(request);
      return json(createRule(ctx.control, principal.accountId, body, ctx.clock(), ctx.config), 201);
    },
    list(request: Request): Response {
      const principal = requireReader(ctx.control, request);
      const url = new URL(request.url);
      const limit = parseLimit(url.searchParams.get("limit"));
      const position = ctx.cursors.decode(url.searchParams.get("cursor"), isPosition);
      const rules = listRules(ctx.control, principal.accountId, position?.after ?? null, limit + 1);
      const items = rules.slice(0, limit);
      const page: Page<AlertRuleView> = {
        items,
        nextCursor: rules.length > limit ? ctx.cursors.encode({ after: items[items.length - 1].id }) : null,
      };
      return json(page);
    },
    remove(request: Request, params: Record<string, string>): Response {
      const principal = accountKey(ctx, request);
      return json(removeRule(ctx.control, principal.accountId, ruleId(params), ctx.clock()));
    },
    async test(request: Request, params: Record<string, string>): Promise<Response> {
      const principal = accountKey(ctx, request);
      return json(await sendTest(ctx, principal.accountId, ruleId(params), defaultSendEffects(ctx.clock)));
    },
  };
}
