// A deploy's source as the API gives it (its verified-build record: repository and commit) and the
// link to the commits since the previous deploy. Text nodes only; the link's address is the API's
// `compareUrl`, which the server builds for GitHub repositories alone.

import { h } from "../dom";

export type DeploySource = { repository: string; commit: string };

/** "commit abc1234 of https://github.com/…/… · changes since the previous deploy", or null. */
export function deploySourceLine(
  source: DeploySource | null | undefined,
  compareUrl: string | null | undefined,
): HTMLElement | null {
  if (!source) return null;
  return h(
    "span",
    { class: "deploy-source" },
    "commit ",
    h("code", {}, source.commit.length > 12 ? source.commit.slice(0, 12) : source.commit),
    ` of ${source.repository}`,
    compareUrl?.startsWith("https://github.com/")
      ? [
          " · ",
          h(
            "a",
            { href: compareUrl, rel: "noopener noreferrer", target: "_blank" },
            "changes since the previous deploy",
          ),
        ]
      : null,
  );
}
