// `/alerts`: the alert rules of the key's account (GET, POST, DELETE /v1/alerts and POST
// /v1/alerts/{id}/test; docs/alerts.md). Any account key lists; adding, testing and removing need an
// admin key, and the server's refusal (403) is shown as it answers it. A new webhook's signing secret
// is shown once, right after it is created, as the server returns it only then.

import { ApiError, api, enc, settings } from "../api";
import { empty, failure, h, replace, section } from "../dom";
import { ago, num, programName, short } from "../format";
import { badge, card, table } from "./common";

type AlertRule = {
  id: string;
  program: string;
  rule: string;
  params: Record<string, unknown>;
  destination: { type: string; url: string; secretHint: string | null; secret?: string };
  createdAt: number;
  firing: number;
};
type AlertRules = { items: AlertRule[]; nextCursor: string | null };
type AlertTestResult = { delivery: string; delivered: boolean; status?: number | null; error: string | null };

/** The rule kinds of docs/alerts.md, in its order. */
const RULES = ["new_issue", "regression", "landing_rate", "provider_drops", "cu_headroom"];

/** A /v1/alerts call that changes something, with the stored key; the server's error as an ApiError. */
async function send<T>(method: "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/v1/${path}`, {
      method,
      headers: {
        accept: "application/json",
        "x-api-key": settings.key,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", "The server could not be reached.", null);
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (answer as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? response.statusText,
      null,
    );
  }
  return answer as T;
}

const paramsText = (params: Record<string, unknown>) =>
  Object.entries(params)
    .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");

/** "name=value" pairs separated by commas or new lines; numbers and true/false as such, else text. */
export function parseParams(text: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const part of text.split(/[\n,]/)) {
    const item = part.trim();
    if (item === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) throw new Error(`parameter "${item}": expected name=value`);
    const name = item.slice(0, at).trim();
    const raw = item.slice(at + 1).trim();
    params[name] =
      raw === "true" ? true : raw === "false" ? false : raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  }
  return params;
}

export function alertsPage(
  main: HTMLElement,
  _params: Record<string, never>,
  _query: URLSearchParams,
  signal: AbortSignal,
) {
  document.title = "Alert rules · txray";
  main.append(
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("h1", {}, "Alert rules"),
        h("p", { class: "dim" }, "Rules of the account whose key is stored under “API key”."),
      ),
    ),
  );
  if (!settings.key) {
    main.append(
      empty("A key is needed.", "Enter an admin key of your account under “API key” to manage its alert rules."),
    );
    return;
  }
  const notice = h("div", { class: "alerts-notice", "aria-live": "polite" });
  const list = h("div", { class: "alerts-list" });
  const reload = () =>
    void section(
      list,
      "the alert rules",
      () => api<AlertRules>("alerts", { limit: 100 }, { scoped: false, signal }),
      (page) => rulesTable(page.items, notice, reload),
    );
  main.append(notice, card("Rules", "alerts-rules", list), card("Add a rule", "alerts-add", addForm(notice, reload)));
  reload();
}

function rulesTable(rules: AlertRule[], notice: HTMLElement, reload: () => void): HTMLElement {
  if (rules.length === 0) return empty("No alert rule yet.", "Add one below.");
  return table(
    "Alert rules",
    ["Rule", "Program", "Parameters", "Destination", "Firing", "Created", "Actions"],
    rules.map((rule) => [
      h("span", { "data-rule-id": rule.id }, h("strong", {}, rule.rule), h("span", { class: "dim" }, ` ${rule.id}`)),
      programName(rule.program) ?? short(rule.program, 6),
      paramsText(rule.params) || "—",
      `${rule.destination.type} ${rule.destination.url}`,
      rule.firing > 0 ? badge(num(rule.firing), "bad") : "0",
      ago(rule.createdAt),
      h("span", { class: "row" }, testButton(rule, notice), removeButton(rule, notice, reload)),
    ]),
    { numeric: [4] },
  );
}

