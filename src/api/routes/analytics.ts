// HTTP adapters of the analytics questions (DESIGN §5.1): each route reads its path and query
// parameters (src/contract/questions.ts: the same table the MCP tools and the chat bot use),
// resolves `?scope=account` to the key's account, and calls its one query function. Validation and
// errors live in the query layer (TxrayError); app.ts mounts these with the public rate limit and
// renders errors as `{error:{code,message}}`.

import type { Context } from "../../context";
import { argsFromRequest, QUESTIONS } from "../../contract";
import { chainAccess } from "../chain-access";
import { scopeAccount } from "../auth";

export type AnalyticsRoute = {
  path: string;
  handler: (request: Request, url: URL, params: Record<string, string>) => Promise<unknown>;
};

const ANALYTICS = ["baseline", "release_diff", "top_issues", "cu_headroom", "wallet_history", "provider_report", "ecosystem"];

export function analyticsRoutes(ctx: Context): AnalyticsRoute[] {
  const deps = { ctx, chain: chainAccess(ctx), spool: null };
  return QUESTIONS.filter((question) => ANALYTICS.includes(question.name)).map((question) => ({
    path: question.path,
    handler: async (request, url, params) => question.answer(deps, argsFromRequest(question, params, url), scopeAccount(ctx.control, request, url)),
  }));
}
