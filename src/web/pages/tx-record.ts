// The transaction page's chain record (GET /v1/tx/{sig}): what the chain recorded, shown as the best
// explorers show it, next to txray's story: overview (finality, fee with its priority part, compute
// used / requested / cost units, recent blockhash and the envelope's last valid block height), the
// accounts with their flags and SOL balance changes, token balance changes by owner and mint, the
// instructions numbered as Solana Explorer numbers them (3, then 3.1 for the first instruction it
// invoked) with their decoded arguments, and the raw JSON with a copy button. Text nodes only (h()); the CSP forbids inline scripts and styles.

import { enc } from "../api";
import { h, link } from "../dom";
import { num, programName, short, when } from "../format";
import type { TxInstruction, TxRecord } from "../types";
import { badge } from "./common";

const LAMPORTS_PER_SOL = 1_000_000_000;

/** Lamports as SOL, exact (9 decimals, trailing zeros dropped), signed when asked. */
export function sol(lamports: number | null, signed = false): string {
  if (lamports === null) return "–";
  const negative = lamports < 0;
  const abs = Math.abs(lamports);
  const whole = Math.floor(abs / LAMPORTS_PER_SOL);
  const fraction = String(abs % LAMPORTS_PER_SOL)
    .padStart(9, "0")
    .replace(/0+$/, "");
  const text = `${whole.toLocaleString("en-US")}${fraction ? `.${fraction}` : ""}`;
  return `${negative ? "−" : signed && lamports > 0 ? "+" : ""}${text}`;
}

const address = (value: string | null) =>
  value ? h("span", { class: "mono", title: value, "data-address": value }, short(value, 6)) : "–";

const changeCell = (text: string, zero: boolean, negative: boolean) =>
  h("td", { class: `num ${zero ? "dim" : negative ? "neg" : "pos"}` }, text);

function overview(tx: TxRecord): HTMLElement {
  const rows: [string, ...(Node | string | null)[]][] = [
    ["Result", tx.outcome === "landed" ? badge("success", "good") : badge("failed", "bad")],
    [
      "Confirmation",
      tx.confirmationStatus ?? "confirmed at least",
      tx.slot !== null ? h("span", { class: "dim" }, ` · slot ${num(tx.slot)}`) : null,
      tx.blockTime !== null ? h("span", { class: "dim" }, ` · ${when(tx.blockTime)}`) : null,
    ],
    [
      "Fee",
      h("span", { "data-field": "fee" }, `${sol(tx.fee.lamports)} SOL`),
      h("span", { class: "dim" }, ` (${num(tx.fee.lamports)} lamports)`),
    ],
    [
      "Priority fee",
      h("span", { "data-field": "priority-fee" }, `${num(tx.fee.priorityLamports)} lamports`),
      h("span", { class: "dim" }, ` at ${num(tx.fee.cuPriceMicroLamports)} µlamports per CU`),
    ],
    [
      "Compute units",
      h("span", { "data-field": "compute" }, `${num(tx.compute.used)} used of ${num(tx.compute.requested)} requested`),
      tx.compute.costUnits !== null ? h("span", { class: "dim" }, ` · cost units ${num(tx.compute.costUnits)}`) : null,
    ],
    ["Recent blockhash", h("span", { class: "mono break" }, tx.recentBlockhash ?? "–")],
    [
      "Last valid block height",
      tx.lastValidBlockHeight !== null
        ? num(tx.lastValidBlockHeight)
        : h("span", { class: "dim" }, "not sent to txray"),
    ],
    ["Version", tx.version === null ? "–" : String(tx.version)],
  ];
  if (tx.err !== null) rows.splice(1, 0, ["Error", h("code", {}, JSON.stringify(tx.err))]);
  return h(
    "dl",
    { class: "facts" },
    rows.flatMap(([label, ...value]) => [h("dt", {}, label), h("dd", {}, ...value)]),
  );
}

/**
 * A table that turns into cards at phone width, like every other table of the app (common.ts): each
 * cell labelled with its column's name, so nothing scrolls sideways.
 */
function asCards(wrap: HTMLElement): HTMLElement {
  wrap.classList.add("cards");
  const heads = [...wrap.querySelectorAll("thead th")].map((th) => th.textContent ?? "");
  for (const row of wrap.querySelectorAll("tbody tr"))
    [...row.children].forEach((cell, i) => {
      cell.setAttribute("data-label", heads[i] ?? "");
    });
  return wrap;
}

