// wallet/{program}/{wallet}: one payer's attempts on a program in the window, newest first, keyset
// paginated (opaque signed cursor), with a Rates summary. Reads the `attempts` table sorted by
// wallet_key = hash(program, payer), so a page is a small range read.

import { z } from "zod";
import type { Context } from "../../context";
import { parseLimit } from "../../api/pagination";
import { rates, type Rates } from "../stats";
import { servingTables } from "../serving/reader";
import { address, answerKey, baseParams, type BaseParams, countsOf, parseParams, requireKnownProgram, scopeKey, windowRange, type CountRow, type WindowRange } from "./common";

export type WalletItem = {
  sig: string | null;
  sentAt: number;
  receivedAt: number;
  outcome: string | null;
  pending: boolean;
  dropClass: string | null;
  instruction: string | null;
  errName: string | null;
  rpcLabel: string;
};
export type WalletHistoryResponse = { program: string; wallet: string; window: WindowRange; summary: Rates; items: WalletItem[]; nextCursor: string | null };

const walletParams = baseParams.extend({
  wallet: address("wallet address"),
  limit: z.union([z.number().int().min(1).max(500), z.string()]).nullish(),
  cursor: z.string().nullish(),
});
export type WalletHistoryParams = BaseParams & { wallet: string; limit?: string | number | null; cursor?: string | null };

type Position = { s: number; k: string };
const isPosition = (value: unknown): value is Position =>
  typeof value === "object" && value !== null && Number.isSafeInteger((value as Position).s) && /^\d{1,20}$/.test(String((value as Position).k));

const ITEMS_SQL = `
  SELECT sig, sent_at, received_at, outcome, drop_class, instruction, err_name, rpc_label, attempt_key::VARCHAR AS attempt_key
  FROM attempts
  WHERE wallet_key = $9::UBIGINT AND program = $1 AND payer = $2
    AND received_at BETWEEN $3 AND $4 AND ($5::VARCHAR IS NULL OR account_id = $5)
    AND (sent_at < $6 OR (sent_at = $6 AND attempt_key < $7::UBIGINT))
  ORDER BY sent_at DESC, attempt_key DESC
  LIMIT $8`;

const MAX_KEY = "18446744073709551615";

export async function walletHistory(ctx: Context, input: WalletHistoryParams): Promise<WalletHistoryResponse> {
  const params = parseParams(walletParams, input);
  const limit = typeof params.limit === "number" ? params.limit : parseLimit(params.limit);
  const position = ctx.cursors.decode(params.cursor, isPosition);
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("wallet", { ...params, limit }), async () => {
    await requireKnownProgram(tables, params.program);
    const window = windowRange(tables, params.window);
    const [summaryRow] = await tables.all<CountRow>(
      "SELECT landed, failed_onchain, dropped, preflight FROM wallet_summary WHERE program = $1 AND scope = $2 AND win = $3 AND payer = $4",
      [params.program, scopeKey(params.accountId), params.window, params.wallet],
    );
    // The key is computed first so the lookup binds a constant: DuckDB then prunes row groups by
    // the sorted wallet_key's zone maps instead of scanning.
    const [{ key }] = await tables.all<{ key: string }>("SELECT hash($1::VARCHAR, $2::VARCHAR)::VARCHAR AS key", [params.program, params.wallet]);
    const rows = await tables.all<{
      sig: string | null; sent_at: number; received_at: number; outcome: string | null; drop_class: string | null;
      instruction: string | null; err_name: string | null; rpc_label: string; attempt_key: string;
    }>(ITEMS_SQL, [
      params.program, params.wallet, window.since, window.until, params.accountId,
      position?.s ?? Number.MAX_SAFE_INTEGER, position?.k ?? MAX_KEY, limit + 1, key,
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      program: params.program,
      wallet: params.wallet,
      window,
      summary: rates(countsOf(summaryRow)),
      items: page.map((row) => ({
        sig: row.sig,
        sentAt: row.sent_at,
        receivedAt: row.received_at,
        outcome: row.outcome,
        pending: row.outcome === null,
        dropClass: row.drop_class,
        instruction: row.instruction,
        errName: row.err_name,
        rpcLabel: row.rpc_label,
      })),
      nextCursor: rows.length > limit && last ? ctx.cursors.encode({ s: last.sent_at, k: last.attempt_key } satisfies Position) : null,
    };
  });
}
