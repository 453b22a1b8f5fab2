// The app's only way to the server: fetch against /v1 with the key (when the user stored one) in
// `x-api-key`, and `scope=account` when they asked for their account's data. Errors keep the
// server's `{error:{code,message}}` and, for 429/503/pending, the Retry-After seconds.

const KEY = "txray.key";
const SCOPE = "txray.scope";

export const settings = {
  get key(): string {
    return localStorage.getItem(KEY) ?? "";
  },
  set key(value: string) {
    if (value) localStorage.setItem(KEY, value);
    else localStorage.removeItem(KEY);
  },
  /** scope=account, only meaningful with a key. */
  get accountScope(): boolean {
    return this.key !== "" && localStorage.getItem(SCOPE) === "account";
  },
  set accountScope(value: boolean) {
    localStorage.setItem(SCOPE, value ? "account" : "public");
  },
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | null | undefined>;

/** GET a /v1 route; `scoped` routes get scope=account when the user chose it. */
export async function api<T>(
  path: string,
  query: Query = {},
  options: { scoped?: boolean; signal?: AbortSignal } = {},
): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== null && value !== undefined && value !== "") params.set(name, String(value));
  if (options.scoped !== false && settings.accountScope) params.set("scope", "account");
  const headers: Record<string, string> = { accept: "application/json" };
  if (settings.key) headers["x-api-key"] = settings.key;
  const url = `/v1/${path}${params.size ? `?${params}` : ""}`;
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: options.signal });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "network", "The server could not be reached.", null);
  }
  const retry = Number(response.headers.get("retry-after"));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? response.statusText,
      retryAfter,
    );
  }
  return body as T;
}

/** The Landing Score snapshot, or null when none was published. */
export async function landingScore<T>(): Promise<T | null> {
  const response = await fetch("/landing-score/latest.json").catch(() => null);
  if (!response?.ok) return null;
  return (await response.json().catch(() => null)) as T | null;
}

export const enc = encodeURIComponent;
