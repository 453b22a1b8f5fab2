// The analytics query layer: one function per question, shared by HTTP, MCP, web and chat.
export { baseline, type BaselineResponse } from "./baseline";
export {
  releaseDiff,
  issueStatus,
  RELEASE_ALPHA,
  type ReleaseDiffResponse,
  type ReleaseDiffParams,
} from "./release-diff";
export {
  topIssues,
  issueSummary,
  SEGMENTS,
  type Issue,
  type IssueSummary,
  type TopIssuesResponse,
  type TopIssuesParams,
  type Segment,
} from "./top-issues";
export { cuHeadroom, type CuHeadroomResponse } from "./cu-headroom";
export { walletHistory, type WalletHistoryResponse, type WalletHistoryParams } from "./wallet-history";
export { providerReport, type ProviderReportResponse } from "./provider-report";
export { payerBotScore, payerFeatures, type PayerFeatures } from "./bot-score";
export type { BaseParams } from "./common";
export { ecosystem, type EcosystemResponse, type EcosystemProgram, type EcosystemParams } from "./ecosystem";
export {
  why,
  requireSignature,
  issueRef,
  attemptsBySig,
  RecentAnswers,
  type WhyDeps,
  type WhyAnswer,
  type IssueRef,
} from "./why";
export { diagnoseDrop, type DiagnoseDropAnswer } from "./diagnose-drop";
export {
  issueDetail,
  FINGERPRINT_PATTERN,
  type IssueDetailResponse,
  type IssueDetailParams,
  type IssueDetailDeps,
} from "./issue-detail";
export {
  recentActivity,
  MAX_RECENT_MINUTES,
  type RecentActivity,
  type RecentIssue,
  type RecentActivityParams,
} from "./recent";
export { answerSlot, type AnswerScope, type RowSource } from "./common";
export { baselineAnswers } from "./baseline";
export { cuHeadroomAnswers } from "./cu-headroom";
export { providerReportAnswers } from "./provider-report";
export { releaseDiffAnswers } from "./release-diff";
export { topIssuesAnswers } from "./top-issues";
export * from "./schemas";
