// The txray web app: a client of the /v1 HTTP API (it imports nothing from the server). Client-side
// routing over stable URLs the server answers with this app: /, /p/{program}, /tx/{sig},
// /w/{program}/{wallet}, /i/{fingerprint}, /issues/{program}, /alerts. The search box takes a
// signature, a program or a wallet.

import { ApiError, api, enc, settings } from "./api";
import { empty, failure, h, link, loading, replace } from "./dom";
import { classify, programName, short } from "./format";
import { watchFreshness } from "./freshness";
import { alertsPage } from "./pages/alerts";
import { homePage } from "./pages/home";
import { issuePage } from "./pages/issue";
import { issuesPage } from "./pages/issues";
import { programPage } from "./pages/program";
import { txPage } from "./pages/tx";
import { walletPage } from "./pages/wallet";
import type { Ecosystem, ProgramsPage, WalletPage } from "./types";

// Each page names the route parameters it reads; the router fills them from its table below.
// biome-ignore lint/suspicious/noExplicitAny: a page's own parameter type is checked where it is declared
type Page = (main: HTMLElement, params: any, query: URLSearchParams, signal: AbortSignal) => void;
const ROUTES: [RegExp, Page, string[], string][] = [
  [/^\/$/, homePage, [], "Programs"],
  [/^\/p\/([^/]+)\/?$/, programPage, ["program"], "Program"],
  [/^\/tx\/([^/]+)\/?$/, txPage, ["sig"], "Transaction"],
  [/^\/w\/([^/]+)\/([^/]+)\/?$/, walletPage, ["program", "wallet"], "Wallet"],
  [/^\/i\/([^/]+)\/?$/, issuePage, ["fingerprint"], "Issue"],
  [/^\/issues\/([^/]+)\/?$/, issuesPage, ["program"], "Issues"],
  [/^\/alerts\/?$/, alertsPage, [], "Alert rules"],
];

const main = document.getElementById("main")!;
let current: AbortController | null = null;

function render(): void {
  current?.abort();
  current = new AbortController();
  const { pathname, search } = location;
  main.replaceChildren();
  for (const [pattern, page, names, title] of ROUTES) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
    document.title = `${title}${params.program || params.sig ? ` ${short(params.sig ?? params.program, 4)}` : ""} · txray`;
    page(main, params, new URLSearchParams(search), current.signal);
    return;
  }
  main.append(empty("No such page.", "Start from the programs list."), link("/", "← Programs"));
}

export function navigate(href: string): void {
  history.pushState(null, "", href);
  render();
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

document.addEventListener("click", (event) => {
  const anchor = (event.target as Element).closest?.("a[data-link]") as HTMLAnchorElement | null;
  if (!anchor || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(anchor.getAttribute("href")!);
});
window.addEventListener("popstate", render);

// Search: a signature opens its story; an address is a program when txray knows it, else a wallet
// (looked up in the programs listed for this visitor).
const searchForm = document.getElementById("search") as HTMLFormElement;
const searchInput = document.getElementById("search-input") as HTMLInputElement;
searchForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = searchInput.value.trim();
  const kind = classify(text);
  if (kind === "signature") return navigate(`/tx/${enc(text)}`);
  if (kind === null) {
    main.replaceChildren(
      failure(
        new ApiError(
          400,
          "bad_request",
          "Enter a transaction signature (base58, 64 bytes) or a program or wallet address (base58, 32 bytes).",
          null,
        ),
      ),
    );
    return;
  }
  current?.abort();
  current = new AbortController();
  const signal = current.signal;
  replace(main, loading("search results"));
  try {
    const isProgram = await api(`baseline/${enc(text)}`, { window: "30d" }, { scoped: false, signal }).then(
      () => true,
      (error) => {
        if (error instanceof ApiError && error.status === 404) return false;
        throw error;
      },
    );
    if (isProgram) return navigate(`/p/${enc(text)}`);
    const programs = settings.key
      ? (await api<ProgramsPage>("programs", { limit: 500 }, { scoped: false, signal })).items.map((p) => p.program)
      : (await api<Ecosystem>("ecosystem", { window: "30d", limit: 500 }, { scoped: false, signal })).programs.map(
          (p) => p.program,
        );
    const found: string[] = [];
    for (const program of programs) {
      const page = await api<WalletPage>(
        `wallet/${enc(program)}/${enc(text)}`,
        { window: "30d", limit: 1 },
        { signal },
      ).catch(() => null);
      if (page && page.items.length > 0) found.push(program);
    }
    if (found.length === 1) return navigate(`/w/${enc(found[0])}/${enc(text)}?window=30d`);
    replace(
      main,
      found.length === 0
        ? empty(
            "Nothing found for this address.",
            "It is neither a program txray has data for nor a wallet with attempts in the last 30 days.",
          )
        : h(
            "section",
            { class: "card" },
            h("h2", {}, "This wallet sent attempts to several programs"),
            h(
              "ul",
              {},
              found.map((p) =>
                h("li", {}, link(`/w/${enc(p)}/${enc(text)}?window=30d`, programName(p) ?? short(p, 8))),
              ),
            ),
          ),
    );
  } catch (error) {
    if ((error as Error).name !== "AbortError") replace(main, failure(error));
  }
});

// The key box: the key lives in localStorage only and is sent in x-api-key.
const keyBox = document.getElementById("keybox") as HTMLDetailsElement;
const keyInput = document.getElementById("key-input") as HTMLInputElement;
const scopeInput = document.getElementById("scope-input") as HTMLInputElement;
const showKeyState = () => {
  keyInput.value = settings.key;
  scopeInput.checked = settings.accountScope;
  keyBox.querySelector("summary")!.textContent = settings.key
    ? settings.accountScope
      ? "Key · my data"
      : "Key · public"
    : "API key";
};
document.getElementById("key-form")!.addEventListener("submit", (event) => {
  event.preventDefault();
  settings.key = keyInput.value.trim();
  settings.accountScope = scopeInput.checked;
  showKeyState();
  keyBox.open = false;
  render();
});
document.getElementById("key-clear")!.addEventListener("click", () => {
  settings.key = "";
  settings.accountScope = false;
  showKeyState();
  keyBox.open = false;
  render();
});
showKeyState();
render();
watchFreshness(document.getElementById("freshness")!);
