// Each rule kind's condition (docs/alerts.md): what holds now for a rule, over the query layer.
import type { RuleKind } from "../rules";
import type { Condition } from "../finding";
import { newIssue } from "./new-issue";
import { regression } from "./regression";
import { landingRate } from "./landing-rate";
import { providerDrops } from "./provider-drops";
import { cuHeadroomRule } from "./cu-headroom";

export const CONDITIONS: { [K in RuleKind]: Condition<K> } = {
  new_issue: newIssue,
  regression,
  landing_rate: landingRate,
  provider_drops: providerDrops,
  cu_headroom: cuHeadroomRule,
};
