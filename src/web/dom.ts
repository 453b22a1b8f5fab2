// A few DOM helpers instead of a framework: h() builds elements (text is always set as text, never
// parsed as HTML), and the shared loading / empty / error / rate-limited states every section uses.

import { ApiError } from "./api";

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "style")
      element.style.cssText = String(value); // the CSSOM: the CSP allows no style attribute
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** An internal link handled by the client-side router. */
export const link = (href: string, ...children: Child[]) => h("a", { href, "data-link": true }, ...children);

export const loading = (what: string) =>
  h(
    "div",
    { class: "state loading", role: "status" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    `Loading ${what}…`,
  );

export const empty = (message: string, hint?: string) =>
  h("div", { class: "state empty", role: "status" }, h("strong", {}, message), hint ? h("p", {}, hint) : null);

/** The error state of a section; a 429 counts down and retries by itself, 503 says the data is on its way. */
export function failure(error: unknown, retry?: () => void): HTMLElement {
  if (error instanceof ApiError && error.status === 429) {
    const seconds = error.retryAfterSeconds ?? 10;
    const box = h(
      "div",
      { class: "state limited", role: "alert" },
      h("strong", {}, "Rate limited"),
      h("p", {}, `Too many requests from this address. Retrying in ${seconds} s.`),
    );
    if (retry) setTimeout(retry, seconds * 1000);
    return box;
  }
  if (error instanceof ApiError && (error.code === "unavailable" || error.code === "pending")) {
    // The server's message says what is true (waiting for expiry, or the chain out of reach since when): shown once.
    const text = error.code === "pending" ? "Pending" : "The numbers are not built yet.";
    // The server says when to ask again; ask then (an aborted page's retry ends at its aborted fetch).
    if (retry && error.retryAfterSeconds) setTimeout(retry, Math.min(error.retryAfterSeconds, 60) * 1000);
    return h(
      "div",
      { class: "state empty", role: "status" },
      h("strong", {}, text),
      h("p", {}, error.message),
      retry ? h("button", { type: "button", onclick: retry }, "Try again") : null,
    );
  }
  if (error instanceof ApiError && error.status === 404) {
    return h(
      "div",
      { class: "state empty", role: "status" },
      h("strong", {}, "Nothing here yet"),
      h("p", {}, error.message),
    );
  }
  const message = error instanceof ApiError ? error.message : "Something went wrong while loading this.";
  const code = error instanceof ApiError ? `${error.status || ""} ${error.code}`.trim() : "error";
  return h(
    "div",
    { class: "state error", role: "alert" },
    h("strong", {}, "Could not load this"),
    h("p", {}, message),
    h("code", {}, code),
    retry ? h("button", { type: "button", onclick: retry }, "Try again") : null,
  );
}

/** Fills `target` with a loading state, then with render(data), or with the error state. */
export async function section<T>(
  target: HTMLElement,
  what: string,
  load: () => Promise<T>,
  render: (data: T) => Child,
): Promise<void> {
  replace(target, loading(what));
  target.setAttribute("aria-busy", "true");
  try {
    const data = await load();
    replace(target, render(data));
  } catch (error) {
    if ((error as Error).name === "AbortError") return;
    replace(
      target,
      failure(error, () => void section(target, what, load, render)),
    );
  } finally {
    target.removeAttribute("aria-busy");
  }
}
