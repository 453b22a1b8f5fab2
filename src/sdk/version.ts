// The SDK's version as it reports it in every envelope's `sdkVersion` (kept equal to package.json's
// version by test/sdk/package.test.ts; not imported from package.json so the bundle stays tiny).
export const SDK_VERSION = "txray-js/0.4.0";
