// HTTP adapters of the analytics questions (DESIGN §5.1): each route reads its path and query
// parameters, resolves `?scope=account` to the key's account, and calls one query function of
// src/analytics/queries. Validation and errors live in the query layer (TxrayError); app.ts mounts
// these with the public rate limit and renders errors as `{error:{code,message}}`.

import type { Context } from "../../context";
import { baseline, cuHeadroom, providerReport, releaseDiff, topIssues, walletHistory } from "../../analytics/queries";
import { scopeAccount } from "../auth";

export type AnalyticsRoute = {
  path: string;
  handler: (request: Request, url: URL, params: Record<string, string>) => Promise<unknown>;
};

export function analyticsRoutes(ctx: Context): AnalyticsRoute[] {
  const common = (request: Request, url: URL, params: Record<string, string>) => ({
    program: params.program ?? "",
    window: url.searchParams.get("window"),
    accountId: scopeAccount(ctx.control, request, url),
  });
  return [
    { path: "/v1/baseline/:program", handler: async (request, url, params) => baseline(ctx, common(request, url, params)) },
    {
      path: "/v1/release-diff/:program",
      handler: async (request, url, params) => releaseDiff(ctx, { ...common(request, url, params), deploy: url.searchParams.get("deploy") }),
    },
    {
      path: "/v1/top-issues/:program",
      handler: async (request, url, params) =>
        topIssues(ctx, { ...common(request, url, params), segment: url.searchParams.get("segment"), limit: url.searchParams.get("limit") }),
    },
    { path: "/v1/cu-headroom/:program", handler: async (request, url, params) => cuHeadroom(ctx, common(request, url, params)) },
    {
      path: "/v1/wallet/:program/:wallet",
      handler: async (request, url, params) =>
        walletHistory(ctx, {
          ...common(request, url, params),
          wallet: params.wallet ?? "",
          limit: url.searchParams.get("limit"),
          cursor: url.searchParams.get("cursor"),
        }),
    },
    { path: "/v1/provider-report/:program", handler: async (request, url, params) => providerReport(ctx, common(request, url, params)) },
  ];
}
