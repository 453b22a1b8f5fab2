// `/w/{program}/{wallet}`: one payer's attempts at a program, newest first, with its summary;
// "Show more" follows nextCursor (the page size comes from ?limit=, default 25).

import { api, enc } from "../api";
import { outcomeBar } from "../charts";
import { empty, failure, h, link, loading, replace } from "../dom";
import { dropLabel, programName, short, when } from "../format";
import type { WalletPage } from "../types";
import { card, outcomeBadge, rateTiles, table, windowOf, windowSwitch } from "./common";

export function walletPage(
  main: HTMLElement,
  params: { program: string; wallet: string },
  query: URLSearchParams,
  signal: AbortSignal,
): void {
  const { program, wallet } = params;
  const window = windowOf(query);
  const limit = Math.min(Math.max(Number(query.get("limit")) || 25, 1), 500);
  const summary = h("div");
  const list = h("div");
  main.append(
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h(
          "p",
          { class: "crumb" },
          link("/", "Programs"),
          " / ",
          link(`/p/${enc(program)}`, programName(program) ?? short(program, 6)),
          " / wallet",
        ),
        h("h1", {}, "Wallet ", h("span", { class: "dim" }, short(wallet, 6))),
        h("p", { class: "mono dim break" }, wallet),
      ),
      windowSwitch(`/w/${enc(program)}/${enc(wallet)}`, window, query.get("limit") ? { limit: String(limit) } : {}),
    ),
    card("Summary", "summary-title", summary),
    card("Attempts, newest first", "attempts-title", list),
  );
  const rows: WalletPage["items"] = [];
  const load = (cursor: string | null) => {
    if (!cursor) replace(list, loading("attempts"));
    api<WalletPage>(`wallet/${enc(program)}/${enc(wallet)}`, { window, limit, cursor }, { signal })
      .then((page) => {
        if (!cursor)
          replace(
            summary,
            page.summary.attempts
              ? [rateTiles(page.summary), outcomeBar(page.summary, "Wallet outcomes")]
              : empty("No resolved attempts in this window."),
          );
        rows.push(...page.items);
        if (rows.length === 0) {
          replace(list, empty("This wallet has no attempts at this program in the window.", "Try the 30d window."));
          return;
        }
        const more = page.nextCursor
          ? h(
              "button",
              {
                type: "button",
                class: "more",
                onclick: () => {
                  more!.disabled = true;
                  more!.textContent = "Loading…";
                  load(page.nextCursor);
                },
              },
              "Show more",
            )
          : null;
        replace(
          list,
          table(
            "Wallet attempts",
            ["Sent", "Outcome", "Instruction", "Error or drop", "Provider", "Signature"],
            rows.map((item) => [
              when(item.sentAt),
              outcomeBadge(item.outcome),
              item.instruction ?? "–",
              item.errName ?? (item.dropClass ? dropLabel(item.dropClass) : "–"),
              item.rpcLabel,
              item.sig ? link(`/tx/${enc(item.sig)}`, short(item.sig, 5)) : "–",
            ]),
          ),
          h(
            "p",
            { class: "dim count", "aria-live": "polite" },
            `${rows.length} attempts shown${page.nextCursor ? "" : " (all)"}`,
          ),
          more,
        );
      })
      .catch((error) => {
        if ((error as Error).name === "AbortError") return;
        replace(
          list,
          failure(error, () => load(cursor)),
        );
      });
  };
  load(null);
}
