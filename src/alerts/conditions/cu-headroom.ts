// cu_headroom (docs/alerts.md#cu_headroom): an instruction whose p95 compute units (nearest rank,
// from the cu-headroom answer) are within `withinPercent` of its median requested limit, over at
// least `minSamples` landed or failed-on-chain attempts in the window. No test: a quantile against
// a limit.

import { cuHeadroom } from "../../analytics/queries";
import { type Condition, type Finding, formatCount, percent, programPath } from "../finding";

export const cuHeadroomRule: Condition<"cu_headroom"> = async (ctx, rule) => {
  const { window, withinPercent, minSamples } = rule.params;
  const answer = await cuHeadroom(ctx, { program: rule.program, window, accountId: rule.accountId });
  const findings: Finding[] = [];
  for (const instruction of answer.instructions) {
    const limit = instruction.cuRequestedP50;
    if (limit === null || limit <= 0 || instruction.samples < minSamples) continue;
    const p95 = instruction.cuUsed.p95;
    if (p95 < limit * (1 - withinPercent / 100)) continue;
    findings.push({
      subject: `instruction:${instruction.instruction}`,
      title: `${instruction.instruction} uses ${percent(p95 / limit)} of its compute limit at p95`,
      lines: [
        `p95 ${formatCount(p95)} CU of a requested ${formatCount(limit)} (median) over ${formatCount(instruction.samples)} attempts in the last ${window}; rule: within ${withinPercent}%`,
        `p50 ${formatCount(instruction.cuUsed.p50)} · max ${formatCount(instruction.cuUsed.max)} · ${formatCount(instruction.exceeded)} exceeded the budget`,
      ],
      data: {
        window,
        withinPercent,
        instruction: instruction.instruction,
        samples: instruction.samples,
        cuUsed: instruction.cuUsed,
        cuRequestedP50: limit,
        headroomP95: instruction.headroomP95,
        exceeded: instruction.exceeded,
        usedShare: p95 / limit,
      },
      links: { program: programPath(rule.program) },
    });
  }
  return findings;
};
