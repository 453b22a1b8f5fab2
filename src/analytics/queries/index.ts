// The analytics query layer: one function per question, shared by HTTP, MCP, web and chat.
export { type BaselineResponse, baseline, baselineAnswers } from "./baseline";
export { type PayerFeatures, payerBotScore, payerFeatures } from "./bot-score";
export type { BaseParams } from "./common";
export { type AnswerScope, answerSlot, type RowSource } from "./common";
export { type CuHeadroomResponse, cuHeadroom, cuHeadroomAnswers } from "./cu-headroom";
export { type DiagnoseDropAnswer, diagnoseDrop } from "./diagnose-drop";
export { type EcosystemParams, type EcosystemProgram, type EcosystemResponse, ecosystem } from "./ecosystem";
export {
  FINGERPRINT_PATTERN,
  type IssueDetailDeps,
  type IssueDetailParams,
  type IssueDetailResponse,
  issueDetail,
} from "./issue-detail";
export { type ProviderReportResponse, providerReport, providerReportAnswers } from "./provider-report";
export {
  MAX_RECENT_MINUTES,
  type RecentActivity,
  type RecentActivityParams,
  type RecentIssue,
  recentActivity,
} from "./recent";
export {
  issueStatus,
  RELEASE_ALPHA,
  type ReleaseDiffParams,
  type ReleaseDiffResponse,
  releaseDiff,
  releaseDiffAnswers,
} from "./release-diff";
export * from "./schemas";
export {
  type Issue,
  type IssueSummary,
  issueSummary,
  SEGMENTS,
  type Segment,
  type TopIssuesParams,
  type TopIssuesResponse,
  topIssues,
  topIssuesAnswers,
} from "./top-issues";
export {
  publicRequestCost,
  type WalletHistoryParams,
  type WalletHistoryResponse,
  walletHistory,
} from "./wallet-history";
export {
  attemptsBySig,
  type IssueRef,
  issueRef,
  RecentAnswers,
  requireSignature,
  type WhyAnswer,
  type WhyDeps,
  why,
} from "./why";
