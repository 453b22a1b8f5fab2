// Each rule kind's condition (docs/alerts.md): what holds now for a rule, over the query layer.

import type { Condition } from "../finding";
import type { RuleKind } from "../rules";
import { cuHeadroomRule } from "./cu-headroom";
import { landingRate } from "./landing-rate";
import { newIssue } from "./new-issue";
import { providerDrops } from "./provider-drops";
import { regression } from "./regression";

export const CONDITIONS: { [K in RuleKind]: Condition<K> } = {
  new_issue: newIssue,
  regression,
  landing_rate: landingRate,
  provider_drops: providerDrops,
  cu_headroom: cuHeadroomRule,
};
