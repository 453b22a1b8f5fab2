// HTTP adapters of the analytics questions (docs/api.md): each route reads its path and query
// parameters (src/contract/questions.ts: the same table the MCP tools and the chat bot use),
// resolves `?scope=account` to the key's account, and calls its one query function. Validation and
// errors live in the query layer (TxrayError); app.ts mounts these with the public rate limit and
// renders errors as `{error:{code,message}}`.

import type { Context } from "../../context";
import { argsFromRequest, chainAccess, QUESTIONS, scopeAccount } from "../../contract";

export type AnalyticsRoute = {
  path: string;
  handler: (request: Request, url: URL, params: Record<string, string>, client: string) => Promise<unknown>;
};

/**
 * Every read question's route but status (served on every node, with this process's spool; app.ts):
 * why, diagnose-drop, the analytical routes and the ecosystem. `scope` is read only by the questions
 * that take it. `chain`: the app's one chain access (its RPC client and IDL cache), or a new one.
 */
export function analyticsRoutes(ctx: Context, chain = chainAccess(ctx)): AnalyticsRoute[] {
  const deps = { ctx, chain, spool: null };
  return QUESTIONS.filter((question) => question.name !== "status").map((question) => ({
    path: question.path,
    handler: async (request, url, params, client) =>
      question.answer(
        deps,
        argsFromRequest(question, params, url),
        question.queryParams.includes("scope") ? scopeAccount(ctx.control, request, url) : null,
        client,
      ),
  }));
}
