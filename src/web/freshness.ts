// The staleness banner: when /v1/status says the analytical answers are stale (the tables job is
// failing or not running: docs/api.md#get-v1status), every page says so above its content, with
// the reason and how old the figures are, instead of showing old figures as if they were current.
// Checked when the app starts and every minute after.

import { api } from "./api";
import { ago, when } from "./format";

type Status = { freshness?: { serving?: { stale: boolean; reason: string | null; dataUntil: number | null } } };

const CHECK_EVERY_MS = 60_000;

export function watchFreshness(banner: HTMLElement): void {
  const check = async () => {
    try {
      const serving = (await api<Status>("status", {}, { scoped: false })).freshness?.serving;
      if (!serving?.stale) {
        banner.hidden = true;
        banner.textContent = "";
        return;
      }
      const asOf =
        serving.dataUntil === null
          ? "No figures yet"
          : `Figures as of ${when(serving.dataUntil)} (${ago(serving.dataUntil)})`;
      banner.textContent = `${asOf}: they are not being refreshed. Why: ${serving.reason ?? "unknown"}.`;
      banner.hidden = false;
    } catch {
      // The status route itself failing says nothing about the figures: keep what is shown.
    }
  };
  void check();
  setInterval(check, CHECK_EVERY_MS);
}
