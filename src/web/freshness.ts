// The banner every page shows above its content when /v1/status says something is wrong with what
// the pages show: the Solana RPC endpoint cannot be reached (since when and how it fails: attempts
// stay pending meanwhile), or the analytical answers are stale (the tables job is failing or not
// running: docs/api.md#get-v1status), with the reason and how old the figures are, instead of
// showing old figures as if they were current. Checked when the app starts and every minute after.

import { api } from "./api";
import { ago, when } from "./format";
import { type ChainStatus, chainBannerText } from "./pages/common";

type Status = {
  chain?: ChainStatus;
  freshness?: { serving?: { stale: boolean; reason: string | null; dataUntil: number | null } };
};

const CHECK_EVERY_MS = 60_000;

export function watchFreshness(banner: HTMLElement): void {
  const check = async () => {
    try {
      const status = await api<Status>("status", {}, { scoped: false });
      const serving = status.freshness?.serving;
      const lines: string[] = [];
      const chain = chainBannerText(status.chain);
      if (chain) lines.push(chain);
      if (serving?.stale) {
        const asOf =
          serving.dataUntil === null
            ? "No figures yet"
            : `Figures as of ${when(serving.dataUntil)} (${ago(serving.dataUntil)})`;
        lines.push(`${asOf}: they are not being refreshed. Why: ${serving.reason ?? "unknown"}.`);
      }
      banner.textContent = lines.join(" ");
      banner.hidden = lines.length === 0;
    } catch {
      // The status route itself failing says nothing about the figures: keep what is shown.
    }
  };
  void check();
  setInterval(check, CHECK_EVERY_MS);
}