function testButton(rule: AlertRule, notice: HTMLElement): HTMLButtonElement {
  const button = h("button", { type: "button", "data-action": "test" }, "Send test");
  button.addEventListener("click", () => {
    button.disabled = true;
    send<AlertTestResult>("POST", `alerts/${enc(rule.id)}/test`)
      .then(
        (result) =>
          replace(
            notice,
            h(
              "div",
              { class: `state ${result.delivered ? "empty" : "error"}`, role: "status" },
              h("strong", {}, result.delivered ? "Test delivered" : "Test not delivered"),
              h("p", {}, `${rule.rule} ${rule.id}: ${result.error ?? "the destination accepted it"}`),
            ),
          ),
        (error) => replace(notice, failure(error)),
      )
      .finally(() => {
        button.disabled = false;
      });
  });
  return button;
}

/** Removing takes two clicks: the first asks, the second removes. */
function removeButton(rule: AlertRule, notice: HTMLElement, reload: () => void): HTMLButtonElement {
  const button = h("button", { type: "button", "data-action": "remove" }, "Remove");
  let armed = false;
  button.addEventListener("click", () => {
    if (!armed) {
      armed = true;
      button.textContent = "Confirm remove";
      return;
    }
    button.disabled = true;
    send<{ id: string; deleted: true }>("DELETE", `alerts/${enc(rule.id)}`).then(
      () => {
        replace(
          notice,
          h("div", { class: "state empty", role: "status" }, h("strong", {}, `Removed ${rule.rule} ${rule.id}`)),
        );
        reload();
      },
      (error) => {
        button.disabled = false;
        replace(notice, failure(error));
      },
    );
  });
  return button;
}

function field(label: string, control: HTMLElement): HTMLElement {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

function addForm(notice: HTMLElement, reload: () => void): HTMLFormElement {
  const program = h("input", {
    name: "program",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "Program id",
  });
  const rule = h(
    "select",
    { name: "rule" },
    RULES.map((kind) => h("option", { value: kind }, kind)),
  );
  const type = h(
    "select",
    { name: "type" },
    h("option", { value: "webhook" }, "webhook"),
    h("option", { value: "slack" }, "slack"),
  );
  const url = h("input", { name: "url", type: "url", required: true, autocomplete: "off", placeholder: "https://…" });
  const secret = h("input", {
    name: "secret",
    autocomplete: "off",
    placeholder: "webhook signing secret (optional: generated)",
  });
  const params = h("input", {
    name: "params",
    autocomplete: "off",
    placeholder: "e.g. minCount=5, withinMinutes=10 (optional)",
  });
  const form = h(
    "form",
    { class: "alerts-form", "aria-label": "Add an alert rule" },
    field("Program", program),
    field("Rule", rule),
    field("Destination", type),
    field("URL", url),
    field("Secret", secret),
    field("Parameters", params),
    h("button", { type: "submit" }, "Add rule"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let body: Record<string, unknown>;
    try {
      body = {
        program: program.value.trim(),
        rule: rule.value,
        params: parseParams(params.value),
        destination: {
          type: type.value,
          url: url.value.trim(),
          ...(type.value === "webhook" && secret.value.trim() ? { secret: secret.value.trim() } : {}),
        },
      };
    } catch (error) {
      replace(notice, failure(new ApiError(400, "bad_request", (error as Error).message, null)));
      return;
    }
    send<AlertRule>("POST", "alerts", body).then(
      (created) => {
        replace(
          notice,
          h(
            "div",
            { class: "state empty", role: "status" },
            h("strong", {}, `Added ${created.rule} ${created.id}`),
            created.destination.secret
              ? h("p", {}, "Signing secret (shown only now): ", h("code", {}, created.destination.secret))
              : null,
          ),
        );
        form.reset();
        reload();
      },
      (error) => replace(notice, failure(error)),
    );
  });
  return form;
}