function accountsTable(tx: TxRecord): HTMLElement {
  return asCards(
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "tx-accounts" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "#"),
            h("th", {}, "Address"),
            h("th", {}, "Flags"),
            h("th", { class: "num" }, "Change (SOL)"),
            h("th", { class: "num" }, "Post balance (SOL)"),
          ),
        ),
        h(
          "tbody",
          {},
          tx.accounts.map((account) =>
            h(
              "tr",
              { "data-account": account.address },
              h("td", { class: "num" }, String(account.index + 1)),
              h(
                "td",
                {},
                address(account.address),
                programName(account.address) ? ` ${programName(account.address)}` : null,
              ),
              h(
                "td",
                { class: "flags" },
                account.signer ? badge("signer", "good") : null,
                account.writable ? badge("writable", "warn") : badge("readonly", "muted"),
                account.source === "lookupTable"
                  ? h(
                      "span",
                      { class: "badge", title: account.lookupTable ?? "" },
                      `lookup table ${short(account.lookupTable, 4)}`,
                    )
                  : null,
              ),
              changeCell(
                sol(account.changeLamports, true),
                account.changeLamports === 0,
                (account.changeLamports ?? 0) < 0,
              ),
              h("td", { class: "num" }, sol(account.postLamports)),
            ),
          ),
        ),
      ),
    ),
  );
}

function tokenTable(tx: TxRecord): HTMLElement {
  if (tx.tokenBalances.length === 0) return h("p", { class: "dim" }, "No token balances recorded.");
  return asCards(
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "tx-tokens" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "Account"),
            h("th", {}, "Owner"),
            h("th", {}, "Mint"),
            h("th", { class: "num" }, "Change"),
            h("th", { class: "num" }, "Decimals"),
          ),
        ),
        h(
          "tbody",
          {},
          tx.tokenBalances.map((token) =>
            h(
              "tr",
              { "data-token-account": token.account ?? "" },
              h("td", {}, address(token.account)),
              h("td", {}, address(token.owner)),
              h("td", {}, address(token.mint)),
              changeCell(
                token.change.startsWith("-")
                  ? token.uiChange.replace("-", "−")
                  : token.change === "0"
                    ? "0"
                    : `+${token.uiChange}`,
                token.change === "0",
                token.change.startsWith("-"),
              ),
              h("td", { class: "num" }, String(token.decimals)),
            ),
          ),
        ),
      ),
    ),
  );
}

function argsView(args: Record<string, unknown>): HTMLElement {
  return h(
    "dl",
    { class: "facts ix-args" },
    Object.entries(args).flatMap(([name, value]) => [
      h("dt", {}, name),
      h("dd", { class: "mono" }, typeof value === "string" ? value : JSON.stringify(value)),
    ]),
  );
}

function instructionView(ix: TxInstruction, inner: TxInstruction[] = []): HTMLElement {
  const program = ix.programName ?? programName(ix.programId) ?? short(ix.programId, 6);
  return h(
    "li",
    { class: `tx-ix${ix.failed ? " failed" : ""}`, "data-ix": ix.number },
    h(
      "div",
      { class: "ix-head" },
      h("strong", { class: "ix-number" }, `#${ix.number}`),
      " ",
      ix.programId ? link(`/p/${enc(ix.programId)}`, program) : program,
      ": ",
      h("span", { class: "ix-name" }, ix.name ?? "unknown instruction"),
      ix.failed ? badge("failed", "bad") : null,
      (ix.stackHeight ?? 1) > 2 ? h("span", { class: "dim" }, ` depth ${ix.stackHeight}`) : null,
    ),
    ix.args
      ? [h("p", { class: "dim" }, ix.argsSource === "idl" ? "Arguments (IDL)" : "Arguments"), argsView(ix.args)]
      : null,
    ix.accounts.length > 0
      ? h(
          "details",
          {},
          h("summary", {}, `${ix.accounts.length} accounts`),
          h(
            "ol",
            { class: "mono ix-accounts" },
            ix.accounts.map((a) => h("li", {}, a)),
          ),
        )
      : null,
    inner.length > 0
      ? h(
          "ol",
          { class: "tx-inner" },
          inner.map((child) => instructionView(child)),
        )
      : null,
  );
}

function rawView(tx: TxRecord): HTMLElement {
  const text = JSON.stringify(tx.raw, null, 2);
  const status = h("span", { class: "dim", role: "status" });
  const copy = h(
    "button",
    {
      type: "button",
      class: "copy-raw",
      onclick: () => {
        navigator.clipboard
          ?.writeText(text)
          .then(() => status.replaceChildren(" copied"))
          .catch(() => status.replaceChildren(" could not copy: select the text instead"));
      },
    },
    "Copy raw JSON",
  );
  return h(
    "details",
    { class: "raw-json" },
    h("summary", {}, "Raw JSON (getTransaction)"),
    h("p", {}, copy, status),
    h("pre", { class: "logs raw" }, text),
  );
}

/** The chain record of one transaction, as a card. */
export function txRecordView(tx: TxRecord): HTMLElement {
  return h(
    "section",
    { class: "card tx-record", "aria-labelledby": "record-title" },
    h("h2", { id: "record-title" }, "What the chain recorded"),
    overview(tx),
    h("h3", {}, `Accounts (${tx.accounts.length})`),
    accountsTable(tx),
    h("h3", {}, "Token balances"),
    tokenTable(tx),
    h("h3", {}, `Instructions (${tx.instructions.length})`),
    h(
      "ol",
      { class: "tx-instructions" },
      tx.instructions.map((ix) => instructionView(ix, ix.inner)),
    ),
    rawView(tx),
  );
}
