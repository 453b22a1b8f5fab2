// HTTP adapters of the analytics questions (docs/api.md): each route reads its path and query
// parameters (src/contract/questions.ts: the same table the MCP tools and the chat bot use),
// resolves `?scope=account` to the key's account, and calls its one query function. Validation and
// errors live in the query layer (TxrayError); app.ts mounts these with the public rate limit and
// renders errors as `{error:{code,message}}`.

import { actorOfPrincipal, changeIssueState, issueList, issueStateAnswer } from "../../analytics/queries";
import type { Context } from "../../context";
import { argsFromRequest, chainAccess, QUESTIONS, requireReader, scopeAccount } from "../../contract";
import { scopeCanAdmin } from "../../control";
import { readBoundedBody } from "../../shared/bounded-body";
import { badRequest, TxrayError } from "../../shared/errors";
import { json } from "../http";

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

/** Largest body `POST /v1/issue/{fingerprint}/state` reads. */
export const ISSUE_STATE_BODY_MAX_BYTES = 4 * 1024;

/**
 * Issue triage (docs/api.md#issue-states): an account's issue list and each issue's state, with a key
 * of the account (a read key reads, only an admin key changes; an ingest key does neither).
 */
export function issueRoutes(ctx: Context) {
  return {
    list: (request: Request, url: URL, params: Record<string, string>) =>
      issueList(ctx, {
        program: params.program,
        accountId: requireReader(ctx.control, request).accountId,
        window: url.searchParams.get("window"),
        state: url.searchParams.get("state"),
        sort: url.searchParams.get("sort"),
        instruction: url.searchParams.get("instruction"),
        error: url.searchParams.get("error"),
        since: url.searchParams.get("since"),
        limit: url.searchParams.get("limit"),
        cursor: url.searchParams.get("cursor"),
      }),
    state: (request: Request, _url: URL, params: Record<string, string>) =>
      issueStateAnswer(ctx, requireReader(ctx.control, request).accountId, params.fingerprint),
    async change(request: Request, params: Record<string, string>): Promise<Response> {
      const principal = requireReader(ctx.control, request);
      if (!scopeCanAdmin(principal.scope))
        throw new TxrayError(
          "forbidden",
          "a read-only key cannot change an issue's state: use an admin key (txr_live_…)",
        );
      const bytes = await readBoundedBody(request, ISSUE_STATE_BODY_MAX_BYTES);
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch {
        throw badRequest("body: expected a JSON object");
      }
      return json(
        await changeIssueState(ctx, principal.accountId, actorOfPrincipal(principal), params.fingerprint, body),
      );
    },
  };
}
