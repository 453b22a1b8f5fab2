// `/issues/{program}`: the account's issues of a program for triage (GET /v1/issues/{program}, a key
// required): each with its state, the wallets it hit (the headline figure) and its events in the
// window; filters by state, instruction and error and the sort are in the URL (shareable, the back
// button works); "More" follows the answer's cursor.

import { api, enc, settings } from "../api";
import { empty, h, link, replace, section } from "../dom";
import { ago, num, programName, short } from "../format";
import { badge, outcomeBadge, table, windowOf, windowSwitch } from "./common";

export type IssueStateView = {
  state: string;
  stored: string;
  changedAt: number | null;
  changedBy: string | null;
  assignee: string | null;
  ignoreUntilEvents: number | null;
  ignoreUntilAt: number | null;
  eventsSinceChange: number | null;
  release: { slot: number; deployedAt: number } | null;
};
type IssueListItem = {
  fingerprint: string;
  title: string;
  outcome: string;
  instruction: string | null;
  count: number;
  wallets: number;
  firstSeen: number;
  lastSeen: number;
  state: IssueStateView;
};
type IssueList = { items: IssueListItem[]; nextCursor: string | null };

const STATE_FILTERS = ["open", "all", "unresolved", "regressed", "resolved", "resolved_next_release", "ignored"];
const STATE_TONES: Record<string, string> = {
  unresolved: "warn",
  regressed: "bad",
  resolved: "good",
  resolved_next_release: "good",
  ignored: "muted",
};
const STATE_LABELS: Record<string, string> = { resolved_next_release: "resolved in next release" };

/** A state as a badge (the same on the list and the issue page). */
export const stateBadge = (state: string) => badge(STATE_LABELS[state] ?? state, STATE_TONES[state] ?? "");

export function issuesPage(
  main: HTMLElement,
  params: { program: string },
  query: URLSearchParams,
  signal: AbortSignal,
): void {
  const window = windowOf(query);
  const program = programName(params.program) ?? short(params.program, 6);
  const filters = {
    state: query.get("state") ?? "open",
    sort: query.get("sort") ?? "events",
    instruction: query.get("instruction") ?? "",
    error: query.get("error") ?? "",
  };
  document.title = `Issues of ${program} · txray`;
  const extra = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ""));
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
          link(`/p/${enc(params.program)}`, program),
          " / issues",
        ),
        h("h1", {}, "Issues"),
      ),
      windowSwitch(`/issues/${enc(params.program)}`, window, extra),
    ),
  );
  if (!settings.key) {
    main.append(empty("A key is needed.", "Enter a read or admin key of your account under “API key” to triage."));
    return;
  }
  main.append(filterForm(params.program, window, filters));
  const body = h("div", { class: "issues-body" });
  main.append(body);
  const rows = h("div", {});
  const more = h("div", {});
  const load = (cursor: string | null) =>
    api<IssueList>(
      `issues/${enc(params.program)}`,
      { window, ...filters, limit: 50, cursor },
      { scoped: false, signal },
    );
  const show = (page: IssueList) => {
    rows.append(
      page.items.length === 0 && rows.childElementCount === 0
        ? empty(
            "No issue matches.",
            filters.state === "open" ? "Resolved and ignored issues are under “all”." : undefined,
          )
        : table(
            "Issues",
            ["Issue", "State", "Wallets", "Events", "Last seen", "Instruction"],
            page.items.map((item) => [
              h(
                "span",
                {},
                link(`/i/${enc(item.fingerprint)}`, item.title),
                " ",
                outcomeBadge(item.outcome),
                item.state.assignee ? h("span", { class: "dim" }, ` · ${item.state.assignee}`) : null,
              ),
              stateBadge(item.state.state),
              num(item.wallets),
              num(item.count),
              ago(item.lastSeen),
              item.instruction ?? "—",
            ]),
            { numeric: [2, 3] },
          ),
    );
    replace(
      more,
      page.nextCursor
        ? h(
            "button",
            {
              type: "button",
              class: "more",
              onclick: () => void load(page.nextCursor).then(show),
            },
            "More",
          )
        : null,
    );
  };
  void section(
    body,
    "the issues",
    () => load(null),
    (page) => {
      show(page);
      return [rows, more];
    },
  );
}

/** The filters as a GET form: submitting it navigates to the same page with them in the URL. */
function filterForm(
  program: string,
  window: string,
  filters: { state: string; sort: string; instruction: string; error: string },
): HTMLElement {
  const select = (name: string, values: string[], current: string, label: string) =>
    h(
      "label",
      {},
      `${label} `,
      h(
        "select",
        { name },
        values.map((value) =>
          h("option", { value, selected: value === current }, STATE_LABELS[value] ?? value.replaceAll("_", " ")),
        ),
      ),
    );
  const text = (name: string, current: string, label: string) =>
    h("label", {}, `${label} `, h("input", { name, value: current, maxlength: 200, size: 16 }));
  return h(
    "form",
    { class: "filters", method: "get", action: `/issues/${enc(program)}`, "aria-label": "Filters" },
    h("input", { type: "hidden", name: "window", value: window }),
    select("state", STATE_FILTERS, filters.state, "State"),
    select("sort", ["events", "wallets"], filters.sort, "Sort by"),
    text("instruction", filters.instruction, "Instruction"),
    text("error", filters.error, "Error"),
    h("button", { type: "submit" }, "Filter"),
  );
}
